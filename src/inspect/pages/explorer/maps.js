// maps.js — the explorer's views of the weights themselves: the head view, the model view and the matrix view.
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el, range = X.range;

  // ---- head view ----
  // Two columns of tokens joined by a line per head and (query, key) whose opacity is the weight (BertViz's head
  // view; "all three" stacks source and target on both sides, as Tensor2Tensor's attention view does).
  function headParts(state) {
    var types = state.type === 'all' ? X.presentTypes() : [state.type];
    var parts = [];
    types.forEach(function (type) {
      var maps = state.meanLayers ? X.mapsOf(type) : [X.mapAt(type, state.layer)];
      if (!maps[0]) return;
      if (state.type === 'all' && maps[0].keys === 'slots') return;   // memory slots have no place among tokens
      parts.push({type: type, maps: maps});
    });
    return parts;
  }
  function headControls(root, state) {
    var redraw = function () { X.redraw('head'); };
    var controls = el('div', {class: 'controls'}, root);
    X.segmented(controls, 'attention', X.typeOptions(true), state.type, function (v) {
      state.type = v; state.pinned = null; redraw();
    });
    var layers = Math.max.apply(null, X.presentTypes().map(X.layerCount));
    var layerOptions = range(layers).map(function (l) { return [l, 'layer ' + l]; });
    layerOptions.push(['mean', 'mean of layers']);
    X.selector(controls, 'layer', layerOptions, state.meanLayers ? 'mean' : state.layer, function (v) {
      state.meanLayers = v === 'mean';
      if (!state.meanLayers) state.layer = Number(v);
      state.pinned = null;
      redraw();
    }, 'head-layer');
    var heads = X.headCount();
    while (state.headsOn.length < heads) state.headsOn.push(true);
    var chips = el('div', {class: 'group', role: 'group', 'aria-label': 'heads shown'}, controls);
    el('span', {class: 'label'}, chips, 'heads');
    range(heads).forEach(function (h) {
      var chip = el('button', {type: 'button', class: 'chip ' + (state.headsOn[h] ? 'on' : 'off'), 'data-head': h,
                               'aria-pressed': state.headsOn[h] ? 'true' : 'false', 'data-key': 'chip-' + h,
                               'aria-label': 'head ' + h}, chips);
      el('span', {class: 'dot', style: 'background:' + X.headColour(h)}, chip);
      chip.appendChild(document.createTextNode(String(h)));
      chip.addEventListener('click', function () { state.headsOn[h] = !state.headsOn[h]; redraw(); });
    });
    var mean = el('label', {class: 'group'}, controls);
    var box = el('input', {type: 'checkbox', id: 'head-mean', 'data-key': 'head-mean'}, mean);
    box.checked = state.meanHeads;
    mean.appendChild(document.createTextNode(' mean of the heads shown'));
    box.addEventListener('change', function () { state.meanHeads = box.checked; redraw(); });
  }
  // What the two columns hold, in the words of X.axisText: the hint always says what the labels are.
  function headHint(root, state) {
    var sides = state.type === 'all'
      ? 'Left (queries): the source tokens, then each decoder position named by the token it predicts; right ' +
        '(keys): the source tokens, then the target tokens the decoder reads (<s> first).'
      : X.axisText(state.type, (X.mapAt(state.type, 0) || {}).keys === 'slots').replace('Rows', 'Left (queries)')
          .replace('columns', 'right (keys)');
    X.hint(root, 'Each line joins a query (left) to a key (right); its opacity is the weight, its colour the head. ' +
           sides + ' Point at a token, or Tab to the tokens and move with ↑ ↓ (← → changes side), to keep only its ' +
           'lines; click it or press Enter to pin them (again to let go).', 'head-hint');
  }
  // The tokens of both columns and the lines between them: {left, right, lines}.
  function headLines(state) {
    var left = [], right = [], starts = {q: {}, k: {}}, lines = [];
    function block(side, name, tokens) {          // where a block of tokens starts in its column (added once)
      var list = side === 'q' ? left : right;
      if (starts[side][name] === undefined) {
        starts[side][name] = list.length;
        tokens.forEach(function (t) { list.push({text: t, block: name}); });
      }
      return starts[side][name];
    }
    headParts(state).forEach(function (part) {
      var map = part.maps[0];
      var q0 = block('q', part.type === 'encoder_self' ? 'source' : 'target_output', X.labels(map, 'q'));
      var k0 = block('k', map.keys, X.labels(map, 'k'));
      var shown = range(map.heads).filter(function (h) { return state.headsOn[h]; });
      var sets = state.meanHeads ? [{head: -1, matrix: X.meanMatrix(part.maps, shown)}]
                                 : shown.map(function (h) { return {head: h, matrix: X.meanMatrix(part.maps, [h])}; });
      if (state.meanHeads && !shown.length) sets = [];
      sets.forEach(function (set) {
        set.matrix.forEach(function (row, i) {
          row.forEach(function (w, j) {
            if (w >= 0.01) lines.push({q: q0 + i, k: k0 + j, w: w, head: set.head, part: part.type});
          });
        });
      });
    });
    return {left: left, right: right, lines: lines};
  }
  X.views.head = {title: 'Head view', render: function (root) {
    var state = X.state;
    headControls(root, state);
    headHint(root, state);
    X.headLegend(root, X.headCount());
    X.unknownNote(root);
    if (!headParts(state).length) { el('p', {class: 'empty'}, root, 'No map of this type at this layer.'); return; }
    drawHeadSvg(root, state, headLines(state));
  }};
  function drawHeadSvg(root, state, columns) {
    var rowH = 22, top = 30, textW = 150, gap = 220, lines = columns.lines;
    var width = textW * 2 + gap + 40, height = top + rowH * Math.max(columns.left.length, columns.right.length) + 10;
    var svg = el('svg', {class: 'headview', width: width, height: height, 'data-lines': lines.length},
                 el('div', {class: 'scroll'}, root));
    var xL = textW + 10, xR = textW + 10 + gap;
    el('text', {class: 'part', x: xL - 6, y: 14, 'text-anchor': 'end'}, svg, 'queries');
    el('text', {class: 'part', x: xR + 6, y: 14}, svg, 'keys');
    var y = function (index) { return top + rowH * index + rowH / 2; };
    var lineNodes = lines.map(function (line) {
      return el('line', {x1: xL, y1: y(line.q), x2: xR, y2: y(line.k), stroke: line.head < 0 ? '#1d2430' : X.headColour(line.head),
                         'stroke-opacity': line.w.toFixed(3), 'stroke-width': 2, 'data-q': line.q, 'data-k': line.k,
                         'data-head': line.head, 'data-part': line.part, 'data-w': line.w}, svg);
    });
    var view = {svg: svg, lineNodes: lineNodes, tokenNodes: [], state: state};
    var sides = [[columns.left, 'q', xL - 6, 'end'], [columns.right, 'k', xR + 6, 'start']].map(function (side) {
      return side[0].map(function (token, index) {
        return headToken(view, side[1], index, token, {x: side[2], y: y(index) + 4, anchor: side[3],
                                                       readoutX: side[1] === 'q' ? 8 : xR + textW});
      });
    });
    sides.forEach(function (nodes, s) {
      var pinned = state.pinned && state.pinned[0] === (s ? 'k' : 'q') ? state.pinned[1] : 0;
      X.roving(nodes, Math.min(pinned, nodes.length - 1), {next: ['ArrowDown'], previous: ['ArrowUp']});
      nodes.forEach(function (node, index) {
        node.addEventListener('keydown', function (event) {   // ← → jump to the other column, at the same row
          var other = sides[event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? 0 : s];
          if (other === nodes || !other.length) return;
          event.preventDefault();
          other[Math.min(index, other.length - 1)].focus();
        });
      });
    });
    if (state.pinned) {
      view.tokenNodes.forEach(function (t) {
        var on = t.getAttribute('data-side') === state.pinned[0] && Number(t.getAttribute('data-index')) === state.pinned[1];
        t.classList.toggle('pinned', on);
        t.setAttribute('aria-pressed', on ? 'true' : 'false');
      });
    }
    focusToken(view, state.pinned && state.pinned[0], state.pinned && state.pinned[1]);
  }
  // One token of a column: pointing at it or focusing it keeps its lines; a click or Enter pins them.
  function headToken(view, side, index, token, at) {
    var state = view.state, svg = view.svg;
    var node = el('text', {class: 'tok' + (/\?$/.test(token.text) ? ' unk' : ''), x: at.x, y: at.y,
                           'text-anchor': at.anchor, 'data-side': side, 'data-index': index, 'data-block': token.block,
                           'aria-pressed': 'false', 'data-key': 'tok-' + side + index}, svg, token.text);
    view.tokenNodes.push(node);
    // The read-out beside a token while a token of the other side is in focus: the mean weight of the lines.
    node.readout = el('text', {class: 'readout', x: at.readoutX, y: at.y, 'data-side': side, 'data-index': index}, svg);
    var rest = function () { focusToken(view, state.pinned && state.pinned[0], state.pinned && state.pinned[1]); };
    node.addEventListener('mouseenter', function () { focusToken(view, side, index); });
    node.addEventListener('mouseleave', rest);
    node.addEventListener('focus', function () { focusToken(view, side, index); });
    node.addEventListener('blur', rest);
    X.operable(node, (side === 'q' ? 'query ' : 'key ') + token.text + ': show only its lines', function () {
      var same = state.pinned && state.pinned[0] === side && state.pinned[1] === index;
      state.pinned = same ? null : [side, index];
      view.tokenNodes.forEach(function (t) { t.classList.remove('pinned'); t.setAttribute('aria-pressed', 'false'); });
      if (!same) { node.classList.add('pinned'); node.setAttribute('aria-pressed', 'true'); }
      svg.setAttribute('data-pinned', same ? '' : side + index);
      focusToken(view, side, index);
      X.saveState();
    });
    return node;
  }
  // Keeps only the lines of one token (side 'q' or 'k'), or every line when side is null.
  function focusToken(view, side, index) {
    var visible = 0, svg = view.svg;
    view.lineNodes.forEach(function (line) {
      var keep = !side || Number(line.getAttribute(side === 'q' ? 'data-q' : 'data-k')) === index;
      line.style.display = keep ? '' : 'none';
      visible += keep ? 1 : 0;
    });
    view.tokenNodes.forEach(function (t) {
      var mine = side && t.getAttribute('data-side') === side && Number(t.getAttribute('data-index')) === index;
      t.classList.toggle('lit', !!mine);
    });
    svg.setAttribute('data-focus', side ? side + index : '');
    svg.setAttribute('data-visible-lines', visible);
    // Beside each token of the other side: its weight, the mean over the heads drawn (lines under 0.01 are not
    // drawn, so a blank is below that).
    var other = side === 'q' ? 'data-k' : 'data-q', totals = {}, heads = {};
    if (side) {
      view.lineNodes.forEach(function (line) {
        if (line.style.display === 'none') return;
        var at = line.getAttribute(other);
        totals[at] = (totals[at] || 0) + Number(line.getAttribute('data-w'));
        heads[line.getAttribute('data-head')] = true;
      });
    }
    var drawn = Object.keys(heads).length;
    view.tokenNodes.forEach(function (t) {
      var total = side && t.getAttribute('data-side') !== side ? totals[t.getAttribute('data-index')] : undefined;
      t.readout.textContent = total === undefined ? '' : (total / drawn).toFixed(2);
    });
  }

  // ---- model view ----
  // Every layer × head of a type as a small heatmap with its entropy; a click (or Enter) opens it large.
  function thumbnail(matrix, size) {
    var canvas = el('canvas', {width: size, height: size});
    var rows = matrix.length, cols = matrix[0].length, context = canvas.getContext('2d');
    for (var i = 0; i < rows; ++i) {
      for (var j = 0; j < cols; ++j) {
        context.fillStyle = X.heat(matrix[i][j]);
        context.fillRect(Math.floor(j * size / cols), Math.floor(i * size / rows),
                         Math.ceil(size / cols), Math.ceil(size / rows));
      }
    }
    return canvas;
  }
  function openLarge(map, head, opener) {
    var body = X.clear(document.getElementById('modal-body'));
    var matrix = head < 0 ? X.meanMatrix([map], range(map.heads)) : map.weights[head];
    var title = X.TYPE_TITLES[map.type] + ' · layer ' + map.layer + ' · ' + (head < 0 ? 'mean of heads' : 'head ' + head);
    el('h3', {id: 'modal-title'}, body, title + ' (' + map.kind + ')');
    X.hint(body, X.axisText(map.type, map.keys === 'slots') + ' Entropy ' + X.entropy(matrix).toFixed(2) +
           ' nats. Point at a cell, or Tab to the picture and use the arrow keys, to read its weight.');
    X.legend(body, 'heat', 1, 'weight: white 0, dark blue 1');
    var large = body.appendChild(X.heatmapSvg(matrix, X.labels(map, 'q'), X.labels(map, 'k'),
                                              map.weights[0][0].length > 24 ? 12 : 26, undefined, undefined, title));
    if (X.goldMethod(map, head) && X.goldOf()) { X.goldLegend(body); X.goldOn(large, body, X.goldMethod(map, head)); }
    X.openModal(map.type + '/' + map.layer + '/' + head, opener);
  }
  X.views.model = {title: 'Model view', render: function (root) {
    var state = X.state;
    var controls = el('div', {class: 'controls'}, root);
    X.segmented(controls, 'attention', X.typeOptions(true), state.type, function (v) { state.type = v; X.redraw('model'); });
    X.hint(root, 'Every layer (rows) and head (columns) as a small heatmap, and the mean of the heads; under each, ' +
           'its attention entropy in nats (0: every query reads one key; ln n: it reads all n alike). Click a ' +
           'picture, or Tab to it and press Enter, to open it large.');
    X.legend(root, 'heat', 1, 'weight: white 0, dark blue 1');
    if (state.type === 'cross' || state.type === 'all') X.goldLegend(root);
    (state.type === 'all' ? X.presentTypes() : [state.type]).forEach(function (type) {
      var maps = X.mapsOf(type);
      el('h3', {}, root, X.TYPE_TITLES[type] + ' (' + maps[0].kind + ')');
      X.hint(root, X.axisText(type, maps[0].keys === 'slots'));
      var table = el('table', {class: 'grid'}, el('div', {class: 'scroll'}, root));
      var header = el('tr', {}, table);
      el('th', {}, header);
      range(maps[0].heads).forEach(function (h) { el('th', {}, header, 'head ' + h); });
      el('th', {}, header, 'mean');
      maps.forEach(function (map) {
        var row = el('tr', {}, table);
        el('th', {class: 'rowhead'}, row, 'layer ' + map.layer);
        range(map.heads).concat([-1]).forEach(function (h) {
          var matrix = h < 0 ? X.meanMatrix([map], range(map.heads)) : map.weights[h];
          var name = map.type + '/' + map.layer + '/' + h;
          var figure = el('figure', {class: 'thumb', 'data-thumb': name, 'data-key': 'thumb-' + name}, el('td', {}, row));
          var canvas = figure.appendChild(thumbnail(matrix, 84));
          el('figcaption', {}, figure, 'H = ' + X.entropy(matrix).toFixed(2));
          if (X.goldMethod(map, h) && X.goldOf()) {   // gold.js: the outlines and the AER
            X.goldOnCanvas(canvas, X.goldOf());
            X.goldScore(figure, X.goldMethod(map, h));
          }
          X.operable(figure, 'open ' + X.TYPE_TITLES[map.type] + ' layer ' + map.layer + ' ' +
                     (h < 0 ? 'mean of heads' : 'head ' + h) + ' large', function () { openLarge(map, h, figure); });
        });
      });
    });
  }};

  // ---- matrix view ----
  // Every map and head as a heatmap, with the mean over heads (last column) and over layers (last row).
  // A long sentence makes many cells: 27 pictures of 150 × 150 for a 150-word sentence through a 2-layer model.
  // An SVG rect per cell (X.heatmapSvg) is 600 000 elements, 21 s to draw in Chromium; here a picture's cells are
  // ONE image, a pixel per cell drawn into a canvas and scaled up unsmoothed, and only the labels are text. Every
  // label is drawn when a cell is tall enough to read it (READABLE px, the zoom control sets the cell size);
  // smaller, the row's and the column's labels appear where the pointer or the keyboard's cursor is.
  var READABLE = 10;
  var ZOOMS = [['fit', 'fit'], ['4', '4 px'], ['8', '8 px'], ['14', '14 px: every label']];
  X.MATRIX_ZOOMS = ZOOMS.map(function (z) { return z[0]; });   // what the address's "zoom" may be (explorer.js)
  // The cell size: the zoom chosen, or "fit": 16 px up to 24 tokens, else as large as keeps a picture ≤ 320 px.
  function cellSize(zoom, tokens) {
    if (zoom !== 'fit') return Number(zoom);
    return tokens <= 24 ? 16 : Math.max(2, Math.min(8, Math.floor(320 / tokens)));
  }
  // X.heat's colour at 1024 weights 0, 1/1023, … 1, as [r, g, b]: a cell takes the nearest (its channels then
  // differ from X.heat(w)'s by at most 1 of 255), 40 times faster than asking X.heat for every cell.
  var heatLevels = null;
  function heatOf(w) {
    if (!heatLevels) heatLevels = range(1024).map(function (k) { return X.heat(k / 1023).match(/\d+/g).map(Number); });
    return heatLevels[Math.round(Math.max(0, Math.min(1, isFinite(w) ? w : 0)) * 1023)];
  }
  // The cells as a PNG (data: URL), one pixel per cell.
  function cellImage(matrix, cols) {
    var rows = matrix.length, canvas = document.createElement('canvas');
    canvas.width = Math.max(1, cols);
    canvas.height = Math.max(1, rows);
    var context = canvas.getContext('2d'), image = context.createImageData(canvas.width, canvas.height);
    for (var i = 0; i < rows; ++i) {
      for (var j = 0; j < cols; ++j) {
        var rgb = heatOf(matrix[i][j]), at = 4 * (i * cols + j);
        image.data[at] = rgb[0], image.data[at + 1] = rgb[1], image.data[at + 2] = rgb[2], image.data[at + 3] = 255;
      }
    }
    context.putImageData(image, 0, 0);
    return canvas.toDataURL('image/png');
  }
  // One picture: an ARIA grid with one tab stop, like X.heatmapSvg's (controls.js), whose cells are an image.
  X.matrixPicture = function (matrix, rowLabels, colLabels, cell, picture, name) {
    var longest = function (list) { return Math.max.apply(null, list.map(function (s) { return s.length; }).concat([1])); };
    var box = {left: 8 + 7 * longest(rowLabels), top: 8 + 7 * longest(colLabels), cell: cell,
               rows: rowLabels.length, cols: colLabels.length};
    var width = box.left + cell * box.cols + 4, height = box.top + cell * box.rows + 4;
    var svg = el('svg', {width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, 'data-map': picture,
                         role: 'grid', tabindex: 0, class: 'heatmap', 'data-key': 'grid-' + (picture || name),
                         'data-cell': cell, 'data-labels': cell >= READABLE ? 'all' : 'pointed',
                         'aria-label': (name || 'attention map') + ': ' + box.rows + ' rows, ' + box.cols +
                                       ' columns; arrow keys read the cells'});
    if (cell >= READABLE) {
      var font = Math.min(12, cell - 2);
      rowLabels.forEach(function (label, i) { axisLabel(svg, box, 'row', i, label, font); });
      colLabels.forEach(function (label, j) { axisLabel(svg, box, 'col', j, label, font); });
    }
    var image = document.createElementNS('http://www.w3.org/2000/svg', 'image');
    [['x', box.left], ['y', box.top], ['width', cell * box.cols], ['height', cell * box.rows], ['class', 'cells'],
     ['preserveAspectRatio', 'none'], ['style', 'image-rendering: pixelated'], ['href', cellImage(matrix, box.cols)]]
      .forEach(function (pair) { image.setAttribute(pair[0], pair[1]); });
    svg.appendChild(image);
    el('rect', {x: box.left, y: box.top, width: cell * box.cols, height: cell * box.rows, fill: 'none',
                stroke: '#98a2b3', 'stroke-width': 0.5}, svg);
    pointing(svg, box, matrix, rowLabels, colLabels);
    return svg;
  };
  // A row's label left of the picture, or a column's above it (turned upright), as X.heatmapSvg places them.
  function axisLabel(svg, box, axis, k, label, font, extra) {
    var unknown = /\?$/.test(label) ? 'unk' : '', at = box.cell * k + box.cell / 2 + font / 3;
    var attrs = axis === 'row' ? {x: box.left - 4, y: box.top + at, 'text-anchor': 'end'}
                               : {x: box.left + at, y: box.top - 4};
    if (axis === 'col') attrs.transform = 'rotate(-90 ' + attrs.x + ' ' + attrs.y + ')';
    attrs['font-size'] = font;
    attrs.class = ((extra || '') + ' ' + unknown).trim() || null;
    return el('text', attrs, svg, label);
  }
  // The pointer or the keyboard on a cell: a frame over it, bands along its row and column, the two labels
  // (when not all are drawn) and the read-out. The frame is the grid's one gridcell, named by its read-out.
  function pointing(svg, box, matrix, rowLabels, colLabels) {
    if (!box.rows || !box.cols) return;
    var c = box.cell, at = [0, 0], id = 'matrix-cursor-' + (X.grids = (X.grids || 0) + 1), shown = [];
    var bands = el('g', {visibility: 'hidden', 'pointer-events': 'none'}, svg);
    var rowBand = el('rect', {x: box.left, height: c, width: c * box.cols, fill: '#f59e0b', 'fill-opacity': 0.18}, bands);
    var colBand = el('rect', {y: box.top, width: c, height: c * box.rows, fill: '#f59e0b', 'fill-opacity': 0.18}, bands);
    var frame = el('rect', {id: id, role: 'gridcell', width: c, height: c, fill: 'none', stroke: '#dc2626',
                            'stroke-width': Math.min(2, Math.max(1, c / 4))}, el('g', {role: 'row'}, bands));
    var readout = function () {
      return 'query \u201c' + rowLabels[at[0]] + '\u201d \u2192 key \u201c' + colLabels[at[1]] + '\u201d: ' +
             matrix[at[0]][at[1]].toFixed(3);
    };
    function show(i, j, where) {
      at = [Math.max(0, Math.min(box.rows - 1, i)), Math.max(0, Math.min(box.cols - 1, j))];
      rowBand.setAttribute('y', box.top + c * at[0]);
      colBand.setAttribute('x', box.left + c * at[1]);
      frame.setAttribute('x', box.left + c * at[1]);
      frame.setAttribute('y', box.top + c * at[0]);
      frame.setAttribute('aria-label', readout());
      bands.setAttribute('visibility', 'visible');
      shown.forEach(function (node) { node.parentNode.removeChild(node); });
      shown = svg.getAttribute('data-labels') === 'all' ? [] :
        [axisLabel(svg, box, 'row', at[0], rowLabels[at[0]], 12, 'pointed'),
         axisLabel(svg, box, 'col', at[1], colLabels[at[1]], 12, 'pointed')];
      svg.setAttribute('data-cursor', at[0] + '/' + at[1]);
      svg.setAttribute('aria-activedescendant', id);
      var place = where || frame.getBoundingClientRect();
      X.showTip(readout(), (where ? where.x : place.right + window.scrollX) + 14,
                (where ? where.y : place.bottom + window.scrollY) + 14);
    }
    function hide() { bands.setAttribute('visibility', 'hidden'); X.hideTip(); }
    svg.addEventListener('mousemove', function (event) {
      var r = svg.getBoundingClientRect(), x = event.clientX - r.left - box.left, y = event.clientY - r.top - box.top;
      if (x < 0 || y < 0 || x >= c * box.cols || y >= c * box.rows) return hide();
      show(Math.floor(y / c), Math.floor(x / c), {x: event.pageX, y: event.pageY});
    });
    svg.addEventListener('mouseleave', hide);
    svg.addEventListener('focus', function () { show(at[0], at[1]); });
    svg.addEventListener('blur', hide);
    svg.addEventListener('keydown', function (event) {
      var page = Math.max(1, Math.round(10 * 8 / c));                  // PageUp / PageDown: about 80 px
      var step = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], PageUp: [-page, 0],
                  PageDown: [page, 0], Home: [0, -at[1]], End: [0, box.cols - 1 - at[1]]}[event.key];
      if (!step) return;
      event.preventDefault();
      show(at[0] + step[0], at[1] + step[1]);
    });
  }
  X.views.matrix = {title: 'Matrix view', render: function (root) {
    var started = performance.now(), state = X.state;
    var tokens = Math.max.apply(null, X.data.maps.map(function (m) {   // the longest side of any map
      return Math.max(m.weights[0].length, m.weights[0][0].length);
    }));
    var cell = cellSize(state.zoom, tokens);
    X.segmented(el('div', {class: 'controls'}, root), 'cell size', ZOOMS, state.zoom, function (v) {
      state.zoom = v;
      X.redraw('matrix');
    });
    X.hint(root, 'A cell\u2019s colour is the weight (white 0, dark blue 1) and each row sums to 1 (local_p\u2019s to ' +
           'less: its Gaussian is not renormalised; hard attention\u2019s rows, at argmax, a single 1 at the chosen ' +
           'key). The last column is the mean of the heads, the last row the mean of the layers. Point at a cell, or ' +
           'Tab to a picture and use the arrow keys (Page Up / Page Down: ten rows, Home / End: the row\u2019s ends), ' +
           'to read its query, key and weight; its row and column are lit and their tokens named. Every token is ' +
           'written along the axes from a cell size of ' + READABLE + ' px (\u201ccell size\u201d above; now ' + cell +
           ' px).', 'matrix-hint');
    X.legend(root, 'heat', 1, 'weight: white 0, dark blue 1');
    X.goldLegend(root);
    X.unknownNote(root);
    var pictures = X.presentTypes().reduce(function (n, type) { return n + matrixTable(root, type, cell); }, 0);
    root.getBoundingClientRect();                                    // the layout too, in the time below
    document.body.setAttribute('data-matrix-ms', (performance.now() - started).toFixed(1));
    document.body.setAttribute('data-maps-ready', String(pictures));
  }};
  // One type's table: a row per layer (and the mean of layers), a column per head (and the mean of heads).
  // Returns how many pictures of one head it drew.
  function matrixTable(root, type, cell) {
    var maps = X.mapsOf(type), heads = maps[0].heads, q = X.labels(maps[0], 'q'), k = X.labels(maps[0], 'k');
    var pictures = 0;
    el('h3', {}, root, X.TYPE_TITLES[type] + ' (' + maps[0].kind + ')');
    X.hint(root, X.axisText(type, maps[0].keys === 'slots'));
    var table = el('table', {class: 'grid'}, el('div', {class: 'scroll'}, root));
    var header = el('tr', {}, table);
    el('th', {}, header);
    range(heads).forEach(function (h) { el('th', {}, header, 'head ' + h); });
    el('th', {}, header, 'mean of heads');
    var picture = function (row, matrix, name, id, method) {
      var td = el('td', {}, row), svg = td.appendChild(X.matrixPicture(matrix, q, k, cell, id, X.TYPE_TITLES[type] + ' ' + name));
      if (type === 'cross' && maps[0].keys === 'source') X.goldOn(svg, td, method);   // gold.js: outlines, AER
    };
    maps.forEach(function (map) {
      var row = el('tr', {}, table), index = X.data.maps.indexOf(map);
      el('th', {class: 'rowhead'}, row, 'layer ' + map.layer);
      range(heads).forEach(function (h) {
        picture(row, map.weights[h], 'layer ' + map.layer + ' head ' + h, index + '/' + h, 'cross.l' + map.layer + '.h' + h);
        pictures += 1;
      });
      picture(row, X.meanMatrix([map], range(heads)), 'layer ' + map.layer + ' mean of heads', undefined,
              'cross.l' + map.layer + '.mean');
    });
    if (maps.length > 1) {
      var row = el('tr', {}, table);
      el('th', {class: 'rowhead'}, row, 'mean of layers');
      range(heads).concat([-1]).forEach(function (h) {
        picture(row, X.meanMatrix(maps, h < 0 ? range(heads) : [h]), 'mean of layers ' + (h < 0 ? 'and heads' : 'head ' + h));
      });
    }
    return pictures;
  }
})();
