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
    body.appendChild(X.heatmapSvg(matrix, X.labels(map, 'q'), X.labels(map, 'k'), map.weights[0][0].length > 24 ? 12 : 26,
                                  undefined, undefined, title));
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
          figure.appendChild(thumbnail(matrix, 84));
          el('figcaption', {}, figure, 'H = ' + X.entropy(matrix).toFixed(2));
          X.operable(figure, 'open ' + X.TYPE_TITLES[map.type] + ' layer ' + map.layer + ' ' +
                     (h < 0 ? 'mean of heads' : 'head ' + h) + ' large', function () { openLarge(map, h, figure); });
        });
      });
    });
  }};

  // ---- matrix view ----
  // Every map and head as a heatmap, with the mean over heads (last column) and over layers (last row).
  X.views.matrix = {title: 'Matrix view', render: function (root) {
    X.hint(root, 'A cell\u2019s colour is the weight (white 0, dark blue 1) and each row sums to 1 (local_p\u2019s to ' +
           'less: its Gaussian is not renormalised; hard attention\u2019s rows, at argmax, a single 1 at the chosen ' +
           'key). The last column is the mean of the heads, the last row the mean of the layers. Point at a cell, or ' +
           'Tab to a picture and use the arrow keys, to read its query, key and weight.');
    X.legend(root, 'heat', 1, 'weight: white 0, dark blue 1');
    X.unknownNote(root);
    var pictures = 0;
    X.presentTypes().forEach(function (type) {
      var maps = X.mapsOf(type), heads = maps[0].heads, q = X.labels(maps[0], 'q'), k = X.labels(maps[0], 'k');
      var cell = maps[0].weights[0][0].length > 24 ? 8 : 16;
      el('h3', {}, root, X.TYPE_TITLES[type] + ' (' + maps[0].kind + ')');
      X.hint(root, X.axisText(type, maps[0].keys === 'slots'));
      var table = el('table', {class: 'grid'}, el('div', {class: 'scroll'}, root));
      var header = el('tr', {}, table);
      el('th', {}, header);
      range(heads).forEach(function (h) { el('th', {}, header, 'head ' + h); });
      el('th', {}, header, 'mean of heads');
      var picture = function (row, matrix, name, id) {
        el('td', {}, row).appendChild(X.heatmapSvg(matrix, q, k, cell, id, undefined, X.TYPE_TITLES[type] + ' ' + name));
      };
      maps.forEach(function (map) {
        var row = el('tr', {}, table), index = X.data.maps.indexOf(map);
        el('th', {class: 'rowhead'}, row, 'layer ' + map.layer);
        range(heads).forEach(function (h) {
          picture(row, map.weights[h], 'layer ' + map.layer + ' head ' + h, index + '/' + h);
          pictures += 1;
        });
        picture(row, X.meanMatrix([map], range(heads)), 'layer ' + map.layer + ' mean of heads');
      });
      if (maps.length > 1) {
        var row = el('tr', {}, table);
        el('th', {class: 'rowhead'}, row, 'mean of layers');
        range(heads).concat([-1]).forEach(function (h) {
          picture(row, X.meanMatrix(maps, h < 0 ? range(heads) : [h]), 'mean of layers ' + (h < 0 ? 'and heads' : 'head ' + h));
        });
      }
    });
    document.body.setAttribute('data-maps-ready', String(pictures));
  }};
})();
