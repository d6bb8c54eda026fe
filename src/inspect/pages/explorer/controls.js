// controls.js — the explorer's controls and pictures, each reachable and operable by keyboard (common.js).
//
// Keyboard rules, the same in every view (WAI-ARIA Authoring Practices):
//   Tab / Shift+Tab        moves between controls; a long list of tokens, keys or queries is ONE stop
//   ← → ↑ ↓, Home, End     move inside such a list (a "roving" focus: the tokens of the head view, the neuron
//                          view's queries and keys, the cells of a heatmap)
//   Enter or Space         does what a click does (pin a token, open a thumbnail, choose a key)
//   Escape                 closes the large picture
// Every element that redraws its view keeps the focus: it has a data-key, and explorer.js focuses the element
// with the same data-key after the view is drawn again.
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el;

  // Makes `node` a button for the keyboard: in the tab order (or not, `inTabOrder` false for a roving list),
  // named for a screen reader, Enter and Space do `action`.
  X.operable = function (node, label, action, inTabOrder) {
    node.setAttribute('tabindex', inTabOrder === false ? '-1' : '0');
    if (!node.getAttribute('role')) node.setAttribute('role', 'button');
    node.setAttribute('aria-label', label);
    node.addEventListener('click', action);
    node.addEventListener('keydown', function (event) {
      if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); action(event); }
    });
    return node;
  };
  // A roving focus over `nodes`: one of them (index `current`) is in the tab order; the arrow keys in
  // `keys.next` / `keys.previous`, Home and End move the focus (and the tab stop) along the list.
  X.roving = function (nodes, current, keys) {
    keys = keys || {next: ['ArrowRight', 'ArrowDown'], previous: ['ArrowLeft', 'ArrowUp']};
    nodes.forEach(function (node, k) {
      node.setAttribute('tabindex', k === current ? '0' : '-1');
      node.addEventListener('keydown', function (event) {
        var to = keys.next.indexOf(event.key) >= 0 ? k + 1 : keys.previous.indexOf(event.key) >= 0 ? k - 1
                 : event.key === 'Home' ? 0 : event.key === 'End' ? nodes.length - 1 : null;
        if (to === null) return;
        event.preventDefault();
        to = Math.max(0, Math.min(nodes.length - 1, to));
        nodes.forEach(function (other) { other.setAttribute('tabindex', '-1'); });
        nodes[to].setAttribute('tabindex', '0');
        nodes[to].focus();
      });
    });
  };

  // A row of buttons, one of them on (aria-pressed); `onPick(value)` when one is chosen.
  X.segmented = function (parent, label, options, current, onPick) {
    var group = el('div', {class: 'group seg', role: 'group', 'aria-label': label}, parent);
    el('span', {class: 'label'}, group, label);
    options.forEach(function (option) {
      var on = option[0] === current;
      var button = el('button', {type: 'button', 'data-value': option[0], class: on ? 'on' : '',
                                 'aria-pressed': on ? 'true' : 'false', 'data-key': 'seg-' + label + '-' + option[0]},
                      group, option[1]);
      button.addEventListener('click', function () { onPick(option[0]); });
    });
    return group;
  };
  X.selector = function (parent, label, options, current, onPick, id) {
    var group = el('div', {class: 'group'}, parent);
    el('label', {class: 'label', for: id}, group, label);
    var select = el('select', {id: id, 'data-key': id}, group);
    options.forEach(function (option) {
      var o = el('option', {value: option[0]}, select, option[1]);
      if (String(option[0]) === String(current)) o.selected = true;
    });
    select.addEventListener('change', function () { onPick(select.value); });
    return select;
  };
  X.typeOptions = function (withAll) {
    var present = X.presentTypes();
    return X.TYPES.filter(function (t) { return t[0] === 'all' ? withAll : present.indexOf(t[0]) >= 0; });
  };

  // The read-out box beside a heatmap cell: under the mouse pointer, or beside the cell the keyboard is on.
  var tip = document.getElementById('tooltip');
  function showTip(text, x, y) {
    tip.textContent = text;
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
    tip.style.display = 'block';
    document.body.setAttribute('data-readout', text);
  }
  X.hideTip = function () { tip.style.display = 'none'; };
  X.showTip = showTip;   // the matrix view's pictures read out their cells here too (maps.js)

  // A heatmap as SVG: rows = queries, columns = keys, a cell per weight; hovering a cell names it (tooltip).
  // It is an ARIA grid with one tab stop: the arrow keys move a cursor over the cells and read each one out.
  // `picture` sets data-map="m/h" for the pictures of one head (counted into <body data-maps-ready>).
  // `colour` (optional) paints a number; heat() (0 … 1, white to dark blue) by default. `name`: what it shows.
  X.heatmapSvg = function (matrix, rowLabels, colLabels, cell, picture, colour, name) {
    var longest = function (list) { return Math.max.apply(null, list.map(function (s) { return s.length; }).concat([1])); };
    var left = 8 + 7 * longest(rowLabels), top = 8 + 7 * longest(colLabels);
    var width = left + cell * colLabels.length + 4, height = top + cell * rowLabels.length + 4;
    var svg = el('svg', {width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, 'data-map': picture,
                         role: 'grid', tabindex: 0, class: 'heatmap', 'data-key': 'grid-' + (picture || name),
                         'aria-label': (name || 'attention map') + ': ' + rowLabels.length + ' rows, ' +
                                       colLabels.length + ' columns; arrow keys read the cells'});
    var font = Math.min(12, Math.max(8, cell - 3));
    rowLabels.forEach(function (label, i) {
      el('text', {x: left - 4, y: top + cell * i + cell / 2 + font / 3, 'text-anchor': 'end', 'font-size': font,
                  class: /\?$/.test(label) ? 'unk' : null}, svg, label);
    });
    colLabels.forEach(function (label, j) {
      var x = left + cell * j + cell / 2 + font / 3, y = top - 4;
      el('text', {x: x, y: y, transform: 'rotate(-90 ' + x + ' ' + y + ')', 'font-size': font,
                  class: /\?$/.test(label) ? 'unk' : null}, svg, label);
    });
    matrix.forEach(function (row, i) {
      var g = el('g', {role: 'row'}, svg);
      row.forEach(function (w, j) {
        el('rect', {x: left + cell * j, y: top + cell * i, width: cell, height: cell, fill: (colour || X.heat)(w),
                    'data-i': i, 'data-j': j, 'data-w': w, role: 'gridcell'}, g);
      });
    });
    el('rect', {x: left, y: top, width: cell * colLabels.length, height: cell * rowLabels.length, fill: 'none',
                stroke: '#98a2b3', 'stroke-width': 0.5}, svg);
    var readout = function (i, j) {
      return 'query \u201c' + rowLabels[i] + '\u201d \u2192 key \u201c' + colLabels[j] + '\u201d: ' + matrix[i][j].toFixed(3);
    };
    svg.addEventListener('mousemove', function (event) {
      var target = event.target;
      if (!target.hasAttribute('data-i')) { X.hideTip(); return; }
      showTip(readout(Number(target.getAttribute('data-i')), Number(target.getAttribute('data-j'))),
              event.pageX + 14, event.pageY + 14);
    });
    svg.addEventListener('mouseleave', X.hideTip);
    gridKeys(svg, matrix, left, top, cell, readout);
    return svg;
  };
  // The keyboard cursor of a heatmap: a frame over one cell, moved by the arrow keys, read out as it moves.
  function gridKeys(svg, matrix, left, top, cell, readout) {
    if (!matrix.length || !matrix[0].length) return;
    var at = [0, 0], id = 'grid-cursor-' + (X.grids = (X.grids || 0) + 1);
    var frame = el('rect', {class: 'cursor', width: cell, height: cell, fill: 'none', stroke: '#dc2626',
                            'stroke-width': 2, visibility: 'hidden'}, svg);
    function move(i, j) {
      at = [Math.max(0, Math.min(matrix.length - 1, i)), Math.max(0, Math.min(matrix[0].length - 1, j))];
      frame.setAttribute('x', left + cell * at[1]);
      frame.setAttribute('y', top + cell * at[0]);
      frame.setAttribute('visibility', 'visible');
      var cellNode = svg.querySelector('rect[data-i="' + at[0] + '"][data-j="' + at[1] + '"]');
      var old = svg.querySelector('rect[aria-selected]');
      if (old) { old.removeAttribute('aria-selected'); old.removeAttribute('id'); }
      cellNode.setAttribute('aria-selected', 'true');
      cellNode.setAttribute('id', id);
      cellNode.setAttribute('aria-label', readout(at[0], at[1]));
      svg.setAttribute('aria-activedescendant', id);
      svg.setAttribute('data-cursor', at[0] + '/' + at[1]);
      var box = cellNode.getBoundingClientRect();
      showTip(readout(at[0], at[1]), box.right + window.scrollX + 6, box.bottom + window.scrollY + 6);
    }
    svg.addEventListener('focus', function () { move(at[0], at[1]); });
    svg.addEventListener('blur', function () { frame.setAttribute('visibility', 'hidden'); X.hideTip(); });
    svg.addEventListener('keydown', function (event) {
      var step = {ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1]}[event.key];
      if (event.key === 'Home') step = [0, -at[1]];
      if (event.key === 'End') step = [0, matrix[0].length - 1 - at[1]];
      if (!step) return;
      event.preventDefault();
      move(at[0] + step[0], at[1] + step[1]);
    });
  }
})();
