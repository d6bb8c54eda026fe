// cloze.js — the explorer's cloze view: a reading-comprehension reader's attention (cloze.json, the schema at
// cloze_json() in src/inspect/maps/cloze_maps.cpp) for one question "<document> @query <query with @placeholder>".
//   attention sum (Kadlec et al. 2016)         s_i = softmax_i(d_i · q): one attention over the document
//   attention over attention (Cui et al. 2017) M = D Qᵀ [n, m];  α = softmax over document positions of each
//       column (each column sums to 1);  β = softmax over query words of each row (each row sums to 1);
//       β̄ = the mean of β's rows [m];  s = α β̄ᵀ [n]
// and P(word) = Σ_{i: d_i = word} s_i, the answer the word of highest P.
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el;
  var TEXT = {
    alpha: 'α: for each query word (a column), where in the document it looks \u2014 a softmax over the document ' +
      'positions, so each column sums to 1.',
    beta: 'β: for each document word (a row), which query words it matches \u2014 a softmax over the query words, so ' +
      'each row sums to 1.',
    beta_mean: 'β̄: β averaged over the document: how much each query word\u2019s column of α counts in the end ' +
      '(the attention over the attentions).',
    s: 's: the reader\u2019s attention over the document (aoa: s = α β̄ᵀ, each query word\u2019s column of α weighted ' +
      'by β̄; as: the softmax of d_i · q). A word\u2019s probability as the answer is the sum of s over its places.'
  };
  var PICTURES = [['all', 'all four'], ['alpha', 'α'], ['beta', 'β'], ['beta_mean', 'β̄'], ['s', 's']];

  function labelled(words, unknown) {
    return words.map(function (w, i) { return unknown && unknown[i] ? w + '?' : w; });
  }
  // The card above the tabs: the question, the reader's answer and the likeliest words.
  X.clozeSentence = function (root) {
    var data = X.data;
    X.tokenRow(root, 'document', labelled(data.document, data.document_unknown), '', data.document_unknown || []);
    X.tokenRow(root, 'query', labelled(data.query, data.query_unknown), '', data.query_unknown || []);
    el('div', {class: 'meta', id: 'cloze-answers'}, root, 'answers by P: ' + data.answers.map(function (a) {
      return a.word + ' ' + a.p.toFixed(3);
    }).join(' · '));
    el('div', {class: 'meta'}, root, 'weights of ' + data.checkpoint + ' (step ' + data.step + ') · reader: ' +
       (data.reader === 'aoa' ? 'attention over attention' : 'attention sum'));
  };
  // One picture: a caption that wraps (never cut), a line of what it shows, the heatmap (grid keys: arrows).
  function picture(parent, id, title, matrix, rows, cols, scale) {
    var box = el('figure', {class: 'flow-figure cloze-figure', 'data-cloze': id}, parent);
    el('figcaption', {}, box, title);
    var paint = function (x) { return X.heat(scale > 0 ? x / scale : 0); };
    box.appendChild(X.heatmapSvg(matrix, rows, cols, matrix[0].length > 24 ? 12 : 20, undefined, paint, title));
    return box;
  }
  X.views.cloze = {title: 'Cloze view', render: function (root) {
    var data = X.data, aoa = !!data.alpha, state = X.state;
    state.cloze = state.cloze || {picture: 'all', word: null};
    var controls = el('div', {class: 'controls'}, root);
    var options = aoa ? PICTURES : [['s', 's']];
    if (!aoa) state.cloze.picture = 's';
    X.segmented(controls, 'show', options, state.cloze.picture, function (v) { state.cloze.picture = v; X.redraw('cloze'); });
    X.hint(root, 'Which document word fills the @placeholder? ' + (aoa ? 'The attention-over-attention reader ' +
           'compares every document word with every query word, then weighs the query words. ' : 'The attention-sum ' +
           'reader attends once over the document. ') + 'Rows are document words, columns query words (β̄: the ' +
           'query words; s: the document words). A word followed by \u201c?\u201d is unknown: the model read <unk>. ' +
           'Point at a cell, or Tab to a picture and use the arrow keys, to read it; choose a document word below ' +
           '(← → and Enter) to see its numbers.', 'cloze-hint');
    X.legend(root, 'heat', 1, 'weight: white 0, dark blue the largest (α, β: 1; β̄ and s: their own largest, below)');
    var doc = labelled(data.document, data.document_unknown), query = labelled(data.query, data.query_unknown);
    var shown = state.cloze.picture, row = el('div', {class: 'side-by-side'}, root);
    [['alpha', data.alpha, doc, query, 1], ['beta', data.beta, doc, query, 1],
     ['beta_mean', data.beta_mean && [data.beta_mean], ['β̄'], query, X.largest(data.beta_mean || [])],
     ['s', [data.s], ['s'], doc, X.largest(data.s)]].forEach(function (p) {
      if (!p[1] || (shown !== 'all' && shown !== p[0])) return;
      var box = picture(row, p[0], TEXT[p[0]].split(':')[0] + (p[4] !== 1 ? ' (darkest = ' + p[4].toFixed(3) + ')' : ''),
                        p[1], p[2], p[3], p[4]);
      el('p', {class: 'hint'}, box, TEXT[p[0]]);
    });
    wordChooser(root, data, doc, query);
  }};
  // The document's words as a roving list; the chosen word's s, α row and β row in numbers.
  function wordChooser(root, data, doc, query) {
    var state = X.state.cloze, chooser = el('div', {class: 'queries', role: 'group', 'aria-label': 'document word'}, root);
    el('span', {class: 'label'}, chooser, 'document word ');
    var chosen = state.word === null ? data.s.indexOf(Math.max.apply(null, data.s)) : Math.min(state.word, doc.length - 1);
    var buttons = doc.map(function (w, i) {
      var b = el('button', {type: 'button', class: i === chosen ? 'on' : '', 'data-word': i, 'data-key': 'word-' + i,
                            'aria-pressed': i === chosen ? 'true' : 'false'}, chooser, w);
      b.addEventListener('click', function () { state.word = i; X.redraw('cloze'); });
      return b;
    });
    X.roving(buttons, chosen);
    var table = el('table', {class: 'numbers', id: 'cloze-word', 'data-word': chosen}, el('div', {class: 'scroll'}, root));
    var header = el('tr', {}, table);
    ['', 's_i'].concat(data.alpha ? query.map(function (q) { return 'α · ' + q; }) : []).forEach(function (h) {
      el('th', {}, header, h);
    });
    var line = el('tr', {}, table);
    el('td', {}, line, doc[chosen]);
    el('td', {'data-value': data.s[chosen]}, line, X.fmt(data.s[chosen]));
    (data.alpha ? data.alpha[chosen] : []).forEach(function (a) { el('td', {'data-value': a}, line, X.fmt(a)); });
    if (data.beta) {
      var betaLine = el('tr', {}, table);
      el('td', {}, betaLine, 'β of it');
      el('td', {}, betaLine, '');
      data.beta[chosen].forEach(function (b) { el('td', {'data-value': b}, betaLine, X.fmt(b)); });
    }
  }
})();
