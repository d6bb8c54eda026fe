// neuron.js — the explorer's neuron view: for one query and every key, the numbers that made the weight, stage
// by stage as the kind computes them, beside the model's own (common.js has the data's schema).
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el, fmt = X.fmt, sum = X.sum, product = X.product, range = X.range;
  var diverging = X.diverging;
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
  // The controls, the equation of the kind, the hint, the legend and the queries: returns what the table needs.
  function neuronHeader(root) {
    var n = X.state.neuron, redraw = function () { X.redraw('neuron'); };
    if (X.presentTypes().indexOf(n.type) < 0) n.type = X.presentTypes()[0];
    var maps = X.mapsOf(n.type);
    if (n.layer >= maps.length) n.layer = 0;
    var map = X.mapAt(n.type, n.layer);
    if (n.head >= map.heads) n.head = 0;
    var queries = X.labels(map, 'q'), keys = X.labels(map, 'k');
    if (n.query >= queries.length) n.query = 0;
    var controls = el('div', {class: 'controls'}, root);
    X.segmented(controls, 'attention', X.typeOptions(false), n.type, function (v) { n.type = v; n.key = null; redraw(); });
    X.selector(controls, 'layer', maps.map(function (m) { return [m.layer, 'layer ' + m.layer]; }), n.layer,
               function (v) { n.layer = Number(v); n.key = null; redraw(); }, 'neuron-layer');
    X.selector(controls, 'head', range(map.heads).map(function (h) { return [h, 'head ' + h]; }), n.head,
               function (v) { n.head = Number(v); n.key = null; redraw(); }, 'neuron-head');
    X.hint(root, 'One query\u2019s weights taken apart: for each key, the numbers that made its weight, in the order ' +
           'the code computes them. Columns marked (model) are the model\u2019s own, recorded in the forward pass; ' +
           'the others are computed here from them, so each row checks the equation below. ' +
           X.axisText(map.type, map.keys === 'slots').replace('Rows', 'Queries').replace('columns', 'keys') +
           ' Choose a query (← → in the list), then a key (↑ ↓ in the table, Enter) to see its vectors feature by feature.');
    el('div', {class: 'equation'}, root, map.kind + ':  ' + (EQUATIONS[map.kind] || 'softmax over keys') +
       (map.window ? '\nwindow [' + map.window[0] + ', ' + map.window[1] + ']: query i sees keys i − ' + map.window[0] +
                     ' … i + ' + map.window[1] + ' only' : ''));
    X.legend(root, 'diverging', 1, 'a feature of a vector, scaled to the vector\u2019s largest |x|: blue < 0, white 0, ' +
             'red > 0; the bars: the weight, 0 … 1');
    var chooser = el('div', {class: 'queries', role: 'group', 'aria-label': 'query'}, root);
    el('span', {class: 'label'}, chooser, 'query ');
    var buttons = queries.map(function (q, i) {
      var b = el('button', {type: 'button', class: (i === n.query ? 'on' : '') + (/\?$/.test(q) ? ' unk' : ''),
                            'data-query': i, 'aria-pressed': i === n.query ? 'true' : 'false',
                            'data-key': 'query-' + i}, chooser, q);
      b.addEventListener('click', function () { n.query = i; n.key = null; redraw(); });
      return b;
    });
    X.roving(buttons, n.query);
    return {map: map, queries: queries, keys: keys};
  }
  // One row per key, its cells the kind's stages (keyRow, numberCell); `head(names)` writes the header.
  function neuronRows(body, head, map, h, i, keys) {
    var rows = [], stages = map.neuron, weights = map.weights[h][i];
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
    return rows;
  }
  function renderNeuron(root) {
    var n = X.state.neuron, top = neuronHeader(root), map = top.map, queries = top.queries, keys = top.keys;
    var h = n.head, i = n.query, stages = map.neuron || {}, weights = map.weights[h][i];
    if (!stages.q) { el('p', {class: 'empty'}, root, 'This map was recorded without its stages.'); return; }
    kindLine(root, map, h, i, keys);
    // The chosen key: the clicked one, else the one the query reads most.
    var key = n.key !== null && n.key < keys.length ? n.key : weights.indexOf(Math.max.apply(null, weights));
    var table = el('table', {class: 'numbers', id: 'neuron-table', role: 'grid', 'aria-label': 'the keys of query ' + queries[i], 'data-kind': map.kind, 'data-map': X.data.maps.indexOf(map),
                             'data-head': h, 'data-query': i}, el('div', {class: 'scroll'}, root));
    var header = el('tr', {}, el('thead', {}, table));
    var body = el('tbody', {}, table);
    function head(names) { names.forEach(function (name) { el('th', {}, header, name); }); }
    var rows = neuronRows(body, head, map, h, i, keys);
    rows.forEach(function (row, j) {
      el('div', {style: 'width:' + (100 * weights[j]).toFixed(1) + '%'}, el('td', {class: 'bar'}, row));
      row.classList.toggle('chosen', j === key);
      row.setAttribute('aria-selected', j === key ? 'true' : 'false');
      row.setAttribute('data-key', 'neuron-key-' + j);
      X.operable(row, 'key ' + keys[j] + ': weight ' + fmt(weights[j], 3) + '; show its vectors',
                 function () { n.key = j; X.redraw('neuron'); }, false);
      row.setAttribute('role', 'row');
    });
    X.roving(rows, key, {next: ['ArrowDown'], previous: ['ArrowUp']});
    if (map.kind === 'sagan' && stages.gamma) {
      el('p', {class: 'hint'}, root, 'γ = ' + fmt(stages.gamma[0]) + ': this layer adds γ · Σ_j weight_ij v_j to ' +
         'its input (γ starts at 0, so the gate shows how much attention the layer learned to use).');
    }
    neuronVectors(root, map, h, i, key, queries[i], keys[key]);
  }
  // The vectors behind the chosen key's score, feature by feature (red > 0, blue < 0, white 0).
  function neuronVectors(root, map, h, i, key, query, keyLabel) {
    var stages = map.neuron;
    var vectors = el('div', {class: 'vectors'}, root);
    el('h3', {}, vectors, 'query \u201c' + query + '\u201d and key \u201c' + keyLabel + '\u201d, feature by feature');
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

  X.views.neuron = {title: 'Neuron view', render: renderNeuron};
})();
