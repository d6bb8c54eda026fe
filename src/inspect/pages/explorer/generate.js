// generate.js — the explorer on a decoder-only language model (model.task: language_model;
// src/gpt/language_model_maps.h): the data has "task": "language_model", no source, and only
// decoder_self maps over one text, the prompt and the model's continuation of it. This file says so on the page
// and, under `attnlab serve` and in the live page (the browser build), puts the sampling fields in the form for a
// language model's run:
//   max tokens   new tokens at most (0: the prompt alone)         temperature  0: greedy; above 1 flatter
//   top-k        draw among the k likeliest tokens only (0: all)   top-p        the nucleus (1: every token)
//   seed         the draws' seed: the same seed, the same text
// Each field takes exactly what the server takes (serve writes its limits into the page: X.config.limits), and a
// request it would refuse is refused here in its words (src/gpt/generation_request.h, read_generation_ask). The
// live page has no limits written in: its engine (web/engine.cpp) reads the request with that same function, tells
// live.js the limits when it loads a language model, and live.js tells this file: X.languageModelLoaded().
// Hooks: explorer.js asks X.isLanguageModel(), X.textSentence() and X.languageModelViews; serve.js asks
// X.generationBody() and X.generationRefusal() for the request, X.restoreGeneration() for a link's fields.
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el;
  // The views that make sense on one text: no compare (one run), no film (a translation's over checkpoints).
  X.languageModelViews = ['head', 'model', 'matrix', 'neuron', 'decoding', 'flow'];
  X.isLanguageModel = function () { return !!(X.data && X.data.task === 'language_model'); };

  // ---- the text, above the views ----
  X.textSentence = function (root) {
    var data = X.data, g = data.generation, tokens = data.tokens.target_output;
    var how = g.max_tokens === 0 ? 'the prompt alone (max tokens 0)'
              : g.temperature === 0 ? 'continued greedily, up to ' + g.max_tokens + ' tokens'
              : 'continued by sampling at temperature ' + g.temperature + ', top-k ' + g.top_k + ', top-p ' + g.top_p +
                ', seed ' + g.seed + ', up to ' + g.max_tokens + ' tokens';
    X.tokenRow(root, 'prompt', tokens.slice(0, g.prompt_tokens), '', []);
    X.tokenRow(root, 'continuation', tokens.slice(g.prompt_tokens), ' (' + how + ')', []);
    el('div', {class: 'meta', id: 'language-model-note'}, root, 'A decoder-only language model: one stack of masked ' +
       'self-attention over the text, no source, no cross-attention. Position t reads token t \u2212 1 (<s> first) ' +
       'and predicts token t: every row is named by the token it predicts. The compare and film views and the ' +
       'interventions are for ' +
       'translation runs; the flow view shows the rollout over the text and the value norms, not the attributions ' +
       'to a source.');
    var kinds = X.presentTypes().map(function (t) { return 'masked self-attention: ' + X.mapsOf(t)[0].kind; }).join(' · ');
    el('div', {class: 'meta', id: 'kinds'}, root, 'weights of ' + data.checkpoint + ' (step ' + data.step + ') · ' + kinds);
  };

  // ---- the form's sampling fields, under serve and in the live page ----
  var limits = X.config.limits, fields = {}, box = null;
  var languageModelRuns = limits ? (limits.language_model || []).slice() : [];   // per run: is it a language model?
  var bounds = limits ? {new_tokens: limits.new_tokens, temperature: limits.temperature, top_k: limits.top_k,
                         seed: limits.seed} : null;   // the live page: the engine's, once it loads a language model
  var FIELDS = [   // [name, label, title, step, default]
    ['max_tokens', 'max tokens', 'new tokens at most (0: the prompt alone)', '1', 20],
    ['temperature', 'temperature', 'p = softmax(z / T): 0 is greedy, below 1 sharper, above 1 flatter', 'any', 0],
    ['top_k', 'top-k', 'draw among the k likeliest tokens only (0: every token)', '1', 0],
    ['top_p', 'top-p', 'draw among the fewest likeliest tokens whose probabilities reach p (1: every token)', 'any', 1],
    ['seed', 'seed', 'the draws\u2019 random seed: the same seed, prompt and settings give the same text', '1', 1]];
  function highest(name) {
    if (name === 'top_p') return 1;
    return bounds ? {max_tokens: bounds.new_tokens, temperature: bounds.temperature, top_k: bounds.top_k,
                     seed: bounds.seed}[name] : null;
  }
  function isLanguageModelRun(run) { return !!languageModelRuns[run]; }
  // Shows the sampling fields for a language model's run and the translation's (beam, IG steps, compare) for the
  // others; the button says what it does.
  function showFields() {
    var run = Number(document.getElementById('ask-run').value), lm = isLanguageModelRun(run);
    box.hidden = !lm;
    ['ask-beam', 'ask-ig', 'ask-compare'].forEach(function (id) { document.getElementById(id).parentNode.hidden = lm; });
    document.getElementById('ask-text').placeholder = lm ? 'type a prompt' : 'type a source sentence';
    var button = document.querySelector('#ask button[type=submit]');
    if (button.getAttribute('aria-busy') !== 'true') button.textContent = lm ? 'Generate' : 'Translate';
    document.getElementById('ask').setAttribute('data-language-model', lm ? '1' : '0');
  }
  function addFields() {
    var form = document.getElementById('ask');
    box = el('span', {id: 'ask-sampling', hidden: ''});
    form.insertBefore(box, form.querySelector('button[type=submit]'));
    FIELDS.forEach(function (f) {
      var label = el('label', {title: f[2]}, box, f[1] + ' ');
      var input = el('input', {id: 'ask-' + f[0].replace('_', '-'), type: 'number', step: f[3], value: f[4],
                               min: '0', max: highest(f[0])}, label);
      fields[f[0]] = input;
    });
    document.getElementById('ask-run').addEventListener('input', showFields);
    showFields();
  }
  // The request's fields for a language model's run (or null for a translation run), and what the server would
  // refuse in them, in its words.
  X.generationBody = function (body) {
    if (!isLanguageModelRun(body.run)) return null;
    var out = {run: body.run, text: body.text};
    FIELDS.forEach(function (f) { out[f[0]] = Number(fields[f[0]].value === '' ? NaN : fields[f[0]].value); });
    return out;
  };
  X.generationRefusal = function (body) {
    for (var k = 0; k < FIELDS.length; k += 1) {
      var name = FIELDS[k][0], value = body[name], whole = FIELDS[k][3] === '1', top = highest(name);
      if (name === 'top_p') {
        if (!(value > 0 && value <= 1)) return '"top_p" must be a number above 0 and at most 1, got ' + value;
      } else if (!isFinite(value) || (whole && !Number.isInteger(value)) || value < 0 || value > top) {
        return '"' + name + '" must be ' + (whole ? 'an integer' : 'a number') + ' from 0 to ' + top + ', got ' + value;
      }
    }
    return null;
  };
  // The live page (live.js): run `run` was loaded into the engine; `engineLimits` are the sampling fields' bounds
  // it answered for a language model, null for a translation run.
  X.languageModelLoaded = function (run, engineLimits) {
    languageModelRuns[run] = !!engineLimits;
    if (engineLimits) bounds = engineLimits;
    if (!box) return;
    FIELDS.forEach(function (f) {
      if (highest(f[0]) === null) fields[f[0]].removeAttribute('max');
      else fields[f[0]].max = highest(f[0]);
    });
    showFields();
  };
  X.restoreGeneration = function (p) {   // a link's fields (serve.js, askFromAddress), its run chosen already
    if (!box) return;
    FIELDS.forEach(function (f) { if (p[f[0]] !== undefined) fields[f[0]].value = p[f[0]]; });
    showFields();
  };
  // Under serve: when a run is a language model's. In the live page (no limits written in): always, shown once a
  // language model's run is loaded, so that a link's fields are restored before the engine has loaded it.
  if (X.config.mode === 'serve' && (!limits || languageModelRuns.some(Boolean))) X.afterServeStart = addFields;
})();
