// common.js — what every view of the explorer shares: the page's data, drawing helpers, colour legends, and the
// keyboard and ARIA wiring every interactive element gets. The views (maps.js, neuron.js, steps.js, flow.js,
// cloze.js) add themselves to window.attnlabExplorer.views; explorer.js, last, puts the page together.
//
// The data is attention.json (its schema is written at attention_json(), src/inspect/maps/attention_json.cpp):
//   data.tokens.{source, source_typed, source_unknown, target_input, target_output}
//   data.maps[m] = {type, layer, kind, heads, queries, keys, weights[head][query][key], score_scale, window,
//                   local, hard_eval, neuron: {…}, value_norms}
//   data.decoding = {beam, length_penalty, steps[t] = {reads, chosen, p, likeliest}, beam_steps[t][c]}
// or, for a cloze reader, cloze.json (task "cloze": document, query, alpha, beta, beta_mean, s, answers).
// Every number on the page is either one of those or computed here from them in plain sight.
// Plain DOM and SVG, no library: the page must work opened from disk with no network.
(function () {
  'use strict';
  var X = window.attnlabExplorer = {views: {}, order: []};
  X.config = JSON.parse(document.getElementById('explorer-config').textContent);
  X.data = JSON.parse(document.getElementById('explorer-data').textContent);
  var SVG = 'http://www.w3.org/2000/svg';
  var HEAD_COLOURS = ['#2563eb', '#ea580c', '#16a34a', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d',
                      '#a16207', '#4b5563', '#0d9488', '#9333ea', '#e11d48', '#0284c7', '#ca8a04', '#475569'];
  X.TYPES = [['encoder_self', 'encoder self'], ['decoder_self', 'decoder self'], ['cross', 'cross'],
             ['all', 'all three']];
  X.TYPE_TITLES = {encoder_self: 'encoder self-attention', decoder_self: 'decoder self-attention',
                   cross: 'cross-attention'};

  // ---- small helpers ----
  X.el = function (tag, attrs, parent, text) {
    var isSvg = ['svg', 'line', 'rect', 'text', 'g', 'title', 'path'].indexOf(tag) >= 0;
    var node = isSvg ? document.createElementNS(SVG, tag) : document.createElement(tag);
    for (var name in (attrs || {})) {
      if (attrs[name] !== null && attrs[name] !== undefined) node.setAttribute(name, attrs[name]);
    }
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  };
  var el = X.el;
  X.clear = function (node) { while (node.firstChild) node.removeChild(node.firstChild); return node; };
  X.range = function (n) { var out = []; for (var i = 0; i < n; ++i) out.push(i); return out; };
  X.fmt = function (x, digits) {
    if (x === null || x === undefined) return '−∞';
    if (!isFinite(x)) return x > 0 ? '∞' : '−∞';
    return x.toFixed(digits === undefined ? 4 : digits).replace('-', '−');
  };
  X.sum = function (values) { var s = 0; for (var i = 0; i < values.length; ++i) s += values[i]; return s; };
  X.product = function (a, b) { return a.map(function (x, i) { return x * b[i]; }); };
  // ColorBrewer "Blues", the same five stops as the SVG files (src/inspect/pages/svg.cpp, heat_colour).
  var BLUES = [[247, 251, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]];
  X.heat = function (w) {
    w = Math.max(0, Math.min(1, isFinite(w) ? w : 0));
    var at = w * (BLUES.length - 1), lower = Math.min(Math.floor(at), BLUES.length - 2), f = at - lower;
    var c = BLUES[lower].map(function (v, k) { return Math.round(v + f * (BLUES[lower + 1][k] - v)); });
    return 'rgb(' + c.join(',') + ')';
  };
  // Blue for negative, red for positive, white for 0: the colour of one feature of a vector.
  X.diverging = function (x, largest) {
    var t = largest > 0 ? Math.max(-1, Math.min(1, x / largest)) : 0;
    var a = Math.round(255 * (1 - Math.abs(t)));
    return t >= 0 ? 'rgb(255,' + a + ',' + a + ')' : 'rgb(' + a + ',' + a + ',255)';
  };
  X.headColour = function (h) { return HEAD_COLOURS[h % HEAD_COLOURS.length]; };
  X.largest = function (values) {
    var flat = [].concat.apply([], values.map(function (v) { return Array.isArray(v) ? v : [v]; }));
    return flat.reduce(function (m, x) { return isFinite(x) && x > m ? x : m; }, 0);
  };
  // A colour legend: a bar from the colour of 0 (or −max) to the colour of max, its ends and its middle numbered.
  X.legend = function (parent, kind, max, what) {
    var box = el('div', {class: 'legend', role: 'img', 'aria-label': 'colour legend: ' + what}, parent);
    var svg = el('svg', {width: 260, height: 30, viewBox: '0 0 260 30'}, box);
    for (var k = 0; k < 52; ++k) {
      var x = k / 51;
      el('rect', {x: 5 + k * 5, y: 2, width: 5, height: 12,
                  fill: kind === 'diverging' ? X.diverging((2 * x - 1) * max, max) : X.heat(x)}, svg);
    }
    var low = kind === 'diverging' ? -max : 0, mid = kind === 'diverging' ? 0 : max / 2;
    [[5, low, 'start'], [135, mid, 'middle'], [265 - 5, max, 'end']].forEach(function (tick) {
      el('text', {x: tick[0], y: 27, 'font-size': 10, 'text-anchor': tick[2]}, svg, X.fmt(tick[1], 3));
    });
    el('span', {class: 'meta'}, box, what);
    return box;
  };
  // The head view's legend: a colour per head, and a line's opacity from weight 0 to 1.
  X.headLegend = function (parent, heads) {
    var box = el('div', {class: 'legend', role: 'img', 'aria-label': 'colour legend: a colour per head, ' +
                         'a line\u2019s opacity is its weight'}, parent);
    var svg = el('svg', {width: 40 + 34 * heads + 150, height: 22}, box);
    X.range(heads).forEach(function (h) {
      el('rect', {x: 4 + 34 * h, y: 4, width: 12, height: 12, fill: X.headColour(h)}, svg);
      el('text', {x: 19 + 34 * h, y: 14, 'font-size': 10}, svg, 'h' + h);
    });
    var x0 = 10 + 34 * heads;
    [0.1, 0.3, 0.6, 1].forEach(function (w, k) {
      el('line', {x1: x0 + 30 * k, y1: 10, x2: x0 + 30 * k + 24, y2: 10, stroke: '#1d2430', 'stroke-width': 3,
                  'stroke-opacity': w}, svg);
    });
    el('span', {class: 'meta'}, box, 'colour: head (dark: the mean of heads) · opacity: weight 0.1, 0.3, 0.6, 1');
    return box;
  };
  X.hint = function (parent, text, id) { return el('p', {class: 'hint', id: id}, parent, text); };

  // ---- the data ----
  X.mapsOf = function (type) {
    return X.data.maps.filter(function (m) { return m.type === type; })
                      .sort(function (a, b) { return a.layer - b.layer; });
  };
  X.mapAt = function (type, layer) { return X.mapsOf(type).filter(function (m) { return m.layer === layer; })[0]; };
  X.presentTypes = function () {
    return ['encoder_self', 'decoder_self', 'cross'].filter(function (t) { return X.mapsOf(t).length; });
  };
  // Source tokens as the user typed them: an unknown word shows as typed, followed by "?" (the model read <unk>).
  X.sourceLabels = function (from) {
    var tokens = from.tokens, typed = tokens.source_typed, unknown = tokens.source_unknown;
    if (!typed || !unknown) return tokens.source;
    return typed.map(function (t, s) { return unknown[s] ? t + '?' : tokens.source[s]; });
  };
  // The tokens that label a map's rows (side 'q') or columns ('k'); `from` is the data the map came from. One rule
  // everywhere: a decoder position (the rows of decoder self- and cross-attention) is named by the token it
  // predicts (target_output), a decoder key by the token it reads (target_input).
  X.labels = function (map, side, from) {
    from = from || X.data;
    var what = side === 'q' ? (map.type === 'encoder_self' ? 'source' : 'target_output') : map.keys;
    if (what === 'slots') return X.range(map.weights[0][0].length).map(function (s) { return 'slot ' + s; });
    return what === 'source' ? X.sourceLabels(from) : from.tokens[what];
  };
  var AXIS_TEXT = {
    encoder_self: ['the source tokens (queries)', 'the source tokens (keys)'],
    decoder_self: ['each decoder position, named by the token it predicts', 'the target tokens it may read ' +
                   '(<s> first; a position reads the tokens before the one it predicts)'],
    cross: ['each decoder position, named by the token it predicts', 'the source tokens']
  };
  // What a map's rows and columns are, in words: the same sentence in every view.
  X.axisText = function (type, slots) {
    var axes = AXIS_TEXT[type];
    return 'Rows: ' + axes[0] + '; columns: ' + (slots ? 'the learned memory slots' : axes[1]) + '.';
  };
  X.unknownNote = function (parent, from) {
    var unknown = ((from || X.data).tokens.source_unknown || []).filter(Boolean).length;
    if (unknown) {
      el('p', {class: 'hint unknown-note'}, parent, 'A word followed by “?” is not in the vocabulary: it is shown as ' +
         'typed, but the model read it as <unk> (' + unknown + ' in this sentence).');
    }
  };
  // The mean of the given heads of the given maps (maps of one type: same shape), [queries][keys].
  X.meanMatrix = function (maps, heads) {
    var rows = maps[0].weights[0].length, cols = maps[0].weights[0][0].length, n = 0;
    var out = X.range(rows).map(function () { return X.range(cols).map(function () { return 0; }); });
    maps.forEach(function (map) {
      heads.forEach(function (h) {
        if (h >= map.heads) return;
        n += 1;
        for (var i = 0; i < rows; ++i) for (var j = 0; j < cols; ++j) out[i][j] += map.weights[h][i][j];
      });
    });
    return out.map(function (row) { return row.map(function (w) { return n ? w / n : 0; }); });
  };
  // Attention entropy of one head: H(row) = −Σ_j a_ij ln a_ij in nats, the mean over rows that see a key (rows
  // of zeros are skipped; local_p's rows sum to between e^(−2) and 1 and count as they are), the same measure as
  // `attnlab eval` (src/lab/evaluate.h).
  X.entropy = function (matrix) {
    var total = 0, rows = 0;
    matrix.forEach(function (row) {
      if (!(X.sum(row) > 0)) return;
      rows += 1;
      row.forEach(function (w) { if (w > 0) total -= w * Math.log(w); });
    });
    return rows ? total / rows : 0;
  };
  X.headCount = function () { return Math.max.apply(null, X.data.maps.map(function (m) { return m.heads; })); };
  X.layerCount = function (type) { return X.mapsOf(type).length; };
})();
