// steps.js — the explorer's decoding view (the translation step by step) and compare view (two runs, one
// sentence), common.js has the data's schema.
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el, fmt = X.fmt, range = X.range;
  // ---- decoding view ----
  // The translation token by token: at step t the decoder reads target_input[t] and predicts target_output[t].
  // ◀ ▶ and the slider (each operable by keyboard; ← → step too when the focus is not in a list), the tokens.
  function stepControls(root, steps, t) {
    var controls = el('div', {class: 'controls'}, root);
    var previous = el('button', {type: 'button', class: 'chip', id: 'step-back', 'data-key': 'step-back'}, controls, '◀ back');
    var slider = el('input', {type: 'range', min: 0, max: steps.length - 1, value: t, id: 'step-slider',
                              'data-key': 'step-slider', 'aria-label': 'decoding step'}, controls);
    var next = el('button', {type: 'button', class: 'chip', id: 'step-next', 'data-key': 'step-next'}, controls, 'next ▶');
    el('span', {class: 'meta'}, controls, 'step ' + (t + 1) + ' of ' + steps.length + ' (← → keys)');
    previous.addEventListener('click', function () { X.state.step -= 1; X.redraw('decoding'); });
    next.addEventListener('click', function () { X.state.step += 1; X.redraw('decoding'); });
    slider.addEventListener('input', function () { X.state.step = Number(slider.value); X.redraw('decoding'); });
    var line = el('div', {class: 'steps'}, root);
    X.data.tokens.target_output.forEach(function (token, s) {
      el('code', {class: 'tok ' + (s < t ? 'done' : s === t ? 'now' : 'later')}, line, token);
    });
  }
  function renderDecoding(root) {
    var steps = X.data.decoding ? X.data.decoding.steps : [];
    if (!steps.length) { el('p', {class: 'empty'}, root, 'No decoding steps recorded.'); return; }
    var t = X.state.step = Math.max(0, Math.min(steps.length - 1, X.state.step));
    stepControls(root, steps, t);
    var step = steps[t];
    X.hint(root, 'Step ' + (t + 1) + ': the decoder position that reads \u201c' + step.reads + '\u201d (and the ' +
           'tokens before it) looks at the source through cross-attention, and the translation continues with \u201c' +
           step.chosen + '\u201d (p = ' + step.p.toFixed(3) + '). The table is that position\u2019s row of every ' +
           'cross-attention map: a cell per source token, its colour and number the weight.', 'decoding-hint');
    X.legend(root, 'heat', 1, 'weight: white 0, dark blue 1; the bars: the probability of each next token');
    var panels = el('div', {class: 'panels'}, root);
    crossRow(panels, t);
    likeliest(panels, step);
    beamPanel(panels, t);
    document.body.setAttribute('data-step', String(t));
  }
  function crossRow(panels, t) {
    var cross = X.mapsOf('cross');
    if (cross.length) {
      var panel = el('div', {class: 'panel'}, panels);
      el('h4', {}, panel, 'cross-attention of this step');
      var table = el('table', {class: 'row', id: 'decode-row'}, el('div', {class: 'scroll'}, panel));
      var header = el('tr', {}, el('thead', {}, table));
      el('th', {}, header);
      X.labels(cross[0], 'k').forEach(function (token) { el('th', {}, header, token); });
      var body = el('tbody', {}, table);
      cross.forEach(function (map) {
        range(map.heads).concat([-1]).forEach(function (h) {
          var weights = h < 0 ? X.meanMatrix([map], range(map.heads))[t] : map.weights[h][t];
          var row = el('tr', {'data-layer': map.layer, 'data-head': h}, body);
          el('th', {}, row, 'layer ' + map.layer + (h < 0 ? ' · mean' : ' · head ' + h));
          weights.forEach(function (w) {
            el('td', {class: 'w', style: 'background:' + X.heat(w) + ';color:' + (w > 0.55 ? '#fff' : '#1d2430'),
                      'data-w': w}, row, w.toFixed(2));
          });
        });
      });
    }
  }
  function likeliest(panels, step) {
    var top = el('div', {class: 'panel top5'}, panels);
    el('h4', {}, top, 'five likeliest next tokens');
    step.likeliest.forEach(function (choice) {
      var item = el('div', {class: 'item' + (choice.token === step.chosen ? ' chosen' : '')}, top);
      el('span', {class: 'tokname'}, item, choice.token);
      el('div', {class: 'fill', style: 'width:' + (100 * choice.p).toFixed(1) + '%'}, el('div', {class: 'track'}, item));
      el('span', {class: 'p'}, item, choice.p.toFixed(4));
    });
  }
  function beamPanel(panels, t) {
    var beamSteps = X.data.decoding.beam_steps || [];
    if (X.data.decoding.beam > 1 && beamSteps.length) {
      var beam = el('div', {class: 'panel'}, panels);
      el('h4', {}, beam, 'beam search, step ' + (t + 1) + ' (k = ' + X.data.decoding.beam + ', α = ' +
         X.data.decoding.length_penalty + ')');
      if (t >= beamSteps.length) {
        el('p', {class: 'hint'}, beam, 'The search had ended by this step.');
      } else {
        var candidates = el('table', {class: 'numbers', id: 'beam-table'}, beam);
        var ch = el('tr', {}, candidates);
        ['hypothesis', 'log P', 'score', ''].forEach(function (name) { el('th', {}, ch, name); });
        beamSteps[t].forEach(function (c) {
          var row = el('tr', {'data-fate': c.fate}, candidates);
          el('td', {}, row, c.tokens.join(' '));
          el('td', {}, row, fmt(c.log_prob, 3));
          el('td', {}, row, c.fate === 'finished' ? fmt(c.score, 3) : '');
          el('span', {class: 'fate ' + c.fate}, el('td', {}, row), c.fate);
        });
        el('p', {class: 'hint'}, beam, 'The best 2k extensions of the live hypotheses: k are kept, those ending in ' +
           '</s> are finished (score = log P / ((5 + |Y|) / 6)^α), the rest dropped.');
      }
    }
  }

  // ---- compare view ----
  // The same sentence through two runs (say scaled_dot and linear): translations, and per type and layer the
  // mean of the heads with its entropy, side by side.
  function renderCompare(root) {
    X.hint(root, 'The same sentence through two runs: their translations, and for each type and layer the mean of ' +
           'the heads of each run\u2019s map with its attention entropy (0 nats: every query reads one key). Where the ' +
           'two pictures differ, the runs read the sentence differently. The axes are the same in every picture: ' +
           'encoder rows and columns are source tokens; decoder rows are named by the token each position ' +
           'predicts, decoder self-attention\u2019s columns by the target tokens read. Tab to a picture and use the ' +
           'arrow keys to read its cells.', 'compare-hint');
    if (!X.compared) {
      el('p', {class: 'empty'}, root, X.config.mode === 'serve' && X.config.runs.length > 1
         ? 'Choose a run under “compare with” and translate again.'
         : 'Write the page with a second run (attnlab attention --run A --compare B …), or serve two runs ' +
           '(attnlab serve --run A --run B), to compare them on one sentence.');
      return;
    }
    var first = X.config.mode === 'serve' ? X.config.runs[Number(document.getElementById('ask-run').value)]
                                        : X.config.compared_runs[0];
    X.legend(root, 'heat', 1, 'mean weight of the heads: white 0, dark blue 1');
    var sides = [{name: first, data: X.data}, {name: X.compared.name, data: X.compared.data}];
    var table = el('table', {class: 'grid', id: 'compare-table'}, el('div', {class: 'scroll'}, root));
    var header = el('tr', {}, table);
    el('th', {}, header);
    sides.forEach(function (side) {
      var th = el('th', {}, header);
      el('div', {}, th, side.name);
      el('div', {class: 'tokens'}, th).appendChild(document.createTextNode(side.data.target));
    });
    ['encoder_self', 'decoder_self', 'cross'].forEach(function (type) {
      var layers = Math.max.apply(null, sides.map(function (side) {
        return side.data.maps.filter(function (m) { return m.type === type; }).length;
      }));
      range(layers).forEach(function (layer) {
        var row = el('tr', {}, table);
        el('th', {class: 'rowhead'}, row, X.TYPE_TITLES[type] + ' · layer ' + layer + ' · mean of heads');
        sides.forEach(function (side) {
          var cell = el('td', {}, row);
          var map = side.data.maps.filter(function (m) { return m.type === type && m.layer === layer; })[0];
          if (!map) { el('span', {class: 'meta'}, cell, '(no such layer)'); return; }
          var matrix = X.meanMatrix([map], range(map.heads));
          var cellSize = map.weights[0][0].length > 24 ? 8 : 16;
          cell.appendChild(X.heatmapSvg(matrix, X.labels(map, 'q', side.data), X.labels(map, 'k', side.data), cellSize,
                                        undefined, undefined, side.name + ' ' + X.TYPE_TITLES[type] + ' layer ' + layer));
          el('div', {class: 'meta'}, cell, map.kind + ' · H = ' + X.entropy(matrix).toFixed(2) + ' nats');
        });
      });
    });
  }

  X.views.decoding = {title: 'Decoding view', render: renderDecoding};
  X.views.compare = {title: 'Compare view', render: renderCompare};
})();
