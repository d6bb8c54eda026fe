// flow.js — the explorer's flow view: where information flows, beyond one head's raw weights.
//
// Its numbers are data.flow and data.maps[m].value_norms of attention.json, computed in C++ (src/inspect/maps/flow.h):
//   rollout      Ã = 0.5·Ā + 0.5·I per layer (Ā the mean of the heads, rows renormalised), composed through the
//                encoder, then the decoder's self- and cross-attention: flow.rollout.decoder_source[t][s] is the
//                share of what decoder position t holds that came from source token s (Abnar & Zuidema 2020)
//   value norms  ‖α_ij · f_h(x_j)‖, the length of what head h actually moves from key j (Kobayashi et al. 2020)
//   gradient × input and integrated gradients of log p(target token t) to the source token embeddings,
//                flow.attribution.{gradient_x_input, integrated_gradients}[t][s], with m steps and the
//                completeness error Σ_s IG − (log p(e) − log p(0)) of each row
// The page only draws them, with the helpers of common.js and controls.js (`api` below). When the sentence has a
// gold alignment, every picture of decoder rows × source columns outlines it and names its AER (gold.js).
(function () {
  'use strict';
  var MEASURES = [['rollout', 'rollout'], ['norms', 'value norms'], ['gxi', 'gradient × input'],
                  ['ig', 'integrated gradients'], ['four', 'the four side by side']];
  var TEXT = {
    rollout: 'Attention rollout (Abnar & Zuidema 2020): each layer passes on half of what it attends to and half of ' +
      'what it already held (the residual), Ã = 0.5·Ā + 0.5·I with Ā the mean of the heads. Multiplying the layers ' +
      '— encoder self-attention, then each decoder layer\u2019s self- and cross-attention — gives, for the position ' +
      'that predicts each target token (rows), the share of its content that came from each source token (columns) ' +
      'and from each earlier target token (right). A row of both pictures together sums to 1.',
    norms: 'Value-weighted norms (Kobayashi et al. 2020): what a head adds to a query from a key is the vector ' +
      'α_ij · f(x_j), f(x_j) = v_j W_Oᵀ restricted to the head; its length, not α_ij alone, says how much moved. ' +
      'A large weight on a short vector (often the last token or a full stop) moves little. Left the weights, ' +
      'right the norms, each coloured from 0 to its own largest number.',
    gxi: 'Gradient × input: for each target token (rows), e_s · ∂ log p(token)/∂e_s for every source token embedding ' +
      'e_s (columns). Red raised the token\u2019s log-probability, blue lowered it, to first order around the ' +
      'sentence as it is. Cheap, but only local: a saturated softmax can hide a word the output depends on.',
    ig: 'Integrated gradients (Sundararajan et al. 2017): the gradient averaged along the straight path from the ' +
      'baseline (every source token embedding 0, positions kept) to the sentence, times the embedding. Each row ' +
      'sums to log p(e) − log p(baseline) up to the error shown at its end (m midpoint steps: the error falls ' +
      'like 1/m²).',
    four: 'The four answers to \u201cwhich source words did this target token come from?\u201d, side by side, each ' +
      'row scaled to its own largest magnitude: rollout (shares of the residual stream), the cross-attention value ' +
      'norms (mean over layers and heads), and the sizes |·| of gradient × input and integrated gradients. Where ' +
      'they agree the answer is robust; where they disagree, read the guide\u2019s \u201cwhen the four disagree\u201d.'
  };
  var AXES = ' Rows: each decoder position, named by the token it predicts; columns: the source tokens (a word ' +
    'followed by \u201c?\u201d is unknown: the model read <unk>). Tab to a picture and use the arrow keys to read its cells.';

  var X = window.attnlabExplorer;
  X.views.flow = {title: 'Flow view', render: function (root) {
    var api = {data: X.data, state: X.state, el: X.el, heat: X.heat, diverging: X.diverging, fmt: X.fmt, sum: X.sum,
               range: X.range, largest: X.largest, serve: X.config.mode === 'serve', legend: X.legend,
               labels: X.labels, heatmapSvg: X.heatmapSvg, segmented: X.segmented, selector: X.selector,
               typeOptions: X.typeOptions, rerender: function () { X.redraw('flow'); }};
    flowView(api, root);
  }};
  function flowView(api, root) {
    var data = api.data, state = api.state, el = api.el;
    var flow = data.flow || {};
    if (!state.flow) state.flow = {measure: 'rollout', type: 'cross', layer: 0, head: -1};
    var f = state.flow;
    var controls = el('div', {class: 'controls'}, root);
    api.segmented(controls, 'measure', MEASURES, f.measure, function (v) { f.measure = v; api.rerender(); });
    if (X.isLanguageModel() && f.measure !== 'rollout' && f.measure !== 'norms') {   // generate.js
      el('p', {class: 'empty', id: 'flow-translation-only'}, root, 'Gradient attribution and the four answers side ' +
         'by side trace a target token back to the source words: they are for translation runs. A language ' +
         'model\u2019s flow view has the rollout over its text and the value norms.');
      return;
    }
    el('p', {class: 'hint', id: 'flow-text'}, root, TEXT[f.measure] + (f.measure === 'norms' ? '' : AXES));
    X.goldLegend(root);
    var source = X.sourceLabels(data), output = data.tokens.target_output, input = data.tokens.target_input;
    var cell = Math.max(source.length, output.length) > 24 ? 10 : 18;
    var c = {api: api, el: el, data: data, flow: flow, f: f, cell: cell, source: source, output: output};
    if (f.measure === 'rollout') {
      var shares = flow.rollout;
      if (!shares) { el('p', {class: 'empty'}, root, 'This attention.json has no rollout (an older schema).'); return; }
      var largest = api.largest(shares.decoder_source.concat(shares.decoder_target));
      api.legend(root, 'heat', largest, 'share of the position\u2019s content');
      var row = el('div', {class: 'side-by-side'}, root);
      figure(c, row, 'decoder position → source token', shares.decoder_source, output, source, largest, undefined,
             'rollout');
      figure(c, row, 'decoder position → target input token', shares.decoder_target, output, input, largest);
      figure(c, row, 'encoder output → source token', shares.encoder, source, source, api.largest(shares.encoder));
    } else if (f.measure === 'norms') {
      renderNorms(c, root);
    } else if (f.measure === 'gxi' || f.measure === 'ig') {
      renderAttribution(c, root, f.measure === 'ig' ? 'integrated_gradients' : 'gradient_x_input');
    } else {
      renderFour(c, root);
    }
  }

  // One picture with its caption; `colour` paints a number (default: heat of x / scale). `method`: for a picture of
  // decoder rows × source columns, the gold's outlines and, when `method` names a scored view, its AER (gold.js);
  // undefined for the other pictures.
  function figure(c, parent, title, matrix, rows, cols, scale, colour, method) {
    var api = c.api, el = c.el;
    var box = el('figure', {class: 'flow-figure', 'data-flow': title}, parent);
    el('figcaption', {}, box, title);
    var paint = colour || function (x) { return api.heat(scale > 0 ? x / scale : 0); };
    var svg = box.appendChild(api.heatmapSvg(matrix, rows, cols, c.cell, undefined, paint, title));
    if (method !== undefined) X.goldOn(svg, box, method);
    return box;
  }
  function renderNorms(c, parent) {
    var api = c.api, el = c.el, data = c.data, f = c.f;
    var maps = data.maps.filter(function (m) { return m.type === f.type && m.value_norms; });
    var controls2 = el('div', {class: 'controls'}, parent);
    api.segmented(controls2, 'attention', api.typeOptions(false), f.type, function (v) { f.type = v; api.rerender(); });
    var map = maps.filter(function (m) { return m.layer === f.layer; })[0] || maps[0];
    if (!map) { el('p', {class: 'empty'}, parent, 'No value norms were recorded for this attention.'); return; }
    api.selector(controls2, 'layer', maps.map(function (m) { return [m.layer, 'layer ' + m.layer]; }), map.layer,
                 function (v) { f.layer = Number(v); api.rerender(); }, 'flow-layer');
    api.selector(controls2, 'head', [[-1, 'mean of heads']].concat(api.range(map.heads).map(function (h) {
      return [h, 'head ' + h]; })), f.head, function (v) { f.head = Number(v); api.rerender(); }, 'flow-head');
    var heads = f.head < 0 || f.head >= map.heads ? api.range(map.heads) : [f.head];
    var weights = meanOf(map.weights, heads), norms = meanOf(map.value_norms, heads);
    api.legend(parent, 'heat', api.largest([].concat.apply([], norms)), 'length ‖α f(x)‖ (right); weight α (left, 0 … 1)');
    var row = el('div', {class: 'side-by-side'}, parent);
    var q = api.labels(map, 'q'), k = api.labels(map, 'k');
    el('p', {class: 'hint'}, parent, X.axisText(map.type, map.keys === 'slots'));
    var mean = heads.length === map.heads, cross = map.type === 'cross' && map.keys === 'source';
    figure(c, row, 'weights α', weights, q, k, 1, undefined,
           cross ? 'cross.l' + map.layer + (mean ? '.mean' : '.h' + heads[0]) : undefined);
    figure(c, row, 'value-weighted norms ‖α · f(x)‖', norms, q, k, api.largest([].concat.apply([], norms)), undefined,
           cross ? (mean ? 'value_norms.l' + map.layer : null) : undefined);
  }
  function renderAttribution(c, parent, field) {
    var api = c.api, el = c.el, flow = c.flow, output = c.output, source = c.source;
    var a = flow.attribution;
    if (!a) {
      el('p', {class: 'empty'}, parent, api.serve
        ? 'No gradient attribution in this answer: set \u201cIG steps\u201d above (16 is a good start) and translate ' +
          'again. It costs one forward and backward pass of steps + 2 copies of the sentence per target token.'
        : 'No gradient attribution in this data: it was written with --ig-steps 0.');
      return;
    }
    var matrix = a[field], scale = api.largest(matrix.map(function (r) { return r.map(Math.abs); }));
    api.legend(parent, 'diverging', scale, field === 'integrated_gradients'
      ? 'attribution to log p (red raises it, blue lowers it), ' + a.steps + ' steps' : 'attribution to log p (red raises it, blue lowers it)');
    var row = el('div', {class: 'side-by-side'}, parent);
    figure(c, row, field === 'integrated_gradients' ? 'integrated gradients' : 'gradient × input', matrix, output, source,
           scale, function (x) { return api.diverging(x, scale); }, field);
    var table = el('table', {class: 'grid', id: 'completeness'}, el('div', {class: 'scroll'}, row));
    var header = el('tr', {}, table);
    ['target token', 'Σ_s', 'log p(e)', 'log p(0)', field === 'integrated_gradients' ? 'completeness error' : '']
      .forEach(function (h) { el('th', {}, header, h); });
    output.forEach(function (token, t) {
      var line = el('tr', {}, table);
      el('th', {class: 'rowhead'}, line, token);
      el('td', {}, line, api.fmt(api.sum(matrix[t]), 3));
      el('td', {}, line, api.fmt(a.log_prob[t], 3));
      el('td', {}, line, api.fmt(a.baseline_log_prob[t], 3));
      el('td', {}, line, field === 'integrated_gradients' ? api.fmt(a.completeness_error[t], 4) : '');
    });
  }
  function renderFour(c, parent) {
    var api = c.api, el = c.el, data = c.data, flow = c.flow, output = c.output, source = c.source;
    var pictures = [];
    if (flow.rollout) pictures.push(['rollout', flow.rollout.decoder_source, 'rollout']);
    var cross = data.maps.filter(function (m) { return m.type === 'cross' && m.value_norms && m.keys === 'source'; });
    if (cross.length) {
      var norms = output.map(function (_, t) {
        return source.map(function (_, s) {
          var total = 0, n = 0;
          cross.forEach(function (m) { m.value_norms.forEach(function (h) { total += h[t][s]; n += 1; }); });
          return total / n;
        });
      });
      pictures.push(['cross-attention value norms', norms, null]);   // the mean over layers: outlined, not scored
    }
    if (flow.attribution) {
      pictures.push(['|gradient × input|', flow.attribution.gradient_x_input, 'gradient_x_input']);
      pictures.push(['|integrated gradients|', flow.attribution.integrated_gradients, 'integrated_gradients']);
    }
    api.legend(parent, 'heat', 1, 'each row scaled to its largest magnitude');
    var row = el('div', {class: 'side-by-side'}, parent);
    pictures.forEach(function (p) {
      var scaled = p[1].map(function (r) {
        var top = api.largest(r.map(Math.abs));
        return r.map(function (x) { return top > 0 ? Math.abs(x) / top : 0; });
      });
      figure(c, row, p[0], scaled, output, source, 1, undefined, p[2]);
    });
  }
  function meanOf(byHead, heads) {
    return byHead[0].map(function (r, i) {
      return r.map(function (_, j) {
        var total = 0;
        heads.forEach(function (h) { total += byHead[h][i][j]; });
        return total / heads.length;
      });
    });
  }
})();
