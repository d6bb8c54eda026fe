// training.js — the live explorer's training panel: a Transformer learns to copy (or reverse) in this page.
//
// Training runs in a Web Worker, so the page stays responsive: the worker is the engine script (the browser
// build of attnlab) followed by the few lines of workerMain below, started from a Blob of that text (a page
// opened from disk may not start a worker from a file). It calls attnlab_train() (web/training.cpp): the run
// chapter's train(), unchanged, with configs/copy.yaml, on a corpus generated in the worker. As it trains it
// reports every few steps (the loss curve) and at every validation (the share of validation sentences copied
// exactly, and the cross-attention of one of them, drawn here: the diagonal sharpens as it learns). After each
// validation the worker also hands over the run's files, so the explorer above can translate with the model as it
// is (run menu: "copy, trained in this page"). Stop ends the worker; what it reported stays on the page.
(function () {
  'use strict';
  var live = window.attnlabLive;
  var SVG = 'http://www.w3.org/2000/svg';
  var startButton = document.getElementById('train-start'), stopButton = document.getElementById('train-stop');
  var status = document.getElementById('train-status'), curve = document.getElementById('train-loss');
  var mapBox = document.getElementById('train-map'), taskSelect = document.getElementById('train-task');
  var training = live.training = {losses: [], validations: [], worker: null, outcome: null};
  // The config's own settings, but for the page: the cosine schedule ends at step 2000 instead of 4000 (one thread
  // of WebAssembly makes about 15 steps a second where the native build on two cores makes 200), validation every
  // 100 steps (training stops at the first that copies every sentence), and 3 minutes at most.
  var TRAINING_OVERRIDES = ['train.max_steps=2000', 'train.valid_every=100', 'train.max_minutes=3'];

  // The worker's own code, after the engine script in the same Blob (a function's text, run in the worker).
  function workerMain() {
    self.onmessage = function (event) {
      var request = event.data, module = null;
      var files = function () {                               // the run folder's files that translating needs
        var out = {}, dir = request.run;
        module.FS.readdir(dir).forEach(function (name) {
          if (name === 'config.yaml' || name.indexOf('tokenizer') >= 0) out[name] = module.FS.readFile(dir + '/' + name);
        });
        out['checkpoints/best.safetensors'] = module.FS.readFile(dir + '/checkpoints/best.safetensors');
        return out;
      };
      self.createAttnlab({onTrainingReport: function (json) {
        var report = JSON.parse(json);
        self.postMessage(report.validation ? {report: report, files: files()} : {report: report});
      }}).then(function (loaded) {
        module = loaded;
        var answer = JSON.parse(module.ccall('attnlab_train', 'string', ['string'], [JSON.stringify(request)]));
        self.postMessage({done: answer});
      }).catch(function (error) { self.postMessage({done: {error: String(error && error.message || error)}}); });
    };
  }
  function workerUrl() {
    var engine = document.getElementById('attnlab-engine').textContent;
    var text = engine + '\nself.createAttnlab = createAttnlab;\n(' + workerMain.toString() + ')();\n';
    return URL.createObjectURL(new Blob([text], {type: 'text/javascript'}));
  }

  function say(text, state) {
    status.textContent = text;
    status.setAttribute('data-state', state);
  }
  function el(tag, attrs, parent) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (parent) parent.appendChild(node);
    return node;
  }
  // The loss per target token against the step, on a log scale (the copy task's loss falls by 1000×).
  function drawCurve() {
    while (curve.firstChild) curve.removeChild(curve.firstChild);
    var points = training.losses, width = 420, height = 180, left = 44, bottom = 24;
    if (!points.length) return;
    var lastStep = Math.max(points[points.length - 1].step, 1);
    var logs = points.map(function (p) { return Math.log10(Math.max(p.loss, 1e-4)); });
    var top = Math.ceil(Math.max.apply(null, logs)), low = Math.floor(Math.min.apply(null, logs));
    if (top === low) top = low + 1;
    var x = function (step) { return left + (width - left - 8) * step / lastStep; };
    var y = function (log) { return 8 + (height - bottom - 8) * (top - log) / (top - low); };
    for (var decade = low; decade <= top; ++decade) {
      el('line', {x1: left, x2: width - 8, y1: y(decade), y2: y(decade), class: 'grid'}, curve);
      el('text', {x: left - 4, y: y(decade) + 4, 'text-anchor': 'end'}, curve).textContent = '1e' + decade;
    }
    el('text', {x: width - 8, y: height - 6, 'text-anchor': 'end'}, curve).textContent = 'step ' + lastStep;
    el('text', {x: left, y: height - 6}, curve).textContent = 'loss per token (log scale)';
    el('polyline', {points: points.map(function (p, i) { return x(p.step) + ',' + y(logs[i]); }).join(' '),
                    class: 'loss'}, curve);
  }
  // The cross-attention of the last layer, mean over heads: row = output token, column = source token.
  function drawMap(data) {
    while (mapBox.firstChild) mapBox.removeChild(mapBox.firstChild);
    var cross = data.maps.filter(function (m) { return m.type === 'cross'; });
    var map = cross[cross.length - 1], cell = 16, left = 24, top = 24;
    var rows = map.weights[0].length, cols = map.weights[0][0].length;
    var svg = el('svg', {width: left + cols * cell + 4, height: top + rows * cell + 4, class: 'train-map'}, mapBox);
    data.tokens.source.forEach(function (t, j) {
      el('text', {x: left + j * cell + cell / 2, y: top - 6, 'text-anchor': 'middle'}, svg).textContent = t;
    });
    data.tokens.target_output.forEach(function (t, i) {
      el('text', {x: left - 4, y: top + i * cell + cell - 4, 'text-anchor': 'end'}, svg).textContent = t;
    });
    for (var i = 0; i < rows; ++i) {
      for (var j = 0; j < cols; ++j) {
        var w = 0;
        for (var h = 0; h < map.heads; ++h) w += map.weights[h][i][j] / map.heads;
        el('rect', {x: left + j * cell, y: top + i * cell, width: cell - 1, height: cell - 1,
                    fill: 'rgba(37, 99, 235, ' + w.toFixed(3) + ')'}, svg);
      }
    }
  }

  function onMessage(event) {
    var message = event.data;
    if (message.report && message.report.loss !== undefined) {
      training.losses.push(message.report);
      drawCurve();
      say('step ' + message.report.step + ' · loss ' + message.report.loss.toFixed(4) + ' · ' +
          message.report.seconds.toFixed(1) + ' s', 'training');
    }
    if (message.report && message.report.validation) {
      var v = message.report.validation;
      training.validations.push(v);
      drawMap(message.report.attention);
      document.getElementById('train-exact').textContent = 'validation at step ' + v.step + ': ' +
          (100 * v.exact_match).toFixed(1) + '% of the sentences copied exactly';
      live.setRunFiles(1, message.files, taskSelect.value + ', trained in this page (step ' + v.step + ')');
    }
    if (message.done) finish(message.done);
  }
  function finish(answer) {
    training.outcome = answer;
    training.worker.terminate();
    startButton.disabled = false;
    stopButton.disabled = true;
    if (answer.error) return say(answer.error, 'error');
    say(answer.outcome + ' at step ' + answer.step + ' after ' + answer.seconds.toFixed(1) + ' s: ' +
        (100 * answer.exact_match).toFixed(1) + '% exact — pick it in the run menu above to explore it', 'done');
  }

  startButton.addEventListener('click', function () {
    training.losses = [];
    training.validations = [];
    training.outcome = null;
    startButton.disabled = true;
    stopButton.disabled = false;
    say('starting: generating the corpus…', 'training');
    training.worker = new Worker(workerUrl());
    training.worker.onmessage = onMessage;
    training.worker.onerror = function (event) { finish({error: event.message || 'the worker failed'}); };
    var task = taskSelect.value;
    training.worker.postMessage({task: task, run: '/runs/' + task,
                                 config: document.getElementById('live-config-' + task).textContent,
                                 overrides: TRAINING_OVERRIDES});
  });
  stopButton.addEventListener('click', function () {
    finish({outcome: 'stopped', step: training.losses.length ? training.losses[training.losses.length - 1].step : 0,
            seconds: training.losses.length ? training.losses[training.losses.length - 1].seconds : 0,
            exact_match: training.validations.length ? training.validations[training.validations.length - 1].exact_match : 0});
  });
})();
