// explorer.js — the explorer put together (src/inspect/pages/explorer_page.h says what each view shows): the sentence,
// the tabs, drawing a view only when it is shown, the page's state in its address, and saving a view as a picture.
// The views are in maps.js, neuron.js, steps.js, flow.js and cloze.js; serve.js asks `attnlab serve` for data.
//
// The address holds what is on screen, so a link shows the same thing: index.html#view=neuron&type=cross&layer=1
// &head=0&query=2 (and under serve &text=…&run=0&beam=1, translated when the page opens, then the rest restored).
// Fields:
//   view      head | model | matrix | neuron | decoding | flow | compare | cloze
//   type      encoder_self | decoder_self | cross | all (the open view's)    layer, head, query  numbers
//   heads     the head view's heads shown, "0,1"     pin  the head view's pinned token, "q3" or "k0"
//   means     the head view's means: "layers", "heads" or "layers,heads"
//   key       the neuron view's chosen key            zoom  the matrix view's cell size: fit, 4, 8 or 14
//   step      the decoding view's step                alt   its contrast's alternative token (steps.js)
//   measure   the flow view's (rollout, norms, gxi, ig, four)
//   frame     the film view's checkpoint, by its step (film.js)
//   show, word  the cloze view's picture (all, alpha, beta, s …) and document word
//   intervene   under serve, the interventions panel's SPECs, "ablate:cross:0.1,mask:source:2" (interventions.js)
// A value the page cannot show (measure=foo, step=-1, layer=9 in a 2-layer model) is named above the views — the
// key, the value, what it may be — and the view shows its default instead (addressProblems below).
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el;
  X.state = {view: 'head', type: 'cross', layer: 0, headsOn: [], meanHeads: false, meanLayers: false, pinned: null,
             neuron: {type: 'encoder_self', layer: 0, head: 0, query: 0, key: null}, step: 0,
             flow: {measure: 'rollout', type: 'cross', layer: 0, head: -1}, zoom: 'fit', alternative: null,
             interventions: [], interventionsAsked: false};
  // The same sentence through a second run, for the compare view ({name, data}): written into the page by
  // `attnlab attention --compare`, or asked of `attnlab serve` under "compare with".
  var comparedData = JSON.parse(document.getElementById('explorer-compared').textContent);
  X.compared = comparedData ? {name: X.config.compared_runs[1], data: comparedData} : null;
  var TRANSLATION_VIEWS = ['head', 'model', 'matrix', 'neuron', 'decoding', 'flow', 'compare', 'film'];
  var renders = 0, dirty = {};
  X.isCloze = function () { return !!(X.data && X.data.task === 'cloze'); };
  function viewsShown() {   // the film view only with a film (film.js)
    if (X.isLanguageModel()) return X.languageModelViews;   // one text, no source (generate.js)
    return X.isCloze() ? ['cloze'] : TRANSLATION_VIEWS.filter(function (v) { return v !== 'film' || X.filmAvailable(); });
  }

  // ---- the page's state in its address ----
  function params() {
    var s = X.state, v = s.view, out = {view: v};
    var typed = v === 'neuron' ? s.neuron : v === 'flow' ? s.flow : null;
    out.type = typed ? typed.type : s.type;
    out.layer = typed ? typed.layer : s.layer;
    if (v === 'neuron') { out.head = s.neuron.head; out.query = s.neuron.query; out.key = s.neuron.key; }
    if (v === 'flow') { out.head = s.flow.head; out.measure = s.flow.measure; }
    if (v === 'head') {
      out.heads = s.headsOn.map(function (on, h) { return on ? h : null; }).filter(function (h) { return h !== null; }).join(',');
      if (s.pinned) out.pin = s.pinned[0] + s.pinned[1];
      out.means = [s.meanLayers ? 'layers' : '', s.meanHeads ? 'heads' : ''].filter(Boolean).join(',');
    }
    if (v === 'matrix' && s.zoom !== 'fit') out.zoom = s.zoom;
    if (v === 'decoding') { out.step = s.step; if (s.alternative !== null) out.alt = s.alternative; }
    if (v === 'cloze' && s.cloze) { out.show = s.cloze.picture; out.word = s.cloze.word; }
    if (v === 'film' && s.filmStep !== undefined) out.frame = s.filmStep;   // the checkpoint's step (film.js)
    if (X.config.mode === 'serve' && X.data) Object.assign(out, X.serveParams());
    if (X.config.mode === 'serve' && s.interventions.length) out.intervene = s.interventions.join(',');
    return out;
  }
  X.saveState = function () {
    if (!X.data) return;   // a served page before its first answer keeps the address it was opened with
    var p = params(), text = Object.keys(p).filter(function (k) { return p[k] !== undefined && p[k] !== ''; })
      .map(function (k) { return k + '=' + encodeURIComponent(p[k]); }).join('&');
    if (location.hash.slice(1) !== text) history.replaceState(null, '', '#' + text);
    document.body.setAttribute('data-state-url', text);
  };
  // Reads the address (or `hash`, an address's part after "#") into the state; returns the fields (serve.js reads
  // text, run, beam, ig, compare). A value of the wrong form leaves the state's own and is named (addressProblems).
  X.loadState = function (hash) {
    var p = {}, s = X.state;
    (hash === undefined ? location.hash : hash).replace(/^#/, '').split('&').forEach(function (pair) {
      var at = pair.indexOf('=');
      if (at > 0) p[pair.slice(0, at)] = decodeURIComponent(pair.slice(at + 1).replace(/\+/g, ' '));
    });
    problems = [];
    var pick = function (name, allowed, what) {            // one of `allowed`, or undefined (and named)
      if (p[name] === undefined || allowed.indexOf(p[name]) >= 0) return p[name];
      problems.push({key: name, value: p[name], allowed: what || allowed.join(', ')});
    };
    var number = function (name, fallback, low) {           // an integer ≥ low, or the fallback (and named)
      if (p[name] === undefined) return fallback;
      if (/^-?\d+$/.test(p[name]) && Number(p[name]) >= low) return Number(p[name]);
      problems.push({key: name, value: p[name], allowed: 'a whole number from ' + low});
      return fallback;
    };
    s.view = pick('view', TRANSLATION_VIEWS.concat(['cloze'])) || s.view;
    var type = pick('type', ['encoder_self', 'decoder_self', 'cross', 'all']);
    if (type) {
      s.type = type;
      if (type !== 'all') s.neuron.type = s.flow.type = type;
    }
    s.layer = s.neuron.layer = s.flow.layer = number('layer', s.layer, 0);
    s.flow.head = number('head', s.flow.head, -1);
    s.neuron.head = Math.max(0, s.flow.head);
    s.neuron.query = number('query', s.neuron.query, 0);
    s.neuron.key = p.key === '' ? null : number('key', s.neuron.key, 0);
    s.step = number('step', s.step, 0);
    s.filmStep = number('frame', s.filmStep, 0);
    s.flow.measure = pick('measure', FLOW_MEASURES) || s.flow.measure;
    s.zoom = pick('zoom', X.MATRIX_ZOOMS) || s.zoom;
    if (p.alt !== undefined) s.alternative = p.alt === '' ? null : p.alt;
    loadHeadView(p, s);
    if (p.intervene !== undefined) {                        // sent with the sentence (interventions.js)
      var specs = X.readInterventions(p.intervene);
      if (specs) { s.interventions = specs; s.interventionsAsked = specs.length > 0; }
      else problems.push({key: 'intervene', value: p.intervene, allowed: X.INTERVENE_FORMS});
    }
    if (p.show !== undefined || p.word !== undefined) {
      s.cloze = s.cloze || {picture: 'all', word: null};
      s.cloze.picture = pick('show', ['all', 'alpha', 'beta', 'beta_mean', 's']) || s.cloze.picture;
      s.cloze.word = p.word === '' ? null : number('word', s.cloze.word, 0);
    }
    return p;
  };
  function loadHeadView(p, s) {
    if (p.heads !== undefined) {
      if (/^(\d+(,\d+)*)?$/.test(p.heads)) {
        var on = p.heads.split(',').map(Number);
        s.headsOn = X.range(16).map(function (h) { return on.indexOf(h) >= 0; });
      } else {
        problems.push({key: 'heads', value: p.heads, allowed: 'head numbers separated by commas, as 0,1'});
      }
    }
    if (p.pin !== undefined) {
      if (/^[qk]\d+$/.test(p.pin)) s.pinned = [p.pin[0], Number(p.pin.slice(1))];
      else problems.push({key: 'pin', value: p.pin, allowed: 'q or k and a token number, as q3 or k0'});
    }
    if (p.means !== undefined) {
      var means = p.means ? p.means.split(',') : [];
      if (means.every(function (m) { return m === 'layers' || m === 'heads'; })) {
        s.meanLayers = means.indexOf('layers') >= 0;
        s.meanHeads = means.indexOf('heads') >= 0;
      } else {
        problems.push({key: 'means', value: p.means, allowed: 'layers, heads, or layers,heads'});
      }
    }
  }
  // The flow view's measures (flow.js's MEASURES), for the address.
  var FLOW_MEASURES = ['rollout', 'norms', 'gxi', 'ig', 'four'];
  var problems = [];
  // Numbers of the address beyond this sentence (a layer the model lacks, a step past the translation's end):
  // named, and the view's own default shown instead.
  function checkAgainstData() {
    if (!X.data || X.isCloze()) return;
    var s = X.state, steps = X.data.decoding ? X.data.decoding.steps.length : 0;
    var layers = Math.max.apply(null, X.presentTypes().map(X.layerCount)), heads = X.headCount();
    var present = X.presentTypes();   // a type this model lacks (cross in a language model): its first type
    if (s.type !== 'all' && present.indexOf(s.type) < 0) s.type = present[0];
    if (present.indexOf(s.neuron.type) < 0) s.neuron.type = present[0];
    if (present.indexOf(s.flow.type) < 0) s.flow.type = present[0];
    var outside = function (key, value, limit, reset) {
      if (value < limit) return;
      problems.push({key: key, value: String(value), allowed: 'a whole number from 0 to ' + (limit - 1) +
                     ' for this sentence and model'});
      reset();
    };
    outside('layer', s.layer, layers, function () { s.layer = s.neuron.layer = s.flow.layer = 0; });
    outside('head', s.neuron.head, heads, function () { s.neuron.head = 0; s.flow.head = -1; });
    outside('step', s.step, Math.max(1, steps), function () { s.step = 0; });
    var unfit = s.interventionsAsked ? X.interventionsOutside() : [];   // the address's, not the last sentence's
    if (unfit.length) { problems.push.apply(problems, unfit); s.interventions = []; s.interventionsAsked = false; }
  }
  // The problems of the address, one line each, above the views (and in <body data-address-problems>, the keys).
  function showAddressProblems() {
    var note = document.getElementById('address-problems');
    if (!note) {
      note = el('div', {id: 'address-problems', role: 'alert', class: 'card'});
      document.getElementById('tabs').parentNode.insertBefore(note, document.getElementById('tabs'));
    }
    X.clear(note);
    note.hidden = !problems.length;
    problems.forEach(function (problem) {
      el('p', {class: 'hint', 'data-key-name': problem.key}, note, 'The address has ' + problem.key + '=\u201c' +
         problem.value + '\u201d, which this page cannot show: ' + problem.key + ' may be ' + problem.allowed +
         '. Shown instead: the default.');
    });
    document.body.setAttribute('data-address-problems', problems.map(function (q) { return q.key; }).join(','));
  }

  // ---- the sentence ----
  function renderSentence() {
    var root = X.clear(document.getElementById('sentence'));
    if (!X.data) {
      el('p', {class: 'empty'}, root, X.config.mode === 'serve' ? 'Type a sentence above and press Translate.'
                                                                : 'This page holds no sentence.');
      return;
    }
    if (X.isCloze()) { X.clozeSentence(root); return; }
    if (X.isLanguageModel()) { X.textSentence(root); return; }   // a prompt and its continuation (generate.js)
    var data = X.data;
    var how = data.target_forced ? 'given' : data.decoding && data.decoding.beam > 1
              ? 'beam search, k = ' + data.decoding.beam : 'greedy translation';
    tokenRow(root, 'source', X.sourceLabels(data), '', data.tokens.source_unknown || []);
    tokenRow(root, 'target', data.tokens.target_output, ' (' + how + ')', []);
    X.unknownNote(root);
    el('div', {class: 'meta'}, root, 'Decoder position t reads target token t − 1 (<s> first) and predicts target ' +
       'token t: in every view a decoder row is named by the token it predicts.');
    var kinds = X.presentTypes().map(function (t) { return X.TYPE_TITLES[t] + ': ' + X.mapsOf(t)[0].kind; }).join(' · ');
    el('div', {class: 'meta', id: 'kinds'}, root, 'weights of ' + data.checkpoint + ' (step ' + data.step + ') · ' + kinds);
  }
  function tokenRow(root, what, tokens, note, unknown) {
    var line = el('div', {class: 'row'}, root);
    el('span', {class: 'what'}, line, what);
    var list = el('span', {class: 'tokens'}, line);
    tokens.forEach(function (t, s) {
      el('code', unknown[s] ? {class: 'unk', title: 'not in the vocabulary: the model read <unk>'} : {}, list, t);
    });
    el('span', {class: 'meta'}, line, note);
  }
  X.tokenRow = tokenRow;

  // ---- the tabs, and drawing only the view that is shown ----
  var tabs = Array.prototype.slice.call(document.querySelectorAll('#tabs [role=tab]'));
  function showView(view) {
    if (viewsShown().indexOf(view) < 0) view = viewsShown()[0];
    X.state.view = view;
    tabs.forEach(function (tab) {
      var on = tab.getAttribute('data-view') === view, shown = viewsShown().indexOf(tab.getAttribute('data-view')) >= 0;
      tab.hidden = !shown;
      tab.classList.toggle('active', on);
      tab.setAttribute('aria-selected', on ? 'true' : 'false');
      tab.setAttribute('tabindex', on ? '0' : '-1');
    });
    document.querySelectorAll('.view').forEach(function (v) { v.classList.toggle('active', v.id === 'view-' + view); });
    document.body.setAttribute('data-view', view);
    if (dirty[view]) draw(view);
    X.hideTip();
    X.saveState();
  }
  // Draws one view into its section (a save button first); the other views wait until they are shown.
  function draw(view) {
    var root = X.clear(document.getElementById('view-' + view));
    dirty[view] = false;
    if (!X.data) { el('p', {class: 'empty'}, root, 'Nothing to show yet.'); return; }
    var tools = el('div', {class: 'view-tools'}, root);
    var save = el('button', {type: 'button', class: 'chip save', 'data-key': 'save-' + view,
                             'aria-label': 'save this view as a picture (SVG)'}, tools, '⤓ save picture (SVG)');
    save.addEventListener('click', function () { X.savePicture(view); });
    X.views[view].render(root);
    root.setAttribute('data-drawn', String(Number(root.getAttribute('data-drawn') || 0) + 1));
  }
  // Draws a view again after a control changed; the focus stays on the control (the element with the same
  // data-key), and the other views are drawn again when next shown.
  X.redraw = function (view) {
    var active = document.activeElement, key = active && active.getAttribute && active.getAttribute('data-key');
    Object.keys(X.views).forEach(function (v) { dirty[v] = true; });
    draw(view);
    if (key) {
      var again = document.getElementById('view-' + view).querySelector('[data-key="' + key + '"]');
      if (again) again.focus();
    }
    X.saveState();
  };
  X.renderAll = function () {
    checkAgainstData();
    showAddressProblems();
    renderSentence();
    X.renderInterventions();   // the interventions panel, under serve (interventions.js)
    Object.keys(X.views).forEach(function (v) { dirty[v] = true; X.clear(document.getElementById('view-' + v)); });
    showView(X.state.view);
    renders += 1;
    document.body.setAttribute('data-renders', String(renders));
    document.body.setAttribute('data-explorer-ready', X.data ? '1' : '0');
  };
  tabs.forEach(function (tab, k) {
    tab.addEventListener('click', function () { showView(tab.getAttribute('data-view')); });
    tab.addEventListener('keydown', function (event) {      // ← → Home End: the next shown tab, opened at once
      var shown = tabs.filter(function (t) { return !t.hidden; }), at = shown.indexOf(tab);
      var to = {ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: shown.length - 1}[event.key];
      if (to === undefined) return;
      event.preventDefault();
      var next = shown[(to + shown.length) % shown.length];
      showView(next.getAttribute('data-view'));
      next.focus();
    });
  });

  // ---- the large picture (model view) ----
  var modal = document.getElementById('modal'), opener = null;
  X.openModal = function (name, from) {
    opener = from || null;
    modal.hidden = false;
    modal.setAttribute('data-open', name);
    modal.querySelector('.close').focus();
  };
  function closeModal() {
    if (modal.hidden) return;
    modal.hidden = true;
    modal.setAttribute('data-open', '');
    if (opener) opener.focus();
  }
  modal.querySelector('.close').addEventListener('click', closeModal);
  modal.addEventListener('click', function (event) { if (event.target.id === 'modal') closeModal(); });
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape') closeModal();
    var inside = event.target.closest && event.target.closest('input, select, #tabs, [role=grid], [role=group]');
    if (X.state.view === 'decoding' && X.data && !event.defaultPrevented && !inside) {
      if (event.key === 'ArrowRight') { X.state.step += 1; X.redraw('decoding'); }
      if (event.key === 'ArrowLeft') { X.state.step -= 1; X.redraw('decoding'); }
    }
  });

  // ---- the current view as a picture ----
  // An SVG file holding the view as it is drawn (its HTML in a foreignObject, with the page's CSS, thumbnails
  // as PNG images): it opens in any browser and keeps the text as text. Kept in X.lastPicture for the tests.
  X.savePicture = function (view) { X.savePictureOf(document.getElementById('view-' + view), view); };
  X.savePictureOf = function (root, view) {   // any part of the page (the interventions' result), as attnlab-VIEW.svg
    var clone = root.cloneNode(true);
    var tools = clone.querySelector('.view-tools');
    if (tools) tools.parentNode.removeChild(tools);
    var canvases = root.querySelectorAll('canvas');
    clone.querySelectorAll('canvas').forEach(function (canvas, k) {
      var image = el('img', {src: canvases[k].toDataURL('image/png'), width: canvas.width, height: canvas.height});
      canvas.parentNode.replaceChild(image, canvas);
    });
    var width = Math.ceil(root.scrollWidth + 48), height = Math.ceil(root.scrollHeight + 48);
    var css = document.querySelector('style').textContent.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    var svg = '<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' + height + '" viewBox="0 0 ' +
              width + ' ' + height + '"><foreignObject x="0" y="0" width="' + width + '" height="' + height + '">' +
              '<div xmlns="http://www.w3.org/1999/xhtml" class="picture"><style>' + css + '</style>' +
              new XMLSerializer().serializeToString(clone) + '</div></foreignObject></svg>';
    var name = 'attnlab-' + view + '.svg';
    X.lastPicture = {name: name, svg: svg};
    document.body.setAttribute('data-picture', name + ' ' + svg.length);
    var link = el('a', {href: URL.createObjectURL(new Blob([svg], {type: 'image/svg+xml'})), download: name});
    document.body.appendChild(link);
    link.click();
    document.body.removeChild(link);
  };

  // A link pasted into the address bar of an open page changes only what follows "#": read it again.
  window.addEventListener('hashchange', function () {
    var p = X.loadState();
    if (!(X.config.mode === 'serve' && X.askFromAddress(p))) X.renderAll();
  });
  X.loadState();
  if (X.config.mode === 'serve') X.startServe();
  X.renderAll();
})();
