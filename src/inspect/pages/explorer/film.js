// film.js — the explorer's film view: training as a film (src/inspect/maps/film.h, film.json).
//
// The sentence's maps at every step checkpoint of the run, each frame teacher-forced on the one target the page
// shows, so a frame differs from the next only in its numbers. A slider (← → Home End Page Up/Down) and a play
// button move through the frames; beside them the run's loss curves (metrics.jsonl) and, when the sentence has a
// gold alignment (gold.js), each view's AER at every checkpoint — the step where a head starts to align is where
// its AER falls. The pictures are drawn once; a frame only recolours their cells (and their read-outs read the
// frame's numbers), so showing one takes milliseconds: the time of the last is on <body data-film-frame-ms> (script
// and layout) and data-film-shown-ms (until the next paint). The frame is in the address (#view=film&frame=STEP).
// A page on disk holds the film (`attnlab attention --checkpoints all`); a served page asks POST api/film once per
// sentence and keeps the answer.
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el, range = X.range;
  X.film = JSON.parse(document.getElementById('explorer-film').textContent);   // film.json, or null
  var fetched = {}, asked = {};   // under serve: films by request, and requests under way
  var SHOWS = [['cross', 'cross-attention heads'], ['flow', 'rollout and attributions']];
  var SPEEDS = [['1', '1 frame/s'], ['4', '4 frames/s'], ['10', '10 frames/s']];
  var CURVE_COLOURS = ['#2563eb', '#16a34a', '#7c3aed', '#0891b2', '#db2777', '#a16207'];
  var look = {show: 'cross', speed: '4', timer: null};

  X.filmAvailable = function () { return !!X.film || X.config.film === 'server'; };

  // ---- the film of the sentence shown: in the page, or asked of the server once ----
  function requestOf() {
    var p = X.serveParams ? X.serveParams() : {};
    return {run: Number(p.run || 0), text: X.data.source, target: X.data.target, ig_steps: Number(p.ig || 0)};
  }
  function currentFilm(root) {
    if (X.film) return X.film;
    var body = requestOf(), key = JSON.stringify(body);
    if (fetched[key]) return fetched[key];
    var status = el('p', {class: 'empty', id: 'film-status', 'aria-live': 'polite'}, root,
                    'Recording the sentence at every step checkpoint of the run\u2026');
    if (!asked[key]) {
      asked[key] = fetch('api/film', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: key})
        .then(function (response) {
          return response.json().then(function (answer) {
            if (!response.ok) throw new Error(answer.error || 'the server said no');
            fetched[key] = answer;
            if (X.state.view === 'film') X.redraw('film');
          });
        })
        .catch(function (error) {
          delete asked[key];
          var now = document.getElementById('film-status');
          if (now) { now.textContent = 'No film: ' + error.message; now.setAttribute('data-state', 'error'); }
        });
    }
    status.setAttribute('data-state', 'busy');
    return null;
  }

  X.views.film = {title: 'Film view', render: function (root) {
    var film = currentFilm(root);
    if (!film) {
      if (!X.film && X.config.film !== 'server') {
        el('p', {class: 'empty'}, root, 'This page holds no film: write it with attnlab attention --checkpoints all.');
      }
      return;
    }
    drawFilm(root, film);
  }};

  function drawFilm(root, film) {
    var frames = film.frames, view = {film: film, pictures: [], index: 0};
    var controls = el('div', {class: 'controls film-controls'}, root);
    view.play = el('button', {type: 'button', class: 'chip', 'data-key': 'film-play', 'aria-pressed': 'false',
                              'aria-label': 'play the film'}, controls, '\u25b6 play');
    view.slider = el('input', {type: 'range', min: 0, max: frames.length - 1, step: 1, value: 0, id: 'film-slider',
                               'data-key': 'film-slider', 'aria-label': 'checkpoint of the film'}, controls);
    view.label = el('span', {class: 'frame-label', 'aria-hidden': 'true'}, controls);
    X.segmented(controls, 'show', SHOWS, look.show, function (v) { stop(view); look.show = v; X.redraw('film'); });
    X.selector(controls, 'speed', SPEEDS, look.speed, function (v) {
      look.speed = v;
      if (look.timer) { stop(view); play(view); }
    }, 'film-speed');
    X.hint(root, 'The sentence at each of the ' + frames.length + ' step checkpoints of ' + film.run + ' (steps ' +
           frames[0].step + ' to ' + frames[frames.length - 1].step + '), every one teacher-forced on the target ' +
           '\u201c' + film.target + '\u201d, so a frame differs from the next only in its numbers. Drag the slider or ' +
           'use ← → Home End on it; the play button runs the frames. The chart: the run\u2019s loss (left axis, ' +
           'log scale) and each view\u2019s AER against the gold (right axis, 0 … 1); click it to jump to a step.',
           'film-hint');
    X.goldLegend(root, film);
    view.line = el('p', {class: 'film-line', id: 'film-line', 'aria-live': 'polite'}, root);
    drawChart(root, view);
    (look.show === 'cross' ? crossPictures : flowPictures)(root, view);
    view.slider.addEventListener('input', function () { showFrame(view, Number(view.slider.value)); });
    view.play.addEventListener('click', function () { if (look.timer) stop(view); else play(view); });
    var at = frames.map(function (f) { return f.step; }).indexOf(X.state.filmStep);
    showFrame(view, at >= 0 ? at : frames.length - 1, true);
  }

  // ---- playing ----
  function play(view) {
    if (view.index >= view.film.frames.length - 1) showFrame(view, 0);
    look.timer = setInterval(function () {
      if (!document.body.contains(view.slider)) return stop(view);
      if (view.index >= view.film.frames.length - 1) return stop(view);
      showFrame(view, view.index + 1);
    }, 1000 / Number(look.speed));
    view.play.textContent = '\u23f8 pause';
    view.play.setAttribute('aria-pressed', 'true');
    view.play.setAttribute('aria-label', 'pause the film');
    document.body.setAttribute('data-film-playing', '1');
  }
  function stop(view) {
    clearInterval(look.timer);
    look.timer = null;
    view.play.textContent = '\u25b6 play';
    view.play.setAttribute('aria-pressed', 'false');
    view.play.setAttribute('aria-label', 'play the film');
    document.body.setAttribute('data-film-playing', '0');
  }

  // ---- one frame: recolour every picture, move the marker, say where we are ----
  function showFrame(view, k, first) {
    var started = performance.now(), frames = view.film.frames;
    view.index = k = Math.max(0, Math.min(frames.length - 1, k));
    var frame = frames[k];
    view.slider.value = String(k);
    var where = 'step ' + frame.step + ' (frame ' + (k + 1) + ' of ' + frames.length + ')';
    view.slider.setAttribute('aria-valuetext', where);
    view.label.textContent = where;
    view.pictures.forEach(function (picture) { picture.update(frame); });
    var right = frame.translation === view.film.target;
    X.clear(view.line);
    el('span', {}, view.line, frame.checkpoint + ': its own translation \u201c' + frame.translation + '\u201d ');
    el('span', {class: right ? 'right' : 'wrong'}, view.line, right ? '(the target)' : '(not the target)');
    el('span', {}, view.line, ' · loss of the target ' + frame.loss.toFixed(3));
    view.marker.setAttribute('x1', view.x(frame.step));
    view.marker.setAttribute('x2', view.x(frame.step));
    X.state.filmStep = frame.step;
    if (!first) X.saveState();
    document.body.setAttribute('data-film-step', String(frame.step));
    view.line.getBoundingClientRect();                                 // the layout too, in the time below
    var ms = performance.now() - started;
    document.body.setAttribute('data-film-frame-ms', ms.toFixed(1));
    var most = Number(document.body.getAttribute('data-film-frame-max-ms') || 0);
    if (!first) document.body.setAttribute('data-film-frame-max-ms', Math.max(most, ms).toFixed(1));
    requestAnimationFrame(function () {
      setTimeout(function () { document.body.setAttribute('data-film-shown-ms', (performance.now() - started).toFixed(1)); }, 0);
    });
  }

  // A picture drawn once and recoloured per frame: `numbers(frame)` gives its matrix, `colour(x, matrix)` a cell's
  // colour. The read-out reads `shown`, whose numbers each frame overwrites.
  function filmPicture(view, holder, rows, cols, name, numbers, paint, method) {
    var film = view.film, first = numbers(film.frames[0]);
    var shown = first.map(function (r) { return r.slice(); }), scale = {value: 1};
    var cell = Math.max(rows.length, cols.length) > 24 ? 10 : 16;
    var svg = X.heatmapSvg(shown, rows, cols, cell, undefined, function (x) { return paint(x, scale.value); }, name);
    svg.setAttribute('data-film-picture', name);
    holder.appendChild(svg);
    var gold = X.goldOf(film);
    if (gold) X.goldOn(svg, holder, method, gold, film.frames[0].scores || {});
    var cells = Array.prototype.slice.call(svg.querySelectorAll('rect[data-i]'));
    view.pictures.push({update: function (frame) {
      var matrix = numbers(frame);
      scale.value = X.largest(matrix.map(function (r) { return r.map(Math.abs); }));
      cells.forEach(function (rect) {
        var i = Number(rect.getAttribute('data-i')), j = Number(rect.getAttribute('data-j')), x = matrix[i][j];
        shown[i][j] = x;
        rect.setAttribute('fill', paint(x, scale.value));
        rect.setAttribute('data-w', x);
      });
      if (gold && method) X.goldScore(holder, method, frame.scores || {});
    }});
    return svg;
  }
  function heat(x) { return X.heat(x); }
  function scaledHeat(x, largest) { return X.heat(largest > 0 ? x / largest : 0); }
  function diverging(x, largest) { return X.diverging(x, largest); }
  function meanOfHeads(byHead) {
    return byHead[0].map(function (row, i) {
      return row.map(function (_, j) { return X.sum(byHead.map(function (h) { return h[i][j]; })) / byHead.length; });
    });
  }

  // Every cross-attention map: a row per layer, a column per head and the mean of the heads.
  function crossPictures(root, view) {
    var film = view.film, rows = film.tokens.target_output, cols = film.tokens.source;
    X.legend(root, 'heat', 1, 'weight: white 0, dark blue 1');
    var table = el('table', {class: 'grid'}, el('div', {class: 'scroll'}, root));
    film.maps.forEach(function (map, m) {
      if (map.type !== 'cross' || map.keys !== 'source') return;
      if (!table.firstChild) {
        var header = el('tr', {}, table);
        el('th', {}, header);
        range(map.heads).forEach(function (h) { el('th', {}, header, 'head ' + h); });
        el('th', {}, header, 'mean of heads');
      }
      var row = el('tr', {}, table), prefix = 'cross.l' + map.layer + '.';
      el('th', {class: 'rowhead'}, row, 'layer ' + map.layer);
      range(map.heads).forEach(function (h) {
        filmPicture(view, el('td', {}, row), rows, cols, 'cross-attention layer ' + map.layer + ' head ' + h,
                    function (frame) { return frame.weights[m][h]; }, heat, prefix + 'h' + h);
      });
      filmPicture(view, el('td', {}, row), rows, cols, 'cross-attention layer ' + map.layer + ' mean of heads',
                  function (frame) { return meanOfHeads(frame.weights[m]); }, heat, prefix + 'mean');
    });
    if (!table.firstChild) el('p', {class: 'empty'}, root, 'This model has no cross-attention over source tokens.');
  }
  // Rollout and, when recorded, the two gradient attributions, each scaled to its frame's largest magnitude.
  function flowPictures(root, view) {
    var film = view.film, rows = film.tokens.target_output, cols = film.tokens.source;
    X.legend(root, 'heat', 1, 'rollout: share of the position\u2019s content, scaled to the frame\u2019s largest');
    var row = el('div', {class: 'side-by-side'}, root);
    var parts = [['rollout', 'rollout', scaledHeat]];
    if (film.frames[0].integrated_gradients) {
      parts.push(['gradient_x_input', 'gradient × input', diverging]);
      parts.push(['integrated_gradients', 'integrated gradients', diverging]);
    } else {
      el('p', {class: 'hint'}, root, 'No attributions in this film: it was recorded with --ig-steps 0.');
    }
    parts.forEach(function (part) {
      var box = el('figure', {class: 'flow-figure', 'data-flow': part[1]}, row);
      el('figcaption', {}, box, part[1]);
      filmPicture(view, box, rows, cols, part[1], function (frame) { return frame[part[0]]; }, part[2], part[0]);
    });
  }

  // ---- the chart: loss (log scale, left) and AER (right) against the step, a marker at the frame ----
  function curvesOf(view) {
    var film = view.film, frames = film.frames, out = [];
    var aer = function (name) { return frames.map(function (f) { return [f.step, f.scores && f.scores[name] ? f.scores[name].aer : null]; }); };
    if (X.goldOf(film) && frames[0].scores) {
      var names = Object.keys(frames[0].scores), last = frames[frames.length - 1].scores;
      var wanted = look.show === 'cross'
        ? names.filter(function (n) { return /^cross\.l\d+\.mean$/.test(n); })
        : names.filter(function (n) { return ['rollout', 'gradient_x_input', 'integrated_gradients'].indexOf(n) >= 0; });
      if (look.show === 'cross') {
        var heads = names.filter(function (n) { return /^cross\.l\d+\.h\d+$/.test(n); });
        heads.sort(function (a, b) { return last[a].aer - last[b].aer; });
        if (heads.length) wanted.push(heads[0]);
      }
      wanted.forEach(function (n) { out.push({name: 'AER ' + n + (/\.h\d+$/.test(n) ? ' (best head at the end)' : ''), axis: 'aer', points: aer(n)}); });
    }
    out.push({name: 'loss of this target', axis: 'loss', points: frames.map(function (f) { return [f.step, f.loss]; })});
    if (film.curves.train.length) out.push({name: 'training loss', axis: 'loss', points: film.curves.train, colour: '#98a2b3'});
    if (film.curves.valid.length) out.push({name: 'validation loss', axis: 'loss', points: film.curves.valid, colour: '#1d2430'});
    return out;
  }
  function drawChart(root, view) {
    var W = 640, H = 190, left = 46, right = 40, top = 10, bottom = 24, frames = view.film.frames;
    var curves = curvesOf(view), steps = [], losses = [];
    curves.forEach(function (c) {
      c.points.forEach(function (p) {
        steps.push(p[0]);
        if (c.axis === 'loss' && p[1] > 0) losses.push(p[1]);
      });
    });
    var s0 = Math.min.apply(null, steps), s1 = Math.max.apply(null, steps.concat([s0 + 1]));
    var l0 = Math.log(Math.min.apply(null, losses.concat([1]))), l1 = Math.log(Math.max.apply(null, losses.concat([1.01])));
    view.x = function (s) { return left + (W - left - right) * (s - s0) / (s1 - s0); };
    var yLoss = function (l) { return top + (H - top - bottom) * (1 - (Math.log(l) - l0) / (l1 - l0 || 1)); };
    var yAer = function (a) { return top + (H - top - bottom) * (1 - a); };
    var svg = el('svg', {class: 'film-chart', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img',
                         'aria-label': 'loss and AER against the training step; the red line is the frame shown'}, root);
    el('rect', {x: left, y: top, width: W - left - right, height: H - top - bottom, fill: '#fff', stroke: '#e4e7ec'}, svg);
    [[s0, 'start'], [s1, 'end']].forEach(function (t) { el('text', {x: view.x(t[0]), y: H - 8, 'text-anchor': t[1]}, svg, 'step ' + t[0]); });
    [[Math.exp(l1), top + 8], [Math.exp(l0), H - bottom]].forEach(function (t) { el('text', {x: left - 4, y: t[1], 'text-anchor': 'end'}, svg, t[0].toFixed(2)); });
    [[1, top + 8], [0, H - bottom]].forEach(function (t) { el('text', {x: W - right + 4, y: t[1]}, svg, 'AER ' + t[0]); });
    var legend = el('div', {class: 'meta film-legend'}, root), k = 0;
    curves.forEach(function (c) {
      var colour = c.colour || CURVE_COLOURS[k++ % CURVE_COLOURS.length], y = c.axis === 'aer' ? yAer : yLoss;
      var d = c.points.filter(function (p) { return p[1] !== null && (c.axis === 'aer' || p[1] > 0); })
        .map(function (p, n) { return (n ? 'L' : 'M') + view.x(p[0]).toFixed(1) + ' ' + y(p[1]).toFixed(1); }).join(' ');
      el('path', {d: d, fill: 'none', stroke: colour, 'stroke-width': 1.5, 'stroke-dasharray': c.axis === 'aer' ? null : '4 2',
                  'data-curve': c.name}, svg);
      var item = el('span', {style: 'margin-right: 12px'}, legend);
      el('span', {style: 'color:' + colour}, item, c.axis === 'aer' ? '\u2014 ' : '- - ');
      item.appendChild(document.createTextNode(c.name));
    });
    view.marker = el('line', {y1: top, y2: H - bottom, stroke: '#dc2626', 'stroke-width': 1.5, class: 'film-marker'}, svg);
    svg.addEventListener('click', function (event) {
      var r = svg.getBoundingClientRect(), step = s0 + (event.clientX - r.left - left) / (W - left - right) * (s1 - s0);
      var best = 0;
      frames.forEach(function (f, n) { if (Math.abs(f.step - step) < Math.abs(frames[best].step - step)) best = n; });
      stop(view);
      showFrame(view, best);
    });
  }
})();
