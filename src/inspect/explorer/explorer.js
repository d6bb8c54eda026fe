// explorer.js — the attention explorer's views (src/inspect/explorer_page.h says what each one shows).
//
// The data is attention.json (its schema is written at attention_json(), src/inspect/attention_json.cpp):
//   data.tokens.{source, target_input, target_output}
//   data.maps[m] = {type, layer, kind, heads, queries, keys, weights[head][query][key], score_scale, window,
//                   local, hard_eval, neuron: {q, k, scores, tanh, w, phi_q, phi_k, token_softmax, memory_k, gamma,
//                                              centre, window, softmax, gaussian, distribution, chosen_key}}
//   data.decoding = {beam, length_penalty, steps[t] = {reads, chosen, p, likeliest}, beam_steps[t][c]}
// Every number on the page is either one of those or computed here from them in plain sight (q·k from q and k,
// the softmax of the recorded scores, a mean over heads); the neuron view puts the two side by side.
// Plain DOM and SVG, no library: the page must work opened from disk with no network.
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('explorer-config').textContent);
  var data = JSON.parse(document.getElementById('explorer-data').textContent);
  var SVG = 'http://www.w3.org/2000/svg';
  var HEAD_COLOURS = ['#2563eb', '#ea580c', '#16a34a', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d',
                      '#a16207', '#4b5563', '#0d9488', '#9333ea', '#e11d48', '#0284c7', '#ca8a04', '#475569'];
  var TYPES = [['encoder_self', 'encoder self'], ['decoder_self', 'decoder self'], ['cross', 'cross'],
               ['all', 'all three']];
  var TYPE_TITLES = {encoder_self: 'encoder self-attention', decoder_self: 'decoder self-attention',
                     cross: 'cross-attention'};
  var state = {view: 'head', type: 'cross', layer: 0, headsOn: [], meanHeads: false, meanLayers: false,
               pinned: null, neuron: {type: 'encoder_self', layer: 0, head: 0, query: 0, key: null}, step: 0};
  var renders = 0;
  // The same sentence through a second run, for the compare view ({name, data}): written into the page by
  // `attnlab attention --compare`, or asked of `attnlab serve` under "compare with".
  var comparedData = JSON.parse(document.getElementById('explorer-compared').textContent);
  var compared = comparedData ? {name: config.compared_runs[1], data: comparedData} : null;

  // ---- small helpers ----
  function el(tag, attrs, parent, text) {
    var isSvg = ['svg', 'line', 'rect', 'text', 'g', 'title', 'path'].indexOf(tag) >= 0;
    var node = isSvg ? document.createElementNS(SVG, tag) : document.createElement(tag);
    for (var name in (attrs || {})) {
      if (attrs[name] !== null && attrs[name] !== undefined) node.setAttribute(name, attrs[name]);
    }
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function range(n) { var out = []; for (var i = 0; i < n; ++i) out.push(i); return out; }
  function fmt(x, digits) {
    if (x === null || x === undefined) return '−∞';
    if (!isFinite(x)) return x > 0 ? '∞' : '−∞';
    return x.toFixed(digits === undefined ? 4 : digits).replace('-', '−');
  }
  function sum(values) { var s = 0; for (var i = 0; i < values.length; ++i) s += values[i]; return s; }
  function product(a, b) { return a.map(function (x, i) { return x * b[i]; }); }
  // ColorBrewer "Blues", the same five stops as the SVG files (src/inspect/svg.cpp, heat_colour).
  var BLUES = [[247, 251, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]];
  function heat(w) {
    w = Math.max(0, Math.min(1, isFinite(w) ? w : 0));
    var at = w * (BLUES.length - 1), lower = Math.min(Math.floor(at), BLUES.length - 2), f = at - lower;
    var c = BLUES[lower].map(function (v, k) { return Math.round(v + f * (BLUES[lower + 1][k] - v)); });
    return 'rgb(' + c.join(',') + ')';
  }
  // Blue for negative, red for positive, white for 0: the colour of one feature of a vector.
  function diverging(x, largest) {
    var t = largest > 0 ? Math.max(-1, Math.min(1, x / largest)) : 0;
    var a = Math.round(255 * (1 - Math.abs(t)));
    return t >= 0 ? 'rgb(255,' + a + ',' + a + ')' : 'rgb(' + a + ',' + a + ',255)';
  }
  function headColour(h) { return HEAD_COLOURS[h % HEAD_COLOURS.length]; }
  function largest(values) {
    var flat = [].concat.apply([], values.map(function (v) { return Array.isArray(v) ? v : [v]; }));
    return flat.reduce(function (m, x) { return isFinite(x) && x > m ? x : m; }, 0);
  }
  // A colour legend: a bar from the colour of 0 (or −max) to the colour of max, its ends and its middle numbered.
  function legend(parent, kind, max, what) {
    var box = el('div', {class: 'legend', role: 'img', 'aria-label': 'colour legend: ' + what}, parent);
    var svg = el('svg', {width: 260, height: 30, viewBox: '0 0 260 30'}, box);
    for (var k = 0; k < 52; ++k) {
      var x = k / 51;
      el('rect', {x: 5 + k * 5, y: 2, width: 5, height: 12,
                  fill: kind === 'diverging' ? diverging((2 * x - 1) * max, max) : heat(x)}, svg);
    }
    var low = kind === 'diverging' ? -max : 0, mid = kind === 'diverging' ? 0 : max / 2;
    [[5, low, 'start'], [135, mid, 'middle'], [265 - 5, max, 'end']].forEach(function (tick) {
      el('text', {x: tick[0], y: 27, 'font-size': 10, 'text-anchor': tick[2]}, svg, fmt(tick[1], 3));
    });
    el('span', {class: 'meta'}, box, what);
    return box;
  }

  // ---- the data ----
  function mapsOf(type) {
    return data.maps.filter(function (m) { return m.type === type; })
                    .sort(function (a, b) { return a.layer - b.layer; });
  }
  function mapAt(type, layer) { return mapsOf(type).filter(function (m) { return m.layer === layer; })[0]; }
  function presentTypes() { return ['encoder_self', 'decoder_self', 'cross'].filter(function (t) { return mapsOf(t).length; }); }
  // The tokens that label a map's rows (side 'q') or columns ('k'); `from` is the data the map came from.
  function labels(map, side, from) {
    var what = side === 'q' ? map.queries : map.keys;
    if (what === 'slots') return range(map.weights[0][0].length).map(function (s) { return 'slot ' + s; });
    return (from || data).tokens[what];
  }
  // The mean of the given heads of the given maps (maps of one type: same shape), [queries][keys].
  function meanMatrix(maps, heads) {
    var rows = maps[0].weights[0].length, cols = maps[0].weights[0][0].length, n = 0;
    var out = range(rows).map(function () { return range(cols).map(function () { return 0; }); });
    maps.forEach(function (map) {
      heads.forEach(function (h) {
        if (h >= map.heads) return;
        n += 1;
        for (var i = 0; i < rows; ++i) for (var j = 0; j < cols; ++j) out[i][j] += map.weights[h][i][j];
      });
    });
    return out.map(function (row) { return row.map(function (w) { return n ? w / n : 0; }); });
  }
  // Attention entropy of one head: H(row) = −Σ_j a_ij ln a_ij in nats, the mean over rows that see a key (rows
  // of zeros are skipped; local_p's rows sum to between e^(−2) and 1 and count as they are), the same measure as
  // `attnlab eval` (src/lab/evaluate.h).
  function entropy(matrix) {
    var total = 0, rows = 0;
    matrix.forEach(function (row) {
      if (!(sum(row) > 0)) return;
      rows += 1;
      row.forEach(function (w) { if (w > 0) total -= w * Math.log(w); });
    });
    return rows ? total / rows : 0;
  }
  function headCount() { return Math.max.apply(null, data.maps.map(function (m) { return m.heads; })); }
  function layerCount(type) { return mapsOf(type).length; }

  // ---- shared pieces of the views ----
  function segmented(parent, label, options, current, onPick) {
    var group = el('div', {class: 'group seg'}, parent);
    el('span', {class: 'label'}, group, label);
    options.forEach(function (option) {
      var button = el('button', {type: 'button', 'data-value': option[0], class: option[0] === current ? 'on' : ''},
                      group, option[1]);
      button.addEventListener('click', function () { onPick(option[0]); });
    });
    return group;
  }
  function selector(parent, label, options, current, onPick, id) {
    var group = el('div', {class: 'group'}, parent);
    el('span', {class: 'label'}, group, label);
    var select = el('select', {id: id}, group);
    options.forEach(function (option) {
      var o = el('option', {value: option[0]}, select, option[1]);
      if (String(option[0]) === String(current)) o.selected = true;
    });
    select.addEventListener('change', function () { onPick(select.value); });
    return select;
  }
  function typeOptions(withAll) {
    var present = presentTypes();
    return TYPES.filter(function (t) { return t[0] === 'all' ? withAll : present.indexOf(t[0]) >= 0; });
  }

  // A heatmap as SVG: rows = queries, columns = keys, a cell per weight; hovering a cell names it (tooltip).
  // `picture` sets data-map="m/h" for the pictures of one head (counted into <body data-maps-ready>).
  // `colour` (optional) paints a number; heat() (0 … 1, white to dark blue) by default.
  function heatmapSvg(matrix, rowLabels, colLabels, cell, picture, colour) {
    var longest = function (list) { return Math.max.apply(null, list.map(function (s) { return s.length; }).concat([1])); };
    var left = 8 + 7 * longest(rowLabels), top = 8 + 7 * longest(colLabels);
    var width = left + cell * colLabels.length + 4, height = top + cell * rowLabels.length + 4;
    var svg = el('svg', {width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, 'data-map': picture});
    var font = Math.min(12, Math.max(8, cell - 3));
    rowLabels.forEach(function (label, i) {
      el('text', {x: left - 4, y: top + cell * i + cell / 2 + font / 3, 'text-anchor': 'end', 'font-size': font}, svg, label);
    });
    colLabels.forEach(function (label, j) {
      var x = left + cell * j + cell / 2 + font / 3, y = top - 4;
      el('text', {x: x, y: y, transform: 'rotate(-90 ' + x + ' ' + y + ')', 'font-size': font}, svg, label);
    });
    matrix.forEach(function (row, i) {
      row.forEach(function (w, j) {
        el('rect', {x: left + cell * j, y: top + cell * i, width: cell, height: cell, fill: (colour || heat)(w),
                    'data-i': i, 'data-j': j, 'data-w': w}, svg);
      });
    });
    el('rect', {x: left, y: top, width: cell * colLabels.length, height: cell * rowLabels.length, fill: 'none',
                stroke: '#98a2b3', 'stroke-width': 0.5}, svg);
    var tip = document.getElementById('tooltip');
    svg.addEventListener('mousemove', function (event) {
      var target = event.target;
      if (!target.hasAttribute('data-i')) { tip.style.display = 'none'; return; }
      var i = Number(target.getAttribute('data-i')), j = Number(target.getAttribute('data-j'));
      tip.textContent = 'query \u201c' + rowLabels[i] + '\u201d \u2192 key \u201c' + colLabels[j] + '\u201d: ' +
                        matrix[i][j].toFixed(3);
      tip.style.left = (event.pageX + 14) + 'px';
      tip.style.top = (event.pageY + 14) + 'px';
      tip.style.display = 'block';
    });
    svg.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
    return svg;
  }

  // ---- the sentence and the tabs ----
  function renderSentence() {
    var root = clear(document.getElementById('sentence'));
    if (!data) {
      el('p', {class: 'empty'}, root, config.mode === 'serve' ? 'Type a sentence above and press Translate.'
                                                              : 'This page holds no sentence.');
      return;
    }
    var how = data.target_forced ? 'given' : data.decoding && data.decoding.beam > 1
              ? 'beam search, k = ' + data.decoding.beam : 'greedy translation';
    [['source', data.tokens.source, ''], ['target', data.tokens.target_output, ' (' + how + ')']].forEach(function (row) {
      var line = el('div', {class: 'row'}, root);
      el('span', {class: 'what'}, line, row[0]);
      var tokens = el('span', {class: 'tokens'}, line);
      row[1].forEach(function (t) { el('code', {}, tokens, t); });
      el('span', {class: 'meta'}, line, row[2]);
    });
    var kinds = presentTypes().map(function (t) { return TYPE_TITLES[t] + ': ' + mapsOf(t)[0].kind; }).join(' · ');
    el('div', {class: 'meta'}, root, 'weights of ' + data.checkpoint + ' (step ' + data.step + ') · ' + kinds);
  }
  function showView(view) {
    state.view = view;
    document.querySelectorAll('#tabs button').forEach(function (b) {
      b.classList.toggle('active', b.getAttribute('data-view') === view);
    });
    document.querySelectorAll('.view').forEach(function (v) { v.classList.toggle('active', v.id === 'view-' + view); });
    document.body.setAttribute('data-view', view);
  }

  // ---- head view ----
  // Two columns of tokens joined by a line per head and (query, key) whose opacity is the weight (BertViz's head
  // view; "all three" stacks source and target on both sides, as Tensor2Tensor's attention view does).
  function headParts() {
    var types = state.type === 'all' ? presentTypes() : [state.type];
    var parts = [];
    types.forEach(function (type) {
      var maps = state.meanLayers ? mapsOf(type) : [mapAt(type, state.layer)];
      if (!maps[0]) return;
      if (state.type === 'all' && maps[0].keys === 'slots') return;   // memory slots have no place among tokens
      parts.push({type: type, maps: maps});
    });
    return parts;
  }
  function renderHead() {
    var root = clear(document.getElementById('view-head'));
    var controls = el('div', {class: 'controls'}, root);
    segmented(controls, 'attention', typeOptions(true), state.type, function (v) {
      state.type = v; state.pinned = null; renderHead();
    });
    var layers = Math.max.apply(null, presentTypes().map(layerCount));
    var layerOptions = range(layers).map(function (l) { return [l, 'layer ' + l]; });
    layerOptions.push(['mean', 'mean of layers']);
    selector(controls, 'layer', layerOptions, state.meanLayers ? 'mean' : state.layer, function (v) {
      state.meanLayers = v === 'mean';
      if (!state.meanLayers) state.layer = Number(v);
      state.pinned = null;
      renderHead();
    }, 'head-layer');
    var heads = headCount();
    while (state.headsOn.length < heads) state.headsOn.push(true);
    var chips = el('div', {class: 'group'}, controls);
    el('span', {class: 'label'}, chips, 'heads');
    range(heads).forEach(function (h) {
      var chip = el('button', {type: 'button', class: 'chip ' + (state.headsOn[h] ? 'on' : 'off'), 'data-head': h}, chips);
      el('span', {class: 'dot', style: 'background:' + headColour(h)}, chip);
      chip.appendChild(document.createTextNode(String(h)));
      chip.addEventListener('click', function () { state.headsOn[h] = !state.headsOn[h]; renderHead(); });
    });
    var mean = el('label', {class: 'group'}, controls);
    var box = el('input', {type: 'checkbox', id: 'head-mean'}, mean);
    box.checked = state.meanHeads;
    mean.appendChild(document.createTextNode(' mean of the heads shown'));
    box.addEventListener('change', function () { state.meanHeads = box.checked; renderHead(); });
    el('p', {class: 'hint'}, root, 'Each line joins a query (left) to a key (right); its opacity is the weight, its ' +
       'colour the head. Point at a token to keep only its lines, click it to pin them (click again to let go). ' +
       'Cross-attention rows are the target tokens each position predicts.');

    var parts = headParts();
    if (!parts.length) { el('p', {class: 'empty'}, root, 'No map of this type at this layer.'); return; }
    // The columns: one block of tokens per side and part ("all": source, then target, on both sides).
    var left = [], right = [], starts = {q: {}, k: {}};
    function block(side, name, tokens) {          // where a block of tokens starts in its column (added once)
      var list = side === 'q' ? left : right;
      if (starts[side][name] === undefined) {
        starts[side][name] = list.length;
        tokens.forEach(function (t) { list.push({text: t, block: name}); });
      }
      return starts[side][name];
    }
    var lines = [];
    parts.forEach(function (part) {
      var map = part.maps[0];
      var qName = state.type === 'all' ? (part.type === 'encoder_self' ? 'source' : 'target') : map.queries;
      var kName = state.type === 'all' ? (part.type === 'decoder_self' ? 'target' : 'source') : map.keys;
      var qTokens = state.type === 'all' && qName === 'target' ? data.tokens.target_input : labels(map, 'q');
      var kTokens = state.type === 'all' && kName === 'target' ? data.tokens.target_input : labels(map, 'k');
      var q0 = block('q', qName, qTokens), k0 = block('k', kName, kTokens);
      var shown = range(map.heads).filter(function (h) { return state.headsOn[h]; });
      var sets = state.meanHeads ? [{head: -1, matrix: meanMatrix(part.maps, shown)}]
                                 : shown.map(function (h) { return {head: h, matrix: meanMatrix(part.maps, [h])}; });
      if (state.meanHeads && !shown.length) sets = [];
      sets.forEach(function (set) {
        set.matrix.forEach(function (row, i) {
          row.forEach(function (w, j) {
            if (w >= 0.01) lines.push({q: q0 + i, k: k0 + j, w: w, head: set.head, part: part.type});
          });
        });
      });
    });
    var rowH = 22, top = 30, textW = 150, gap = 220;
    var width = textW * 2 + gap + 40, height = top + rowH * Math.max(left.length, right.length) + 10;
    var holder = el('div', {class: 'scroll'}, root);
    var svg = el('svg', {class: 'headview', width: width, height: height, 'data-lines': lines.length}, holder);
    var xL = textW + 10, xR = textW + 10 + gap;
    el('text', {class: 'part', x: xL - 6, y: 14, 'text-anchor': 'end'}, svg, 'queries');
    el('text', {class: 'part', x: xR + 6, y: 14}, svg, 'keys');
    var y = function (index) { return top + rowH * index + rowH / 2; };
    var lineNodes = lines.map(function (line) {
      return el('line', {x1: xL, y1: y(line.q), x2: xR, y2: y(line.k), stroke: line.head < 0 ? '#1d2430' : headColour(line.head),
                         'stroke-opacity': line.w.toFixed(3), 'stroke-width': 2, 'data-q': line.q, 'data-k': line.k,
                         'data-head': line.head, 'data-part': line.part, 'data-w': line.w}, svg);
    });
    var tokenNodes = [];
    [[left, 'q', xL - 6, 'end'], [right, 'k', xR + 6, 'start']].forEach(function (side) {
      side[0].forEach(function (token, index) {
        var node = el('text', {class: 'tok', x: side[2], y: y(index) + 4, 'text-anchor': side[3], 'data-side': side[1],
                               'data-index': index, 'data-block': token.block}, svg, token.text);
        tokenNodes.push(node);
        // The read-out beside a token while a token of the other side is in focus: the mean weight of the lines.
        node.readout = el('text', {class: 'readout', x: side[1] === 'q' ? 8 : xR + textW, y: y(index) + 4,
                                   'data-side': side[1], 'data-index': index}, svg);
        node.addEventListener('mouseenter', function () { focus(side[1], index); });
        node.addEventListener('mouseleave', function () { focus(state.pinned && state.pinned[0], state.pinned && state.pinned[1]); });
        node.addEventListener('click', function () {
          var same = state.pinned && state.pinned[0] === side[1] && state.pinned[1] === index;
          state.pinned = same ? null : [side[1], index];
          tokenNodes.forEach(function (t) { t.classList.remove('pinned'); });
          if (!same) node.classList.add('pinned');
          svg.setAttribute('data-pinned', same ? '' : side[1] + index);
          focus(state.pinned && state.pinned[0], state.pinned && state.pinned[1]);
        });
      });
    });
    // Keeps only the lines of one token (side 'q' or 'k'), or every line when side is null.
    function focus(side, index) {
      var visible = 0;
      lineNodes.forEach(function (line) {
        var keep = !side || Number(line.getAttribute(side === 'q' ? 'data-q' : 'data-k')) === index;
        line.style.display = keep ? '' : 'none';
        visible += keep ? 1 : 0;
      });
      tokenNodes.forEach(function (t) {
        var mine = side && t.getAttribute('data-side') === side && Number(t.getAttribute('data-index')) === index;
        t.classList.toggle('lit', !!mine);
      });
      svg.setAttribute('data-focus', side ? side + index : '');
      svg.setAttribute('data-visible-lines', visible);
      // Beside each token of the other side: its weight, the mean over the heads drawn (lines under 0.01 are not
      // drawn, so a blank is below that).
      var other = side === 'q' ? 'data-k' : 'data-q', totals = {}, heads = {};
      if (side) {
        lineNodes.forEach(function (line) {
          if (line.style.display === 'none') return;
          var at = line.getAttribute(other);
          totals[at] = (totals[at] || 0) + Number(line.getAttribute('data-w'));
          heads[line.getAttribute('data-head')] = true;
        });
      }
      var drawn = Object.keys(heads).length;
      tokenNodes.forEach(function (t) {
        var total = side && t.getAttribute('data-side') !== side ? totals[t.getAttribute('data-index')] : undefined;
        t.readout.textContent = total === undefined ? '' : (total / drawn).toFixed(2);
      });
    }
    if (state.pinned) {
      tokenNodes.forEach(function (t) {
        if (t.getAttribute('data-side') === state.pinned[0] && Number(t.getAttribute('data-index')) === state.pinned[1]) {
          t.classList.add('pinned');
        }
      });
    }
    focus(state.pinned && state.pinned[0], state.pinned && state.pinned[1]);
  }

  // ---- model view ----
  // Every layer × head of a type as a small heatmap with its entropy; a click opens it large.
  function thumbnail(matrix, size) {
    var canvas = el('canvas', {width: size, height: size});
    var rows = matrix.length, cols = matrix[0].length, context = canvas.getContext('2d');
    for (var i = 0; i < rows; ++i) {
      for (var j = 0; j < cols; ++j) {
        context.fillStyle = heat(matrix[i][j]);
        context.fillRect(Math.floor(j * size / cols), Math.floor(i * size / rows),
                         Math.ceil(size / cols), Math.ceil(size / rows));
      }
    }
    return canvas;
  }
  function openLarge(map, head) {
    var body = clear(document.getElementById('modal-body'));
    var matrix = head < 0 ? meanMatrix([map], range(map.heads)) : map.weights[head];
    el('h3', {}, body, TYPE_TITLES[map.type] + ' · layer ' + map.layer + ' · ' +
       (head < 0 ? 'mean of heads' : 'head ' + head) + ' (' + map.kind + ')');
    el('p', {class: 'hint'}, body, 'Rows are queries, columns keys; entropy ' + entropy(matrix).toFixed(2) +
       ' nats. Point at a cell to read its weight.');
    body.appendChild(heatmapSvg(matrix, labels(map, 'q'), labels(map, 'k'), map.weights[0][0].length > 24 ? 12 : 26));
    var modal = document.getElementById('modal');
    modal.hidden = false;
    modal.setAttribute('data-open', map.type + '/' + map.layer + '/' + head);
  }
  function closeModal() {
    var modal = document.getElementById('modal');
    modal.hidden = true;
    modal.setAttribute('data-open', '');
  }
  function renderModel() {
    var root = clear(document.getElementById('view-model'));
    var controls = el('div', {class: 'controls'}, root);
    segmented(controls, 'attention', typeOptions(true), state.type, function (v) { state.type = v; renderModel(); });
    el('p', {class: 'hint'}, root, 'Every layer (rows) and head (columns); under each, its attention entropy in ' +
       'nats (0: every query reads one key; ln n: it reads all n alike). Click a picture to open it large.');
    (state.type === 'all' ? presentTypes() : [state.type]).forEach(function (type) {
      el('h3', {}, root, TYPE_TITLES[type] + ' (' + mapsOf(type)[0].kind + ')');
      var table = el('table', {class: 'grid'}, el('div', {class: 'scroll'}, root));
      var header = el('tr', {}, table);
      el('th', {}, header);
      range(mapsOf(type)[0].heads).forEach(function (h) { el('th', {}, header, 'head ' + h); });
      el('th', {}, header, 'mean');
      mapsOf(type).forEach(function (map) {
        var row = el('tr', {}, table);
        el('th', {class: 'rowhead'}, row, 'layer ' + map.layer);
        range(map.heads).concat([-1]).forEach(function (h) {
          var matrix = h < 0 ? meanMatrix([map], range(map.heads)) : map.weights[h];
          var figure = el('figure', {class: 'thumb', 'data-thumb': map.type + '/' + map.layer + '/' + h}, el('td', {}, row));
          figure.appendChild(thumbnail(matrix, 84));
          el('figcaption', {}, figure, 'H = ' + entropy(matrix).toFixed(2));
          figure.addEventListener('click', function () { openLarge(map, h); });
        });
      });
    });
  }

  // ---- matrix view ----
  // Today's heatmaps, every map and head, with the mean over heads (last column) and over layers (last row).
  function renderMatrix() {
    var root = clear(document.getElementById('view-matrix'));
    el('p', {class: 'hint'}, root, 'Rows are queries, columns keys; a cell\u2019s colour is the weight (white 0, ' +
       'dark blue 1) and each row sums to 1 (local_p\u2019s to less: its Gaussian is not renormalised; hard attention\u2019s ' +
       'rows, at argmax, a single 1 at the chosen key). The last column is the mean of the heads, the last row the mean of ' +
       'the layers. Point at a cell to read its query, key and weight.');
    var pictures = 0;
    presentTypes().forEach(function (type) {
      var maps = mapsOf(type), heads = maps[0].heads;
      var cell = maps[0].weights[0][0].length > 24 ? 8 : 16;
      el('h3', {}, root, TYPE_TITLES[type] + ' (' + maps[0].kind + ')');
      var table = el('table', {class: 'grid'}, el('div', {class: 'scroll'}, root));
      var header = el('tr', {}, table);
      el('th', {}, header);
      range(heads).forEach(function (h) { el('th', {}, header, 'head ' + h); });
      el('th', {}, header, 'mean of heads');
      maps.forEach(function (map) {
        var row = el('tr', {}, table);
        el('th', {class: 'rowhead'}, row, 'layer ' + map.layer);
        var index = data.maps.indexOf(map);
        range(heads).forEach(function (h) {
          el('td', {}, row).appendChild(heatmapSvg(map.weights[h], labels(map, 'q'), labels(map, 'k'), cell, index + '/' + h));
          pictures += 1;
        });
        el('td', {}, row).appendChild(heatmapSvg(meanMatrix([map], range(heads)), labels(map, 'q'), labels(map, 'k'), cell));
      });
      if (maps.length > 1) {
        var row = el('tr', {}, table);
        el('th', {class: 'rowhead'}, row, 'mean of layers');
        range(heads).concat([-1]).forEach(function (h) {
          el('td', {}, row).appendChild(heatmapSvg(meanMatrix(maps, h < 0 ? range(heads) : [h]), labels(maps[0], 'q'),
                                                   labels(maps[0], 'k'), cell));
        });
      }
    });
    document.body.setAttribute('data-maps-ready', String(pictures));
  }

  // ---- neuron view ----
  // For one query and every key, the numbers that made the weight, stage by stage as the kind computes them.
  var EQUATIONS = {
    scaled_dot: 'score_ij = (q_i · k_j) × 1/√d_k    then + mask (−∞ hides a key)    weight_ij = softmax_j(score_ij)',
    simplified: 'q = x, k = m (no projections)    score_ij = (q_i · k_j) × 1/√d_k + mask    weight = softmax_j',
    sagan: 'q, k of d/8 features, one head    score_ij = q_i · k_j (× 1/√(d/8) when scale) + mask    ' +
           'weight = softmax_j;  out_i = γ · Σ_j weight_ij v_j',
    additive: 'score_ij = wᵀ tanh(q_i + k_j) + mask    weight_ij = softmax_j(score_ij)    (Bahdanau 2015)',
    linear: 'weight_ij = φ(q_i) · φ(k_j) / Σ_j\u2032 φ(q_i) · φ(k_j\u2032),   φ = elu + 1    (the map linear attention implies)',
    external: 'z_is = q_i · M_k[s]    ã_is = softmax over the TOKENS i of z_is (the slot\u2019s column)    ' +
              'a_is = ã_is / Σ_s\u2032 ã_is\u2032 (the token\u2019s row over slots)',
    local_m: 'centre p_i = min(i, S_i) (the query\u2019s own position, at most the last key S_i it may see)    ' +
             'window: the keys j with |j − p_i| ≤ D\nscore_ij = (q_i · k_j) × 1/√d_k, −∞ outside the window or ' +
             'where the mask hides the key    weight_ij = softmax_j(score_ij)    (Luong et al. 2015, local-m)',
    local_p: 'centre p_i = S_i · σ(v_pᵀ tanh(W_p x_i)) (predicted by the query)    window: the keys j with |j − p_i| ≤ D\n' +
             'weight_ij = softmax_j(score_ij over the window) × exp(−(j − p_i)² / 2σ²),  σ = D/2    ' +
             '(Luong et al. 2015, local-p; a row is not renormalised: it sums to less than 1)',
    hard: 'a_ij = softmax_j((q_i · k_j) × 1/√d_k + mask), the distribution over keys\nargmax: the one key ' +
          's_i = argmax_j a_ij, weight_ij = 1 there and 0 elsewhere;  expectation: weight_ij = a_ij    ' +
          '(while training s_i is sampled from a_i·: Xu et al. 2015)'
  };
  function hiddenReason(map, i, j, h) {
    if (map.window && (j < i - map.window[0] || j > i + map.window[1])) return 'outside the window';
    if (map.local && Math.abs(j - map.neuron.centre[h][i]) > map.local.width) return 'outside the window';
    if (map.type === 'decoder_self' && j > i) return 'a later position';
    return 'padding';
  }
  // One row of the table: [stage name, value, from the model?] cells.
  function numberCell(row, stage, key, value, digits) {
    el('td', {'data-stage': stage, 'data-key': key, 'data-value': value === null ? '-inf' : String(value)}, row,
       fmt(value, digits));
  }
  // e^(s_j − max) / Σ e^(s − max) over the keys the mask let through (null: hidden, weight 0).
  function softmaxOf(scores) {
    var finite = scores.filter(function (s) { return s !== null; });
    var largest = Math.max.apply(null, finite), total = sum(finite.map(function (s) { return Math.exp(s - largest); }));
    return scores.map(function (s) { return s === null ? 0 : Math.exp(s - largest) / total; });
  }
  // The columns every q·k kind shares: q · k (computed), × scale (computed), + mask (the model's), softmax (computed).
  function dotCells(row, map, h, i, j, softmaxRow) {
    var dot = sum(product(map.neuron.q[h][i], map.neuron.k[h][j]));
    numberCell(row, 'qk', j, dot);
    numberCell(row, 'scaled', j, dot * map.score_scale);
    numberCell(row, 'scores', j, map.neuron.scores[h][i][j]);
    numberCell(row, 'softmax', j, softmaxRow[j]);
  }
  function dotHeads(map) {
    return ['q · k', '× ' + fmt(map.score_scale, 4) + ' = scaled', '+ mask (model)', 'softmax of those'];
  }
  // A key's first cell: its token, why it is hidden, and a mark (the local kinds' centre, hard's chosen key).
  function keyRow(body, map, h, i, j, label, mark) {
    var hidden = map.neuron.scores && map.neuron.scores[h][i][j] === null;
    var row = el('tr', {class: 'key' + (hidden ? ' hidden' : '') + (mark ? ' ' + mark[0] : '')}, body);
    var first = el('td', {}, row, label);
    if (hidden) el('span', {class: 'why'}, first, hiddenReason(map, i, j, h));
    if (mark) el('span', {class: 'mark'}, first, mark[1]);
    return row;
  }
  // The line above the table of a local kind (its centre and window) or of hard attention (its chosen key).
  function kindLine(root, map, h, i, keys) {
    var stages = map.neuron;
    if (map.local) {
      var p = stages.centre[h][i], D = map.local.width, seen = stages.window[h][i];
      el('p', {class: 'kindline', id: 'neuron-kind-line', 'data-centre': p, 'data-first': seen[0], 'data-last': seen[1]},
         root, 'centre p_i = ' + fmt(p) + ' (model) · window [p_i − ' + D + ', p_i + ' + D + '] = [' + fmt(p - D, 2) +
         ', ' + fmt(p + D, 2) + '] · keys the softmax saw: ' + (seen[0] === null ? 'none'
         : '\u201c' + keys[seen[0]] + '\u201d (' + seen[0] + ') … \u201c' + keys[seen[1]] + '\u201d (' + seen[1] + ')') +
         (map.local.sigma ? ' · σ = D/2 = ' + map.local.sigma : ' · no Gaussian (local-m)'));
    } else if (map.kind === 'hard') {
      var s = stages.chosen_key[h][i];
      el('p', {class: 'kindline', id: 'neuron-kind-line', 'data-chosen': s === null ? '' : s}, root,
         s === null ? 'hard_eval: ' + map.hard_eval + ' — no single key: the weights are the distribution a itself'
                    : 'chosen key: \u201c' + keys[s] + '\u201d (' + s + '), a = ' + fmt(stages.distribution[h][i][s]) +
                      ', the argmax of the distribution (hard_eval: ' + map.hard_eval + '); its value is the output');
    }
  }
  function vectorStrip(parent, name, vector, note) {
    var line = el('div', {class: 'vec'}, parent);
    el('span', {class: 'name'}, line, name);
    var largest = Math.max.apply(null, vector.map(Math.abs).concat([1e-12]));
    var cells = el('span', {class: 'cells'}, line);
    vector.forEach(function (x, f) {
      el('span', {style: 'background:' + diverging(x, largest), title: name + '[' + f + '] = ' + fmt(x)}, cells);
    });
    if (note) el('span', {class: 'sum'}, line, note);
  }
  function renderNeuron() {
    var root = clear(document.getElementById('view-neuron'));
    var n = state.neuron;
    if (presentTypes().indexOf(n.type) < 0) n.type = presentTypes()[0];
    var maps = mapsOf(n.type);
    if (n.layer >= maps.length) n.layer = 0;
    var map = mapAt(n.type, n.layer);
    if (n.head >= map.heads) n.head = 0;
    var queries = labels(map, 'q'), keys = labels(map, 'k');
    if (n.query >= queries.length) n.query = 0;
    var controls = el('div', {class: 'controls'}, root);
    segmented(controls, 'attention', typeOptions(false), n.type, function (v) { n.type = v; n.key = null; renderNeuron(); });
    selector(controls, 'layer', maps.map(function (m) { return [m.layer, 'layer ' + m.layer]; }), n.layer,
             function (v) { n.layer = Number(v); n.key = null; renderNeuron(); }, 'neuron-layer');
    selector(controls, 'head', range(map.heads).map(function (h) { return [h, 'head ' + h]; }), n.head,
             function (v) { n.head = Number(v); n.key = null; renderNeuron(); }, 'neuron-head');
    el('div', {class: 'equation'}, root, map.kind + ':  ' + (EQUATIONS[map.kind] || 'softmax over keys') +
       (map.window ? '\nwindow [' + map.window[0] + ', ' + map.window[1] + ']: query i sees keys i − ' + map.window[0] +
                     ' … i + ' + map.window[1] + ' only' : ''));
    var chooser = el('div', {class: 'queries'}, root);
    el('span', {class: 'label'}, chooser, 'query ');
    queries.forEach(function (q, i) {
      var b = el('button', {type: 'button', class: i === n.query ? 'on' : '', 'data-query': i}, chooser, q);
      b.addEventListener('click', function () { n.query = i; n.key = null; renderNeuron(); });
    });
    var h = n.head, i = n.query, stages = map.neuron || {}, weights = map.weights[h][i];
    if (!stages.q) { el('p', {class: 'empty'}, root, 'This map was recorded without its stages.'); return; }
    kindLine(root, map, h, i, keys);
    // The chosen key: the clicked one, else the one the query reads most.
    var key = n.key !== null && n.key < keys.length ? n.key : weights.indexOf(Math.max.apply(null, weights));
    var table = el('table', {class: 'numbers', id: 'neuron-table', 'data-kind': map.kind, 'data-map': data.maps.indexOf(map),
                             'data-head': h, 'data-query': i}, el('div', {class: 'scroll'}, root));
    var header = el('tr', {}, el('thead', {}, table));
    var body = el('tbody', {}, table);
    function head(names) { names.forEach(function (name) { el('th', {}, header, name); }); }
    var rows = [];
    if (map.kind === 'scaled_dot' || map.kind === 'simplified' || map.kind === 'sagan') {
      head(['key'].concat(dotHeads(map), ['weight (model)', '']));
      var soft = softmaxOf(stages.scores[h][i]);
      keys.forEach(function (label, j) {
        var row = keyRow(body, map, h, i, j, label);
        rows.push(row);
        dotCells(row, map, h, i, j, soft);
        numberCell(row, 'weight', j, weights[j]);
      });
    } else if (map.kind === 'local_m' || map.kind === 'local_p') {
      // The window's band: keys outside [p_i − D, p_i + D] greyed; the key nearest the centre marked.
      var predictive = map.kind === 'local_p', centre = stages.centre[h][i], softL = softmaxOf(stages.scores[h][i]);
      head(['key', 'j − p_i'].concat(dotHeads(map), predictive ? ['softmax (model)', 'Gaussian (model)',
                                                                  'softmax × Gaussian'] : [], ['weight (model)', '']));
      keys.forEach(function (label, j) {
        var row = keyRow(body, map, h, i, j, label, j === Math.round(centre) ? ['centre', '◆ p_i'] : null);
        rows.push(row);
        numberCell(row, 'distance', j, j - centre);
        dotCells(row, map, h, i, j, softL);
        if (predictive) {
          numberCell(row, 'softmax_model', j, stages.softmax[h][i][j]);
          numberCell(row, 'gaussian', j, stages.gaussian[h][i][j]);
          numberCell(row, 'product', j, softL[j] * stages.gaussian[h][i][j]);
        }
        numberCell(row, 'weight', j, weights[j]);
      });
    } else if (map.kind === 'hard') {
      head(['key'].concat(dotHeads(map), ['a (model)', 'weight (model)', '']));
      var softH = softmaxOf(stages.scores[h][i]), picked = stages.chosen_key[h][i];
      keys.forEach(function (label, j) {
        var row = keyRow(body, map, h, i, j, label, j === picked ? ['picked', '● chosen'] : null);
        rows.push(row);
        dotCells(row, map, h, i, j, softH);
        numberCell(row, 'distribution', j, stages.distribution[h][i][j]);
        numberCell(row, 'weight', j, weights[j]);
      });
    } else if (map.kind === 'additive') {
      head(['key', 'wᵀ tanh(q + k)', '+ mask (model)', 'softmax of those', 'weight (model)', '']);
      var softA = softmaxOf(stages.scores[h][i]);
      keys.forEach(function (label, j) {
        var row = keyRow(body, map, h, i, j, label);
        rows.push(row);
        numberCell(row, 'tanh_score', j, sum(product(stages.w[h], stages.tanh[h][i][j])));
        numberCell(row, 'scores', j, stages.scores[h][i][j]);
        numberCell(row, 'softmax', j, softA[j]);
        numberCell(row, 'weight', j, weights[j]);
      });
    } else if (map.kind === 'linear') {
      head(['key', 'φ(q) · φ(k)', '÷ Σ over keys seen', 'weight (model)', '']);
      var sims = keys.map(function (label, j) {
        var seen = !(map.type === 'decoder_self' && j > i);
        return seen ? sum(product(stages.phi_q[h][i], stages.phi_k[h][j])) : null;
      });
      var totalL = sum(sims.filter(function (s) { return s !== null; }));
      keys.forEach(function (label, j) {
        var row = el('tr', {class: 'key' + (sims[j] === null ? ' hidden' : '')}, body);
        rows.push(row);
        var first = el('td', {}, row, label);
        if (sims[j] === null) el('span', {class: 'why'}, first, hiddenReason(map, i, j, h));
        numberCell(row, 'phi', j, sims[j] === null ? 0 : sims[j]);
        numberCell(row, 'ratio', j, sims[j] === null ? 0 : sims[j] / totalL);
        numberCell(row, 'weight', j, weights[j]);
      });
    } else if (map.kind === 'external') {
      head(['slot', 'z = q · M_k[s] (model)', 'ã: softmax over tokens (model)', 'ã / Σ_s ã', 'weight (model)', '']);
      var tilde = stages.token_softmax[h][i], totalE = sum(tilde);
      keys.forEach(function (label, s) {
        var row = el('tr', {class: 'key'}, body);
        rows.push(row);
        el('td', {}, row, label);
        numberCell(row, 'scores', s, stages.scores[h][i][s]);
        numberCell(row, 'token_softmax', s, tilde[s]);
        numberCell(row, 'normalised', s, tilde[s] / (totalE + 1e-9));
        numberCell(row, 'weight', s, weights[s]);
      });
    }
    rows.forEach(function (row, j) {
      el('div', {style: 'width:' + (100 * weights[j]).toFixed(1) + '%'}, el('td', {class: 'bar'}, row));
      row.classList.toggle('chosen', j === key);
      row.addEventListener('click', function () { n.key = j; renderNeuron(); });
    });
    if (map.kind === 'sagan' && stages.gamma) {
      el('p', {class: 'hint'}, root, 'γ = ' + fmt(stages.gamma[0]) + ': this layer adds γ · Σ_j weight_ij v_j to ' +
         'its input (γ starts at 0, so the gate shows how much attention the layer learned to use).');
    }
    // The vectors behind the chosen key's score, feature by feature (red > 0, blue < 0, white 0).
    var vectors = el('div', {class: 'vectors'}, root);
    el('h3', {}, vectors, 'query \u201c' + queries[i] + '\u201d and key \u201c' + keys[key] + '\u201d, feature by feature');
    var q = stages.q[h][i];
    if (map.kind === 'external') {
      var m = stages.memory_k[key];
      vectorStrip(vectors, 'q', q);
      vectorStrip(vectors, 'M_k[' + key + ']', m);
      vectorStrip(vectors, 'q ⊙ M_k[' + key + ']', product(q, m), 'Σ = ' + fmt(sum(product(q, m))) + ' = z');
    } else if (map.kind === 'additive') {
      var k = stages.k[h][key], t = stages.tanh[h][i][key];
      vectorStrip(vectors, 'q', q);
      vectorStrip(vectors, 'k', k);
      vectorStrip(vectors, 'tanh(q + k)', t);
      vectorStrip(vectors, 'w', stages.w[h]);
      vectorStrip(vectors, 'w ⊙ tanh(q + k)', product(stages.w[h], t), 'Σ = ' + fmt(sum(product(stages.w[h], t))));
    } else if (map.kind === 'linear') {
      vectorStrip(vectors, 'q', q);
      vectorStrip(vectors, 'k', stages.k[h][key]);
      vectorStrip(vectors, 'φ(q)', stages.phi_q[h][i]);
      vectorStrip(vectors, 'φ(k)', stages.phi_k[h][key]);
      var pp = product(stages.phi_q[h][i], stages.phi_k[h][key]);
      vectorStrip(vectors, 'φ(q) ⊙ φ(k)', pp, 'Σ = ' + fmt(sum(pp)));
    } else {
      var kk = stages.k[h][key], qk = product(q, kk);
      vectorStrip(vectors, 'q', q);
      vectorStrip(vectors, 'k', kk);
      vectorStrip(vectors, 'q ⊙ k', qk, 'Σ = q · k = ' + fmt(sum(qk)));
    }
  }

  // ---- decoding view ----
  // The translation token by token: at step t the decoder reads target_input[t] and predicts target_output[t].
  function renderDecoding() {
    var root = clear(document.getElementById('view-decoding'));
    var steps = data.decoding ? data.decoding.steps : [];
    if (!steps.length) { el('p', {class: 'empty'}, root, 'No decoding steps recorded.'); return; }
    var t = state.step = Math.max(0, Math.min(steps.length - 1, state.step));
    var controls = el('div', {class: 'controls'}, root);
    var previous = el('button', {type: 'button', class: 'chip', id: 'step-back'}, controls, '◀ back');
    var slider = el('input', {type: 'range', min: 0, max: steps.length - 1, value: t, id: 'step-slider'}, controls);
    var next = el('button', {type: 'button', class: 'chip', id: 'step-next'}, controls, 'next ▶');
    el('span', {class: 'meta'}, controls, 'step ' + (t + 1) + ' of ' + steps.length + ' (← → keys)');
    previous.addEventListener('click', function () { state.step -= 1; renderDecoding(); });
    next.addEventListener('click', function () { state.step += 1; renderDecoding(); });
    slider.addEventListener('input', function () { state.step = Number(slider.value); renderDecoding(); });
    var line = el('div', {class: 'steps'}, root);
    data.tokens.target_output.forEach(function (token, s) {
      el('code', {class: 'tok ' + (s < t ? 'done' : s === t ? 'now' : 'later')}, line, token);
    });
    var step = steps[t];
    el('p', {class: 'hint'}, root, 'Step ' + (t + 1) + ': the decoder reads \u201c' + step.reads + '\u201d and the ' +
       'tokens before it, looks at the source through cross-attention, and the translation continues with \u201c' +
       step.chosen + '\u201d (p = ' + step.p.toFixed(3) + ').');
    var panels = el('div', {class: 'panels'}, root);

    var cross = mapsOf('cross');
    if (cross.length) {
      var panel = el('div', {class: 'panel'}, panels);
      el('h4', {}, panel, 'cross-attention of this step');
      var table = el('table', {class: 'row', id: 'decode-row'}, el('div', {class: 'scroll'}, panel));
      var header = el('tr', {}, el('thead', {}, table));
      el('th', {}, header);
      labels(cross[0], 'k').forEach(function (token) { el('th', {}, header, token); });
      var body = el('tbody', {}, table);
      cross.forEach(function (map) {
        range(map.heads).concat([-1]).forEach(function (h) {
          var weights = h < 0 ? meanMatrix([map], range(map.heads))[t] : map.weights[h][t];
          var row = el('tr', {'data-layer': map.layer, 'data-head': h}, body);
          el('th', {}, row, 'layer ' + map.layer + (h < 0 ? ' · mean' : ' · head ' + h));
          weights.forEach(function (w) {
            el('td', {class: 'w', style: 'background:' + heat(w) + ';color:' + (w > 0.55 ? '#fff' : '#1d2430'),
                      'data-w': w}, row, w.toFixed(2));
          });
        });
      });
    }
    var top = el('div', {class: 'panel top5'}, panels);
    el('h4', {}, top, 'five likeliest next tokens');
    step.likeliest.forEach(function (choice) {
      var item = el('div', {class: 'item' + (choice.token === step.chosen ? ' chosen' : '')}, top);
      el('span', {class: 'tokname'}, item, choice.token);
      el('div', {class: 'fill', style: 'width:' + (100 * choice.p).toFixed(1) + '%'}, el('div', {class: 'track'}, item));
      el('span', {class: 'p'}, item, choice.p.toFixed(4));
    });
    var beamSteps = data.decoding.beam_steps || [];
    if (data.decoding.beam > 1 && beamSteps.length) {
      var beam = el('div', {class: 'panel'}, panels);
      el('h4', {}, beam, 'beam search, step ' + (t + 1) + ' (k = ' + data.decoding.beam + ', α = ' +
         data.decoding.length_penalty + ')');
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
    document.body.setAttribute('data-step', String(t));
  }

  // ---- compare view ----
  // The same sentence through two runs (say scaled_dot and linear): translations, and per type and layer the
  // mean of the heads with its entropy, side by side.
  function renderCompare() {
    var root = clear(document.getElementById('view-compare'));
    if (!compared) {
      el('p', {class: 'empty'}, root, config.mode === 'serve' && config.runs.length > 1
         ? 'Choose a run under “compare with” and translate again.'
         : 'Write the page with a second run (attnlab attention --run A --compare B …), or serve two runs ' +
           '(attnlab serve --run A --run B), to compare them on one sentence.');
      return;
    }
    var first = config.mode === 'serve' ? config.runs[Number(document.getElementById('ask-run').value)]
                                        : config.compared_runs[0];
    var sides = [{name: first, data: data}, {name: compared.name, data: compared.data}];
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
        el('th', {class: 'rowhead'}, row, TYPE_TITLES[type] + ' · layer ' + layer + ' · mean of heads');
        sides.forEach(function (side) {
          var cell = el('td', {}, row);
          var map = side.data.maps.filter(function (m) { return m.type === type && m.layer === layer; })[0];
          if (!map) { el('span', {class: 'meta'}, cell, '(no such layer)'); return; }
          var matrix = meanMatrix([map], range(map.heads));
          var cellSize = map.weights[0][0].length > 24 ? 8 : 16;
          cell.appendChild(heatmapSvg(matrix, labels(map, 'q', side.data), labels(map, 'k', side.data), cellSize));
          el('div', {class: 'meta'}, cell, map.kind + ' · H = ' + entropy(matrix).toFixed(2) + ' nats');
        });
      });
    });
  }

  // ---- putting it together ----
  // The flow view lives in flow.js (window.attnlabFlowView); it draws with these helpers.
  function renderFlow() {
    var root = clear(document.getElementById('view-flow'));
    window.attnlabFlowView({data: data, state: state, el: el, heat: heat, diverging: diverging, fmt: fmt, sum: sum,
                            range: range, largest: largest, serve: config.mode === 'serve', legend: legend, labels: labels, heatmapSvg: heatmapSvg,
                            segmented: segmented, selector: selector, typeOptions: typeOptions,
                            rerender: renderFlow}, root);
  }
  var VIEWS = {head: renderHead, model: renderModel, matrix: renderMatrix, neuron: renderNeuron, decoding: renderDecoding,
               flow: renderFlow, compare: renderCompare};
  function renderAll() {
    renderSentence();
    Object.keys(VIEWS).forEach(function (view) {
      var root = clear(document.getElementById('view-' + view));
      if (data) VIEWS[view](); else el('p', {class: 'empty'}, root, 'Nothing to show yet.');
    });
    showView(state.view);
    renders += 1;
    document.body.setAttribute('data-renders', String(renders));
    document.body.setAttribute('data-explorer-ready', data ? '1' : '0');
  }
  document.querySelectorAll('#tabs button').forEach(function (button) {
    button.addEventListener('click', function () { showView(button.getAttribute('data-view')); });
  });
  document.querySelector('#modal .close').addEventListener('click', closeModal);
  document.getElementById('modal').addEventListener('click', function (event) {
    if (event.target.id === 'modal') closeModal();
  });
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape') closeModal();
    if (state.view === 'decoding' && data && event.target.tagName !== 'INPUT') {
      if (event.key === 'ArrowRight') { state.step += 1; renderDecoding(); }
      if (event.key === 'ArrowLeft') { state.step -= 1; renderDecoding(); }
    }
  });

  // Served by `attnlab serve`: a form asks the server for a sentence's data and the views are drawn again.
  if (config.mode === 'serve') {
    var form = document.getElementById('ask'), status = document.getElementById('ask-status');
    var runSelect = document.getElementById('ask-run'), compareSelect = document.getElementById('ask-compare');
    form.hidden = false;
    config.runs.forEach(function (run, r) {
      el('option', {value: r}, runSelect, run);
      el('option', {value: r}, compareSelect, run);
    });
    // One sentence through one run: a promise of its attention.json, or an error with the server's message.
    var ask = function (run) {
      return fetch('api/translate', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                     body: JSON.stringify({run: run, text: document.getElementById('ask-text').value,
                                                           beam: Number(document.getElementById('ask-beam').value),
                                                           ig_steps: Number(document.getElementById('ask-ig').value)})})
        .then(function (response) {
          return response.json().then(function (answer) {
            if (!response.ok) throw new Error(answer.error || 'the server said no');
            return answer;
          });
        });
    };
    // Every request has a number; an answer is drawn only when it answers the newest request, so a slow answer
    // to an older sentence can never replace a newer one. While a request runs the button says so.
    var requests = 0, button = form.querySelector('button[type=submit]');
    var busy = function (on) {
      button.setAttribute('aria-busy', on ? 'true' : 'false');
      button.textContent = on ? 'Translating…' : 'Translate';
      form.setAttribute('data-busy', on ? '1' : '0');
    };
    var dropped = function (why) {                                // counted, for the browser test
      document.body.setAttribute('data-dropped', String(Number(document.body.getAttribute('data-dropped') || 0) + 1));
      document.body.setAttribute('data-dropped-why', why || 'answered');
    };
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var request = ++requests;
      busy(true);
      status.textContent = 'translating…';
      status.setAttribute('data-state', 'busy');
      var other = compareSelect.value === '' ? null : Number(compareSelect.value);
      var started = performance.now();
      Promise.all([ask(Number(runSelect.value)), other === null ? null : ask(other)])
        .then(function (answers) {
          if (request !== requests) return dropped();             // a newer request was sent meanwhile
          busy(false);
          data = answers[0];
          compared = other === null ? null : {name: config.runs[other], data: answers[1]};
          state.step = 0;
          state.pinned = null;
          state.neuron.query = 0;
          state.neuron.key = null;
          renderAll();
          status.textContent = config.runs[Number(runSelect.value)] + ': ' + data.target + ' (' +
                               ((performance.now() - started) / 1000).toFixed(2) + ' s)';
          status.setAttribute('data-state', 'done');
          document.body.setAttribute('data-shown-text', data.source);
        })
        .catch(function (error) {
          if (request !== requests) return dropped(error.message);
          busy(false);
          status.textContent = error.message;
          status.setAttribute('data-state', 'error');
        });
    });
  }
  renderAll();
})();
