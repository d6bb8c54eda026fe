// serve.js — the explorer served by `attnlab serve`: a form asks the server for a sentence's data (attention.json,
// or cloze.json for a cloze run) and the page is drawn again. explorer.js calls X.startServe() once.
(function () {
  'use strict';
  var X = window.attnlabExplorer, el = X.el;
  var form = document.getElementById('ask'), status = document.getElementById('ask-status');
  var runSelect = document.getElementById('ask-run'), compareSelect = document.getElementById('ask-compare');
  var text = document.getElementById('ask-text'), beam = document.getElementById('ask-beam');
  var ig = document.getElementById('ask-ig');
  var sent = null;   // the fields of the request the page shows

  // What the address keeps of the request shown (explorer.js, the page's state).
  X.serveParams = function () {
    return sent ? {text: sent.text, run: sent.run, beam: sent.beam || undefined, ig: sent.ig_steps || undefined,
                   compare: sent.compare === null ? undefined : sent.compare} : {};
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
    button.textContent = on ? 'Translating…' : 'Translate';
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
    var request = ++requests;
    busy(true);
    status.textContent = 'translating…';
    status.setAttribute('data-state', 'busy');
    var body = {run: Number(runSelect.value), text: text.value, beam: Number(beam.value), ig_steps: Number(ig.value)};
    var other = compareSelect.value === '' ? null : Number(compareSelect.value);
    var started = performance.now();
    Promise.all([ask(body), other === null ? null : ask(Object.assign({}, body, {run: other}))])
      .then(function (answers) {
        if (request !== requests) return dropped();             // a newer request was sent meanwhile
        var arrived = performance.now();
        busy(false);
        X.data = answers[0];
        X.compared = other === null || X.isCloze() ? null : {name: X.config.runs[other], data: answers[1]};
        sent = Object.assign(body, {compare: other});
        X.state.step = 0;
        X.state.pinned = null;
        X.state.neuron.query = 0;
        X.state.neuron.key = null;
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
    if (p.compare !== undefined && Number(p.compare) < X.config.runs.length) compareSelect.value = p.compare;
    setTimeout(function () { form.requestSubmit(); }, 0);
    return true;
  };
})();
