// gold.js — the gold alignment drawn on the explorer's pictures, and each picture's AER beside it.
//
// attention.json's "gold" (src/inspect/align/gold_on_picture.h) is, when the sentence is a line of the run's test or
// valid split and the translation shown is its reference, the corpus's alignment of that line over WORDS
//   sure [[i, j], …]      source word i produced target word j (Pharaoh "i-j")
//   possible [[i, j], …]  i may have produced j ("i?j": ne/pas ↔ not, does ↔ nothing, au ↔ to the)
// with the word of every token: source_word_of[s], and target_word_of[t] for the decoder row t (the row that
// PREDICTS target token t; −1 for </s>). A cell (row t, column s) of a picture whose rows are decoder positions and
// whose columns are source tokens is outlined when word target_word_of[t] and word source_word_of[s] are linked:
// solid for a sure link, dashed for a possible one, so a word split into pieces outlines every piece of it.
// "scores" hold each view's AER as `attnlab align` computes it (each target word to its largest source word, over
// words): the page shows those numbers, it does not compute its own.
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el;
  var STROKE = {sure: {stroke: '#ea580c'}, possible: {stroke: '#ea580c', 'stroke-dasharray': '3 2'}};
  function outline(attrs, kind) { return Object.assign(attrs, STROKE[kind]); }

  // The gold of `from` (attention.json or film.json) when it was found, else null.
  X.goldOf = function (from) {
    var gold = (from || X.data || {}).gold;
    return gold && gold.found ? gold : null;
  };
  // For every decoder row t and source token s: 'sure', 'possible' or null.
  X.goldCells = function (gold) {
    var kind = {};
    gold.possible.forEach(function (link) { kind[link[0] + ',' + link[1]] = 'possible'; });
    gold.sure.forEach(function (link) { kind[link[0] + ',' + link[1]] = 'sure'; });
    return gold.target_word_of.map(function (j) {
      return gold.source_word_of.map(function (i) { return i < 0 || j < 0 ? null : kind[i + ',' + j] || null; });
    });
  };
  // Where a picture's cells are: X.heatmapSvg's rects (data-i, data-j) or the matrix view's one image of cells.
  function cellBox(svg) {
    var image = svg.querySelector('image.cells');
    if (image) {
      return {left: Number(image.getAttribute('x')), top: Number(image.getAttribute('y')),
              cell: Number(svg.getAttribute('data-cell'))};
    }
    var first = svg.querySelector('rect[data-i="0"][data-j="0"]');
    return first ? {left: Number(first.getAttribute('x')), top: Number(first.getAttribute('y')),
                    cell: Number(first.getAttribute('width'))} : null;
  }
  // Outlines the gold links on `svg` (rows: decoder positions, columns: source tokens). Returns how many cells.
  X.goldOutline = function (svg, gold) {
    var box = cellBox(svg), cells = X.goldCells(gold), drawn = 0;
    if (!box) return 0;
    var layer = el('g', {class: 'gold', 'pointer-events': 'none'}, svg);
    var width = Math.max(1, Math.min(2, box.cell / 6)), inset = width / 2;
    cells.forEach(function (row, t) {
      row.forEach(function (kind, s) {
        if (!kind) return;
        el('rect', outline({x: box.left + box.cell * s + inset, y: box.top + box.cell * t + inset,
                            width: box.cell - 2 * inset, height: box.cell - 2 * inset, fill: 'none', 'stroke-width': width,
                            'data-gold': kind, 'data-t': t, 'data-s': s}, kind), layer);
        drawn += 1;
      });
    });
    svg.setAttribute('data-gold-cells', String(drawn));
    return drawn;
  };
  // "AER 0.125" of `method` under its picture (or in `holder`); the numbers from `scores` (default: the page's).
  X.goldScore = function (holder, method, scores) {
    var gold = X.goldOf(), all = scores || (gold && gold.scores) || {}, score = all[method];
    var line = holder.querySelector('.aer') || el('div', {class: 'aer'}, holder);
    line.setAttribute('data-method', method || '');
    if (!score) { line.textContent = ''; return line; }
    line.textContent = 'AER ' + score.aer.toFixed(3);
    line.setAttribute('data-aer', String(score.aer));
    line.title = method + ': alignment error rate against the gold ' + score.aer.toFixed(3) + ' (0: agrees), ' +
                 'precision ' + score.precision.toFixed(3) + ', recall ' + score.recall.toFixed(3);
    return line;
  };
  // Both at once, for a picture of decoder rows × source columns placed in `holder` (a table cell, a figure).
  X.goldOn = function (svg, holder, method, gold, scores) {
    gold = gold === undefined ? X.goldOf() : gold;
    if (!gold) return;
    X.goldOutline(svg, gold);
    if (method) X.goldScore(holder, method, scores);
  };
  // The name `attnlab align` gives one head of a map (head < 0: the mean of its heads), when the map is
  // cross-attention over source tokens; else null (no gold goes with it).
  X.goldMethod = function (map, head) {
    if (map.type !== 'cross' || map.keys !== 'source') return null;
    return 'cross.l' + map.layer + (head < 0 ? '.mean' : '.h' + head);
  };
  // The outlines on a thumbnail (a canvas of size × size, the matrix stretched over it).
  X.goldOnCanvas = function (canvas, gold) {
    var cells = X.goldCells(gold), context = canvas.getContext('2d');
    var w = canvas.width / gold.source_word_of.length, h = canvas.height / gold.target_word_of.length, drawn = 0;
    context.lineWidth = 1.5;
    context.strokeStyle = STROKE.sure.stroke;
    cells.forEach(function (row, t) {
      row.forEach(function (kind, s) {
        if (!kind) return;
        context.setLineDash(kind === 'possible' ? [2, 2] : []);
        context.strokeRect(s * w + 0.75, t * h + 0.75, w - 1.5, h - 1.5);
        drawn += 1;
      });
    });
    canvas.setAttribute('data-gold-cells', String(drawn));
  };
  // The legend of the outlines, or why there are none; nothing when the page never looked (an older JSON).
  X.goldLegend = function (parent, from) {
    var raw = (from || X.data || {}).gold;
    if (!raw) return null;
    if (!raw.found) {
      return el('p', {class: 'hint gold-none', id: 'gold-none'}, parent, 'No gold outlines: ' + raw.why +
                (raw.reference ? ' (its reference: \u201c' + raw.reference + '\u201d).' : '.'));
    }
    var box = el('div', {class: 'legend gold-legend', role: 'img', 'aria-label': 'gold legend: a solid outline is ' +
                         'a sure gold link, a dashed outline a possible one'}, parent);
    var svg = el('svg', {width: 150, height: 18, viewBox: '0 0 150 18'}, box);
    [['sure', 2], ['possible', 58]].forEach(function (pair) {
      el('rect', outline({x: pair[1] + 1, y: 2, width: 14, height: 14, fill: 'none', 'stroke-width': 2}, pair[0]), svg);
      el('text', {x: pair[1] + 19, y: 13, 'font-size': 10}, svg, pair[0]);
    });
    el('span', {class: 'meta'}, box, 'the gold alignment of ' + goldWhere(raw) + ': a solid outline is a sure link, ' +
       'a dashed one a possible link (word to word; every piece of a word is outlined). AER beside a picture: ' +
       'each target word linked to its largest source word, scored against the gold as attnlab align does ' +
       '(Och & Ney: 0 when every sure link is found and nothing outside the possible ones).');
    return box;
  };
  function goldWhere(gold) { return gold.file + ' line ' + gold.line + ' (' + gold.split + ' split)'; }
})();
