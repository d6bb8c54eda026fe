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
    if (X.isLanguageModel()) {   // one text, no source (generate.js)
      X.hint(root, 'Step ' + (t + 1) + ': the position that reads \u201c' + step.reads + '\u201d (and the tokens ' +
             'before it, through masked self-attention) predicts the next token; the text has \u201c' + step.chosen +
             '\u201d there (p = ' + step.p.toFixed(3) + '). Why one token and not another is asked of a source\u2019s ' +
             'words: that contrast is for translation runs.', 'decoding-hint');
    } else X.hint(root, 'Step ' + (t + 1) + ': the decoder position that reads \u201c' + step.reads + '\u201d (and the ' +
           'tokens before it) looks at the source through cross-attention, and the translation continues with \u201c' +
           step.chosen + '\u201d (p = ' + step.p.toFixed(3) + '). The table is that position\u2019s row of every ' +
           'cross-attention map: a cell per source token, its colour and number the weight.', 'decoding-hint');
    X.legend(root, 'heat', 1, 'weight: white 0, dark blue 1; the bars: the probability of each next token');
    var panels = el('div', {class: 'panels'}, root);
    crossRow(panels, t);
    likeliest(panels, step);
    beamPanel(panels, t);
    if (!X.isLanguageModel()) contrastPanel(root, t, step);
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
      if (choice.token === step.chosen || X.isLanguageModel()) return;   // no contrast without a source
      var why = el('button', {type: 'button', class: 'chip why-not', 'data-key': 'alt-' + choice.token,
                              'aria-pressed': X.state.alternative === choice.token ? 'true' : 'false',
                              'aria-label': 'why ' + step.chosen + ' and not ' + choice.token + '?'}, item, 'why not?');
      why.addEventListener('click', function () { X.state.alternative = choice.token; X.redraw('decoding'); });
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

  // ---- contrast: why this token and not that one? ----
  // At step t the model chose c; "why not a?" is the gap Δ = log p(c) − log p(a) attributed to the source words by
  // integrated gradients (src/inspect/maps/contrast.h): Δ(e) = Δ(0) + Σ_s IG_s + error, Δ(0) the gap with every
  // source embedding zero — what the target prefix alone says. The page shows the split, its completeness check,
  // each source word's part, and ALTI+'s split of the position between source and target prefix. The numbers:
  // offline, attention.json's "contrasts" (attnlab attention --contrast); under serve, asked of api/contrast.
  var contrastAnswers = {};   // serve's answers, by question: the request's fields as JSON
  function contrastPanel(root, t, step) {
    var panel = el('div', {class: 'panel contrast', id: 'contrast', 'aria-live': 'polite'}, root);
    el('h4', {}, panel, 'why \u201c' + step.chosen + '\u201d and not another token?');
    var alternative = X.state.alternative;
    contrastForm(panel, step, alternative);
    if (alternative === null) {
      el('p', {class: 'hint'}, panel, 'Press \u201cwhy not?\u201d beside a token above' +
         (X.config.mode === 'serve' ? ', or type any token of the target vocabulary,' : '') + ' to see which ' +
         'source words made the model prefer \u201c' + step.chosen + '\u201d to it.');
      return;
    }
    if (alternative === step.chosen) {
      el('p', {class: 'hint', id: 'contrast-note'}, panel, '\u201c' + alternative + '\u201d is the token chosen at ' +
         'this step: choose another to contrast it with.');
      return;
    }
    var found = (X.data.contrasts || []).filter(function (c) { return c.position === t && c.alternative === alternative; });
    if (found.length) return drawContrast(panel, found[0]);
    if (X.config.mode !== 'serve') {
      el('p', {class: 'hint', id: 'contrast-note'}, panel, 'This page holds no contrast of \u201c' + step.chosen +
         '\u201d with \u201c' + alternative + '\u201d at position ' + t + ': write it with attnlab attention \u2026 ' +
         '--contrast ' + t + ':' + alternative + ' (or --contrast all: the five likeliest tokens of every step), or ' +
         'open the sentence under attnlab serve, which computes any contrast asked.');
      return;
    }
    askContrast(panel, t, alternative);
  }
  // The alternatives: the buttons above, and under serve a field for any token.
  function contrastForm(panel, step, alternative) {
    if (X.config.mode !== 'serve') return;
    var form = el('form', {class: 'controls', id: 'contrast-form'}, panel);
    el('label', {class: 'label', for: 'contrast-token'}, form, 'not');
    var field = el('input', {id: 'contrast-token', 'data-key': 'contrast-token', size: 12, value: alternative || '',
                             'aria-label': 'a token to contrast with \u201c' + step.chosen + '\u201d'}, form);
    el('button', {type: 'submit', class: 'chip', 'data-key': 'contrast-ask'}, form, 'why not?');
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      X.state.alternative = field.value.trim() || null;
      X.redraw('decoding');
    });
  }
  // Under serve: the contrast asked of api/contrast on the pair shown (its translation forced), drawn on answer.
  function askContrast(panel, t, alternative) {
    var sent = X.serveParams(), ig = Number(document.getElementById('ask-ig').value) || 16;
    var body = {run: Number(sent.run || 0), text: X.data.source, target: X.data.target, position: t,
                alternative: alternative, ig_steps: Math.min(ig, X.config.limits ? X.config.limits.ig_steps : ig)};
    var key = JSON.stringify(body), answer = contrastAnswers[key];
    if (answer && answer.error) {
      el('p', {class: 'hint', id: 'contrast-note', 'data-state': 'error'}, panel, answer.error);
      return;
    }
    if (answer) return drawContrast(panel, answer);
    el('p', {class: 'hint', id: 'contrast-note', 'data-state': 'busy'}, panel, 'computing the contrast\u2026');
    if (answer === null) return;                        // asked already, not answered yet
    contrastAnswers[key] = null;
    fetch('api/contrast', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: key})
      .then(function (response) { return response.json(); })
      .catch(function (error) {                         // the live page (live.js) answers api/translate only
        return {error: 'no answer to api/contrast (' + error.message + '): the contrast is computed by attnlab ' +
                       'serve, or written into the page by attnlab attention --contrast'};
      })
      .then(function (result) {
        contrastAnswers[key] = result;
        if (X.state.view === 'decoding' && X.state.step === t && X.state.alternative === alternative) {
          X.redraw('decoding');
        }
      });
  }
  function drawContrast(panel, c) {
    var explained = c.gap - c.baseline_gap, tolerance = 2e-3 + 1e-2 * Math.abs(explained);
    var ok = Math.abs(c.completeness_error) <= tolerance;
    panel.setAttribute('data-contrast', c.position + ':' + c.alternative);
    el('p', {id: 'contrast-gap'}, panel, 'log p(\u201c' + c.chosen + '\u201d) \u2212 log p(\u201c' + c.alternative +
       '\u201d) = ' + fmt(c.gap, 4) + ' nats (p = ' + fmt(c.p_chosen, 4) + ' against ' + fmt(c.p_alternative, 4) +
       '; above 0: the model prefers \u201c' + c.chosen + '\u201d).');
    el('p', {id: 'contrast-split'}, panel, 'The gap = ' + fmt(c.baseline_gap, 4) + ' with every source word zeroed ' +
       '(what the target prefix alone says) + ' + fmt(c.source_part, 4) + ' from the source words (the sum of ' +
       'their integrated gradients) + error ' + fmt(c.completeness_error, 4) + '.');
    el('p', {id: 'contrast-check', 'data-ok': ok ? '1' : '0', class: ok ? 'meta' : 'meta why'}, panel,
       'Completeness: \u03a3 IG = ' + fmt(c.source_part, 4) + ', \u0394(e) \u2212 \u0394(0) = ' + fmt(explained, 4) +
       ', error ' + fmt(c.completeness_error, 4) + (ok ? ' \u2713 within ' : ' \u2717 more than ') +
       fmt(tolerance, 4) + ' (2\u00b710\u207b\u00b3 + 1 % of it; m = ' + c.steps + ' steps, the error falls like ' +
       '1/m\u00b2' + (ok ? ')' : ': take more steps)'));
    var sourceShare = Math.abs(c.source_part) / (Math.abs(c.source_part) + Math.abs(c.baseline_gap) || 1);
    el('p', {id: 'contrast-share'}, panel, 'Of the gap, the source words carry ' + (100 * sourceShare).toFixed(0) +
       ' %, the target prefix ' + (100 - 100 * sourceShare).toFixed(0) + ' % (|\u03a3 IG| against |\u0394(0)|). ' +
       (c.alti_plus.error ? 'ALTI+ could not split this position: ' + c.alti_plus.error
        : 'ALTI+, not contrastive: ' + (100 * c.alti_plus.source).toFixed(0) + ' % of what this position holds ' +
          'came from the source, ' + (100 * c.alti_plus.target_prefix).toFixed(0) + ' % from the target prefix.'));
    contrastTable(panel, c);
  }
  // A row per source token: its integrated gradient and gradient × input, red for "towards the chosen token".
  function contrastTable(panel, c) {
    var largest = X.largest(c.integrated_gradients.map(Math.abs).concat(c.gradient_x_input.map(Math.abs)));
    X.legend(panel, 'diverging', largest, 'part of the gap: red towards \u201c' + c.chosen + '\u201d, blue towards \u201c' +
             c.alternative + '\u201d');
    var table = el('table', {class: 'numbers', id: 'contrast-table'}, el('div', {class: 'scroll'}, panel));
    var header = el('tr', {}, table);
    ['source token', 'integrated gradients', 'gradient \u00d7 input'].forEach(function (name) { el('th', {}, header, name); });
    X.sourceLabels(X.data).forEach(function (token, s) {
      var row = el('tr', {'data-s': s}, table);
      el('td', {}, row, token);
      [c.integrated_gradients[s], c.gradient_x_input[s]].forEach(function (x) {
        el('td', {'data-value': x, style: 'background:' + X.diverging(x, largest)}, row, fmt(x, 4));
      });
    });
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
