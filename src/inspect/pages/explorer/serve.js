// serve.js — the explorer served by `attnlab serve`: a form asks the server for a sentence's data (attention.json,
// or cloze.json for a cloze run) and the page is drawn again. explorer.js calls X.startServe() once.
// The form takes exactly what the server takes: serve writes its limits into the page (X.config.limits,
// explorer_page.h), the line under the form states them (the bytes typed so far, and the most tokens the chosen
// run's answer may have), and a request the server would refuse is refused here, in the server's words, unsent.
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el;
  var form = document.getElementById('ask'), status = document.getElementById('ask-status');
  var runSelect = document.getElementById('ask-run'), compareSelect = document.getElementById('ask-compare');
  var text = document.getElementById('ask-text'), beam = document.getElementById('ask-beam');
  var ig = document.getElementById('ask-ig'), limitLine = document.getElementById('ask-limit');
  var limits = X.config.limits;   // null in the live page: its engine answers, and refuses, itself
  var sent = null;   // the fields of the request the page shows
  var address = null;   // the address (after "#") whose sentence is being asked: its view state, restored on answer

  function utf8Bytes(s) { return new TextEncoder().encode(s).length; }
  // The most source tokens the run's answer may have at this beam size, or -1 when only the bytes bind.
  function tokenLimit(run, beamSize) {
    var byBeam = limits.tokens[run] || [];
    return byBeam[beamSize] === undefined ? -1 : byBeam[beamSize];
  }
  function stateLimits() {
    if (!limits) return;
    var bytes = utf8Bytes(text.value), run = Number(runSelect.value), beamSize = Number(beam.value);
    var line = bytes + ' of at most ' + limits.text_bytes + ' bytes';
    var tokens = Number.isInteger(beamSize) ? tokenLimit(run, beamSize) : -1;
    if (tokens >= 0) {
      line += '; ' + X.config.runs[run] + (beamSize ? ' at beam ' + beamSize : '') + ': at most ' + tokens +
              ' tokens, or the answer would be over the ' + limits.answer_mb + ' MiB this server sends';
    }
    limitLine.textContent = line;
    if (bytes > limits.text_bytes) limitLine.setAttribute('data-over', '');
    else limitLine.removeAttribute('data-over');
  }
  // What the server would answer 400 for these fields, in its words (src/cli/serve/explorer_api.cpp), or null.
  function refusal(body) {
    if (!limits) return null;
    if (!/[^ \t\r\n]/.test(body.text)) return '"text" is empty: type a sentence';
    var bytes = utf8Bytes(body.text);
    if (bytes > limits.text_bytes) {
      return '"text" has ' + bytes + ' bytes, more than the ' + limits.text_bytes +
             ' this server accepts (--max-text-bytes)';
    }
    if (body.beam === undefined) return X.generationRefusal(body);   // a language model's run (generate.js)
    var highest = {beam: limits.beam, ig_steps: limits.ig_steps};
    for (var name in highest) {
      if (!Number.isInteger(body[name]) || body[name] < 0 || body[name] > highest[name]) {
        return '"' + name + '" must be an integer from 0 to ' + highest[name] + ', got ' + body[name];
      }
    }
    return null;
  }

  // What the address keeps of the request shown (explorer.js, the page's state).
  X.serveParams = function () {
    return sent ? {text: sent.text, run: sent.run, beam: sent.beam || undefined, ig: sent.ig_steps || undefined,
                   compare: sent.compare === null ? undefined : sent.compare, max_tokens: sent.max_tokens,
                   temperature: sent.temperature, top_k: sent.top_k, top_p: sent.top_p, seed: sent.seed} : {};
  };
  // One sentence through one run: a promise of its data, or an error with the server's message.
  function ask(body) {
    return fetch('api/translate', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                   body: JSON.stringify(body)})
      .then(function (response) {
        return response.json().then(function (answer) {
          if (!response.ok) throw new Error(answer.error || 'the server said no');
          return answer;
        });
      });
  }
  function busy(on) {
    var button = form.querySelector('button[type=submit]');
    button.setAttribute('aria-busy', on ? 'true' : 'false');
    var generating = form.getAttribute('data-language-model') === '1';   // generate.js
    button.textContent = on ? (generating ? 'Generating…' : 'Translating…') : (generating ? 'Generate' : 'Translate');
    form.setAttribute('data-busy', on ? '1' : '0');
  }
  function dropped(why) {                                // counted, for the browser test
    document.body.setAttribute('data-dropped', String(Number(document.body.getAttribute('data-dropped') || 0) + 1));
    document.body.setAttribute('data-dropped-why', why || 'answered');
  }
  // Every request has a number; an answer is drawn only when it answers the newest request, so a slow answer
  // to an older sentence can never replace a newer one. While a request runs the button says so.
  var requests = 0;
  function submit(event) {
    event.preventDefault();
    var request = ++requests, restore = address;
    address = null;
    busy(true);
    status.textContent = 'translating…';
    status.setAttribute('data-state', 'busy');
    var body = {run: Number(runSelect.value), text: text.value, beam: Number(beam.value), ig_steps: Number(ig.value)};
    var other = compareSelect.value === '' ? null : Number(compareSelect.value);
    if (X.generationBody(body)) { body = X.generationBody(body); other = null; }   // a language model (generate.js)
    var refused = refusal(body);
    if (refused) {
      busy(false);
      status.textContent = refused;
      status.setAttribute('data-state', 'error');
      return;
    }
    var started = performance.now();
    Promise.all([ask(body), other === null ? null : ask(Object.assign({}, body, {run: other}))])
      .then(function (answers) {
        if (request !== requests) return dropped();             // a newer request was sent meanwhile
        var arrived = performance.now();
        busy(false);
        X.data = answers[0];
        X.compared = other === null || X.isCloze() ? null : {name: X.config.runs[other], data: answers[1]};
        sent = Object.assign(body, {compare: other});
        if (restore !== null) {
          X.loadState(restore);   // a link: its step, pin, query … as it says (explorer.js)
        } else {
          X.state.step = 0;
          X.state.pinned = null;
          X.state.neuron.query = 0;
          X.state.neuron.key = null;
          X.state.alternative = null;
        }
        X.renderAll();
        var drawn = performance.now();
        status.textContent = X.config.runs[body.run] + ': ' + (X.isCloze() ? 'answer ' + X.data.answers[0].word
                             : X.data.target) + ' (' + ((drawn - started) / 1000).toFixed(2) + ' s)';
        status.setAttribute('data-state', 'done');
        document.body.setAttribute('data-shown-text', X.data.source);
        document.body.setAttribute('data-timing', JSON.stringify({answer: (arrived - started) / 1000,
                                                                  draw: (drawn - arrived) / 1000}));
      })
      .catch(function (error) {
        if (request !== requests) return dropped(error.message);
        busy(false);
        status.textContent = error.message;
        status.setAttribute('data-state', 'error');
      });
  }
  X.startServe = function () {
    form.hidden = false;
    X.config.runs.forEach(function (run, r) {
      el('option', {value: r}, runSelect, run);
      el('option', {value: r}, compareSelect, run);
    });
    if (limits) {
      beam.max = limits.beam;
      ig.max = limits.ig_steps;
      [text, beam, runSelect].forEach(function (field) { field.addEventListener('input', stateLimits); });
      stateLimits();
    }
    if (X.afterServeStart) X.afterServeStart();   // a language model's sampling fields (generate.js)
    form.addEventListener('submit', submit);
    X.askFromAddress(X.loadState());
  };
  // A link with a sentence in it (#text=…&run=…) is translated as soon as the page opens (or the address changes
  // to another sentence); returns false when the address holds no new sentence.
  X.askFromAddress = function (p) {
    if (!p.text || (sent && sent.text === p.text && String(sent.run) === String(p.run || 0))) return false;
    text.value = p.text;
    if (p.run && Number(p.run) < X.config.runs.length) runSelect.value = p.run;
    if (p.beam) beam.value = p.beam;
    if (p.ig) ig.value = p.ig;
    X.restoreGeneration(p);   // generate.js
    if (p.compare !== undefined && Number(p.compare) < X.config.runs.length) compareSelect.value = p.compare;
    stateLimits();
    address = location.hash;
    // Sent once the page's every script has run: in the live page, live.js (after this script) answers the request.
    var send = function () { form.requestSubmit(); };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', send);
    else setTimeout(send, 0);
    return true;
  };
})();
