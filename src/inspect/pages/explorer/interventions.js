// interventions.js — the interventions panel of the explorer under `attnlab serve` and in the live page: switch
// heads off (their output zeroed) and read source words as <unk>, translate again, and see the new translation and
// its log-probability beside the original's, with the maps of both (src/model/intervention.h says what each
// intervention means; the server takes them in its "interventions" field, src/cli/serve/explorer_api.h, as
// `attnlab translate --intervene` does; in the live page the browser build answers the same field, web/engine.cpp,
// but for swap:…, which needs checkpoints the page does not hold). explorer.js calls X.renderInterventions()
// whenever a sentence is drawn.
// State: the chosen SPECs are X.state.interventions, kept in the address as intervene=SPEC,SPEC (explorer.js); a
// link that has them translates with them as soon as its sentence is drawn. The result saves as an SVG picture.
// Keyboard: every control is a native select or button (Tab, Space, Enter); the mask buttons say aria-pressed, the
// status line is aria-live.
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el;
  var USE_WORDS = {cross: 'cross', encoder_self: 'encoder', decoder_self: 'decoder'};
  var result = null;     // {source, specs, answer}: the newest answer, for the sentence it answers
  var chosenFor = null;  // the source sentence the chosen interventions are for
  var requests = 0;      // an answer is drawn only when it answers the newest request (as serve.js)
  var picked = {use: 'cross', layer: '0', head: '0'};   // the head selects, kept when the panel is drawn again

  // The SPECs asked for, in the order chosen ("ablate:cross:1.3", "mask:source:2"): the page's state.
  function chosen() { return X.state.interventions; }
  function toggle(spec) {
    var at = chosen().indexOf(spec);
    if (at >= 0) chosen().splice(at, 1); else chosen().push(spec);
    X.renderInterventions();
    X.saveState();
  }

  // ---- the address: intervene=SPEC,SPEC (explorer.js reads and writes it through these) ----
  // The SPECs the panel makes: ablate:USE:L.H (L, H a number or *; ablate:USE:* every head of every layer) and
  // mask:source:S. A swap is not offered by the panel (attnlab translate --intervene swap:… has it).
  var SPEC_FORM = /^(ablate:(cross|encoder|decoder):(\*|(\d+|\*)\.(\d+|\*))|mask:source:\d+)$/;
  X.INTERVENE_FORMS = 'SPECs separated by commas: ablate:USE:L.H (USE cross, encoder or decoder; L, H a number ' +
                      'or *) or mask:source:S, as ablate:cross:0.1,mask:source:2';
  // The SPECs of the address's value, or null when one is not of the panel's forms.
  X.readInterventions = function (value) {
    var specs = value === '' ? [] : value.split(',');
    return specs.every(function (spec) { return SPEC_FORM.test(spec); }) ? specs : null;
  };
  // The chosen SPECs this sentence and model cannot take (a layer, head or word it lacks): [{key, value, allowed}].
  X.interventionsOutside = function () {
    var USES = {cross: 'cross', encoder: 'encoder_self', decoder: 'decoder_self'}, words = X.sourceLabels(X.data);
    return chosen().filter(function (spec) {
      var parts = spec.split(':'), maps = parts[0] === 'ablate' ? X.mapsOf(USES[parts[1]]) : [];
      if (parts[0] === 'mask') return Number(parts[2]) >= words.length;
      var at = parts[2].split('.');
      return !maps.length || (at[0] !== '*' && Number(at[0]) >= maps.length) ||
             (at.length > 1 && at[1] !== '*' && Number(at[1]) >= maps[0].heads);
    }).map(function (spec) {
      return {key: 'intervene', value: spec, allowed: 'a head of this model (its layers and heads count from 0) or ' +
              'a word of this sentence (from 0 to ' + (words.length - 1) + ')'};
    });
  };
  function select(parent, id, label, options) {
    var wrap = el('label', {}, parent, label + ' ');
    var s = el('select', {id: id}, wrap);
    options.forEach(function (o) { el('option', {value: o[0]}, s, o[1]); });
    return s;
  }

  // "Switch a head off": attention, layer (or every layer), head (or every head), and Add.
  function headControls(root) {
    var box = el('fieldset', {}, root);
    el('legend', {}, box, 'Switch a head off (its output zeroed)');
    var use = select(box, 'iv-use', 'attention', X.presentTypes().map(function (t) { return [t, X.TYPE_TITLES[t]]; }));
    use.value = X.mapsOf(picked.use).length ? picked.use : X.presentTypes()[0];
    var layer = select(box, 'iv-layer', 'layer', []), head = select(box, 'iv-head', 'head', []);
    function fill() {
      var maps = X.mapsOf(use.value);
      [[layer, maps.length, 'layer'], [head, maps[0].heads, 'head']].forEach(function (three) {
        X.clear(three[0]);
        el('option', {value: '*'}, three[0], 'every');
        X.range(three[1]).forEach(function (i) { el('option', {value: String(i)}, three[0], String(i)); });
        three[0].value = picked[three[2]] === '*' || Number(picked[three[2]]) < three[1] ? picked[three[2]] : '0';
      });
    }
    fill();
    use.addEventListener('change', function () { picked.use = use.value; fill(); });
    layer.addEventListener('change', function () { picked.layer = layer.value; });
    head.addEventListener('change', function () { picked.head = head.value; });
    var add = el('button', {type: 'button', id: 'iv-add'}, box, 'Add');
    add.addEventListener('click', function () {
      var spec = 'ablate:' + USE_WORDS[use.value] + ':' + (layer.value === '*' && head.value === '*' ? '*'
                 : layer.value + '.' + head.value);
      if (chosen().indexOf(spec) < 0) toggle(spec);
    });
  }

  // "Mask a source word": one toggle button per source token.
  function maskControls(root) {
    var box = el('fieldset', {}, root);
    el('legend', {}, box, 'Mask a source word (read as <unk>)');
    X.sourceLabels(X.data).forEach(function (token, s) {
      var spec = 'mask:source:' + s;
      var on = chosen().indexOf(spec) >= 0;
      var b = el('button', {type: 'button', class: 'iv-mask', 'aria-pressed': on ? 'true' : 'false',
                            'aria-label': 'mask source word ' + s + ', ' + token}, box, token);
      b.addEventListener('click', function () { toggle(spec); });
    });
  }

  // The chosen interventions, each with a button that removes it, and the button that asks the server.
  function chosenList(root) {
    var list = el('ul', {id: 'iv-chosen', 'aria-label': 'chosen interventions'}, root);
    if (!chosen().length) el('li', {class: 'meta'}, list, 'none yet: the translation is the plain one');
    chosen().forEach(function (spec) {
      var item = el('li', {}, list);
      el('code', {}, item, spec);
      var remove = el('button', {type: 'button', 'aria-label': 'remove ' + spec}, item, '×');
      remove.addEventListener('click', function () { toggle(spec); });
    });
    var go = el('button', {type: 'button', id: 'iv-translate'}, root, 'Translate with these');
    go.disabled = !chosen().length;
    go.addEventListener('click', send);
    el('span', {id: 'iv-status', role: 'status', 'aria-live': 'polite'}, root);
  }

  function send() {
    var params = X.serveParams(), status = document.getElementById('iv-status');
    var body = {run: Number(params.run || 0), text: params.text, beam: Number(params.beam || 0),
                interventions: chosen().slice()};
    var request = ++requests, started = performance.now();
    status.textContent = 'translating…';
    status.setAttribute('data-state', 'busy');
    fetch('api/translate', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)})
      .then(function (response) {
        return response.json().then(function (answer) {
          if (!response.ok) throw new Error(answer.error || 'the server said no');
          return answer;
        });
      })
      .then(function (answer) {
        if (request !== requests) return;
        result = {source: X.data.source, specs: body.interventions, answer: answer,
                  seconds: (performance.now() - started) / 1000};
        X.renderInterventions();
      })
      .catch(function (error) {
        if (request !== requests) return;
        status.textContent = error.message;
        status.setAttribute('data-state', 'error');
      });
  }

  // One map as a small table of shaded cells, with its title; `map` from `from` (the data it belongs to).
  function miniMap(parent, title, map, from, heads) {
    var figure = el('figure', {class: 'iv-map'}, parent);
    el('figcaption', {}, figure, title);
    var matrix = X.meanMatrix([map], heads), rows = X.labels(map, 'q', from), cols = X.labels(map, 'k', from);
    var table = el('table', {'aria-label': title, style: 'border-collapse:collapse;font-size:11px'}, figure);
    var head = el('tr', {}, table);
    el('th', {}, head, '');
    cols.forEach(function (c) { el('th', {scope: 'col'}, head, c); });
    matrix.forEach(function (row, i) {
      var tr = el('tr', {}, table);
      el('th', {scope: 'row'}, tr, rows[i]);
      row.forEach(function (w, j) {
        el('td', {style: 'width:16px;height:16px;background:' + X.heat(w),
                  title: rows[i] + ' ← ' + cols[j] + ': ' + X.fmt(w, 3)}, tr);
      });
    });
  }

  // The answer beside the original: translations, log-probabilities, what was done, and the last cross-attention
  // layer's head mean (or the switched-off layer's) before and after; a button saves it as a picture (SVG), as the
  // views' buttons do (explorer.js's X.savePictureOf, which leaves the .view-tools out of the picture).
  function showResult(panel) {
    var a = result.answer, iv = a.intervention;
    document.getElementById('iv-status').textContent = 'answered in ' + result.seconds.toFixed(2) + ' s';
    var root = el('div', {id: 'iv-answer'}, panel), tools = el('div', {class: 'view-tools'}, root);
    var save = el('button', {type: 'button', class: 'chip save', id: 'iv-save',
                             'aria-label': 'save the interventions\u2019 result as a picture (SVG)'},
                  tools, '⤓ save picture (SVG)');
    save.addEventListener('click', function () { X.savePictureOf(root, 'interventions'); });
    var table = el('table', {id: 'iv-result'}, root);
    el('caption', {}, table, 'The same sentence, plain and with ' + result.specs.join(', '));
    var top = el('tr', {}, table);
    ['', 'plain', 'with the interventions'].forEach(function (t) { el('th', {scope: 'col'}, top, t); });
    [['translation', iv.original.translation, a.target],
     ['log p(translation | source)', X.fmt(iv.original.log_prob, 3), X.fmt(iv.log_prob, 3)]].forEach(function (r) {
      var tr = el('tr', {}, table);
      el('th', {scope: 'row'}, tr, r[0]);
      el('td', {class: 'iv-plain'}, tr, r[1]);
      el('td', {class: 'iv-new'}, tr, r[2]);
    });
    document.body.setAttribute('data-intervention', JSON.stringify({translation: a.target, log_prob: iv.log_prob,
                                                                    original: iv.original, specs: result.specs}));
    var done = el('ul', {class: 'meta'}, root);
    iv.described.forEach(function (d) { el('li', {}, done, d); });
    var cross = X.mapsOf('cross'), last = cross[cross.length - 1];
    if (!last) return;
    var after = a.maps.filter(function (m) { return m.name === last.name; })[0];
    var heads = X.range(last.heads);
    var pair = el('div', {class: 'iv-maps', style: 'display:flex;gap:24px;flex-wrap:wrap'}, root);
    miniMap(pair, 'cross-attention layer ' + last.layer + ', mean of the heads: plain', last, X.data, heads);
    miniMap(pair, '… with the interventions (a switched-off head counts as 0)', after, a, heads);
  }

  X.renderInterventions = function () {
    var root = document.getElementById('interventions');
    if (!root) return;
    root.hidden = !(X.config.mode === 'serve' && X.data && !X.isCloze() && !X.isLanguageModel());   // (generate.js)
    if (root.hidden) return;
    if (chosenFor !== X.data.source) {   // another sentence: nothing chosen, unless the address chose it
      if (!X.state.interventionsAsked) X.state.interventions = [];
      result = null;
      chosenFor = X.data.source;
    }
    // Drawn again on every change: the control that had the keyboard focus gets it back (or Add, when it is gone).
    var active = root.contains(document.activeElement) ? document.activeElement : null;
    var focused = active && (active.id || active.getAttribute('aria-label'));
    X.clear(root);
    el('h2', {id: 'interventions-title'}, root, 'Interventions');
    X.hint(root, 'Switch heads off or mask source words, then translate again: the new translation and its ' +
           'log-probability appear beside the plain ones. A switched-off head’s weights are set to 0, so its ' +
           'output is 0 (not the uniform distribution, which would still pass on the mean of the values); a ' +
           'masked word is read as <unk>. The same as attnlab translate --intervene.');
    if (window.attnlabLive) {
      X.hint(root, 'In this page (the browser build) a head and a word, not a layer swapped in from another ' +
             'checkpoint: the page holds one checkpoint of the run. attnlab serve and attnlab translate --intervene ' +
             'swap:SIDE.L=CHECKPOINT have it.', 'iv-live-note');
    }
    headControls(root);
    maskControls(root);
    chosenList(root);
    if (result) showResult(root);
    if (X.state.interventionsAsked) {   // a link with intervene=…: translated with them at once
      X.state.interventionsAsked = false;
      if (chosen().length) send();
    }
    if (focused) {
      var again = Array.prototype.filter.call(root.querySelectorAll('button, select'), function (node) {
        return node.id === focused || node.getAttribute('aria-label') === focused;
      })[0];
      (again && !again.disabled ? again : document.getElementById('iv-add')).focus();
    }
  };
})();
