// training.js — the live explorer's training panel: a Transformer learns to copy, to reverse, or to translate the
// toy English→French grammar, in this page.
//
// Training runs in a Web Worker, so the page stays responsive: the worker is the engine script (the browser
// build of attnlab) followed by the lines of workerMain below, started from a Blob of that text (a page opened
// from disk may not start a worker from a file). It calls attnlab_train() (web/training.cpp): the run chapter's
// train(), unchanged, with configs/TASK.yaml and the page's overrides below, on a corpus generated in the worker.
// It trains in slices of a few seconds, each continuing the last with train()'s --resume, which single-threaded
// gives exactly the losses of a run never stopped: between two slices the worker hears the page, so Pause is
// "start no next slice" and Resume "start it" — the curve goes on as if never paused.
// As it trains it reports every few steps (the loss curve) and at every validation (the share of validation
// sentences right, and the sentence the learner chose, translated with its cross-attention drawn). After each
// validation the run's files go to the explorer above, to translate with (run menu: "…, trained in this page").
// Download writes the whole run folder as a .tar (runTar below); `tar -xf` unpacks it for the native attnlab.
// Continue trains the run folder picked above instead of a new one. Closing the tab with steps not downloaded asks.
(function () {
  'use strict';
  var live = window.attnlabLive;
  var SVG = 'http://www.w3.org/2000/svg';
  function byId(id) { return document.getElementById(id); }
  var startButton = byId('train-start'), pauseButton = byId('train-pause'), stopButton = byId('train-stop');
  var continueButton = byId('train-continue'), downloadButton = byId('train-download');
  var status = byId('train-status'), curve = byId('train-loss'), mapBox = byId('train-map');
  var taskSelect = byId('train-task'), sentenceInput = byId('train-sentence');
  var training = live.training = {losses: [], stepLosses: [], validations: [], slices: [], worker: null,
                                  outcome: null, paused: false, savedStep: 0, corpus: null};
  // The configs' own settings, but for the page (one thread of WebAssembly). copy and reverse: the cosine schedule
  // ends at step 2000 instead of 4000 and validation comes every 100 steps. toy-en-fr: warm-up 300 steps instead of
  // 1000 (what the config's own note advises for a run of a few minutes) and a validation (200 sentences, and the
  // learner's sentence re-translated) every 100 steps; 3000 steps at most. All: two step checkpoints kept (each
  // slice ends with one: the in-memory file system holds them, 12 MB each for toy-en-fr), and max_minutes, which
  // counts per slice, out of the way. SLICE_SECONDS: how long a slice trains (a pause waits for its end).
  var OVERRIDES = {
    copy: ['train.max_steps=2000', 'train.valid_every=100'],
    reverse: ['train.max_steps=2000', 'train.valid_every=100'],
    'toy-en-fr': ['train.max_steps=3000', 'train.warmup_steps=300', 'train.valid_every=100']
  };
  var COMMON_OVERRIDES = ['train.keep_last=2', 'train.max_minutes=600'];
  training.sliceSeconds = 10;

  // ---- the worker's own code, after the engine script in the same Blob (a function's text, run in the worker) ----
  function workerMain() {
    var module = null, request = null, paused = false, running = false;
    function read(path) { return module.FS.readFile(path); }
    function filesUnder(dir, prefix, out) {                 // every file of the run folder, by its path in it
      module.FS.readdir(dir).forEach(function (name) {
        if (name === '.' || name === '..') return;
        var path = dir + '/' + name;
        if (module.FS.isDir(module.FS.stat(path).mode)) filesUnder(path, prefix + name + '/', out);
        else out[prefix + name] = read(path);
      });
      return out;
    }
    function translatingFiles() {                           // what the explorer needs: config, tokenizers, best
      var out = {};
      module.FS.readdir(request.run).forEach(function (name) {
        if (name === 'config.yaml' || name.indexOf('tokenizer') >= 0) out[name] = read(request.run + '/' + name);
      });
      out['checkpoints/best.safetensors'] = read(request.run + '/checkpoints/best.safetensors');
      return out;
    }
    function writeFiles(files) {
      Object.keys(files).forEach(function (path) {
        var full = request.run + '/' + path;
        module.FS.mkdirTree(full.slice(0, full.lastIndexOf('/')));
        module.FS.writeFile(full, files[path]);
      });
    }
    function corpusDigests() {                               // SHA-256 of each generated file, for the test
      var dir = 'data/' + request.task, names = module.FS.readdir(dir).filter(function (n) { return n[0] !== '.'; });
      return Promise.all(names.map(function (name) {
        return crypto.subtle.digest('SHA-256', read(dir + '/' + name)).then(function (digest) {
          return [name, Array.from(new Uint8Array(digest)).map(function (b) { return (b + 256).toString(16).slice(1); }).join('')];
        });
      })).then(function (pairs) { var out = {}; pairs.forEach(function (p) { out[p[0]] = p[1]; }); return out; });
    }
    function slice() {
      if (paused) { running = false; return self.postMessage({paused: true}); }
      running = true;
      var answer = JSON.parse(module.ccall('attnlab_train', 'string', ['string'], [JSON.stringify(request)]));
      if (!request.resume && !answer.error) corpusDigests().then(function (d) { self.postMessage({corpus: d}); });
      request.resume = true;                                 // every slice after the first continues the run
      self.postMessage({slice: answer, threads: module.PThread ? module.PThread.runningWorkers.length + 1 : 1});
      if (answer.error || answer.outcome !== 'slice') { running = false; return self.postMessage({done: answer}); }
      setTimeout(slice, 0);                                  // the page's messages (pause) are heard here
    }
    self.onmessage = function (event) {
      var message = event.data;
      if (message.pause) paused = true;
      if (message.resume) { paused = false; if (!running) setTimeout(slice, 0); }
      if (message.sentence !== undefined && request) request.sentence = message.sentence;
      if (message.download) {                               // between two slices: the files of one step
        try { self.postMessage({download: filesUnder(request.run, '', {})}); }
        catch (error) { self.postMessage({downloadError: 'nothing to download yet: ' + error.message}); }
      }
      if (!message.start) return;
      request = message.start.request;
      var options = {onTrainingReport: function (json) {
        var report = JSON.parse(json);
        self.postMessage(report.validation ? {report: report, files: translatingFiles()} : {report: report});
      }};
      var threaded = message.start.engine;
      if (threaded) {                                       // its files are beside the page, not beside this Blob
        options.threads = threaded.threads;                 // the Web Workers started before it resolves: threads − 1
        options.mainScriptUrlOrBlob = threaded.url;         // what each of them loads
        options.locateFile = function (path) { return new URL(path, threaded.url).href; };
      }
      self.createAttnlab(options).then(function (loaded) {
        module = loaded;
        if (message.start.files) writeFiles(message.start.files);
        slice();
      }).catch(function (error) { self.postMessage({done: {error: String(error && error.message || error)}}); });
    };
  }
  // The worker's script: the engine — the one-thread engine inside the page, or (threads: a URL) the threaded
  // engine's script imported from beside the page — then workerMain.
  function workerUrl(engine) {
    var script = engine.url ? 'importScripts(' + JSON.stringify(engine.url) + ');'
                            : byId('attnlab-engine').textContent;
    var text = script + '\nself.createAttnlab = createAttnlab;\n(' + workerMain.toString() + ')();\n';
    return URL.createObjectURL(new Blob([text], {type: 'text/javascript'}));
  }

  // ---- the engine the worker trains with: threads when the page may have them, else one thread ----
  // A browser gives a page SharedArrayBuffer — and with it WebAssembly threads — only when the page is cross-origin
  // isolated: served with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp
  // (tools/web.sh --serve; tools/serve_isolated.py). Then the worker loads the threaded engine (the wasm-threads
  // preset's attnlab_web_threads.js, with its .wasm and .worker.js, beside the page) and trains on
  // navigator.hardwareConcurrency threads, or on the train.threads=N of the page's overrides; a page opened from
  // disk never is, and its worker runs the one-thread engine inside the page (so does a run asked for
  // train.threads=1). The same thread count gives the same bits; 1 and N threads train one float rounding apart, as
  // natively (a weight's gradient is summed along its depth in one part per thread: tensor/product/product.cpp).
  var THREADS_ENGINE = 'attnlab_web_threads.js';
  function threadsAsked() {
    var asked = (training.overrides || []).map(function (o) { return /^train\.threads=(\d+)$/.exec(o); })
                                          .filter(Boolean).map(function (m) { return +m[1]; }).pop();
    return asked > 0 ? asked : (navigator.hardwareConcurrency || 1);
  }
  function chooseEngine() {
    if (!self.crossOriginIsolated) {
      return Promise.resolve({threads: 1, why: 'this page is not cross-origin isolated (' +
          (location.protocol === 'file:' ? 'opened from disk' : 'served without COOP/COEP headers') + '), and a ' +
          'browser gives SharedArrayBuffer — WebAssembly\'s threads — only to a page that is: serve it with ' +
          'tools/web.sh --serve to train on every core'});
    }
    var url = new URL(THREADS_ENGINE, location.href).href;
    return fetch(url, {method: 'HEAD'}).then(function (answer) {
      if (!answer.ok) throw new Error(answer.status);
      return {url: url, threads: 0, why: 'this page is cross-origin isolated, so its worker runs the threaded ' +
          'engine (' + THREADS_ENGINE + ')'};
    }).catch(function () {
      return {threads: 1, why: 'this page is cross-origin isolated, but the threaded engine (' + THREADS_ENGINE +
          ') is not beside it: tools/web.sh --serve puts it there'};
    });
  }
  var engineChoice = chooseEngine().then(function (engine) {
    training.engine = engine;
    var threads = engine.url ? threadsAsked() : 1;
    byId('train-engine').textContent = 'Training runs on ' + (threads === 1 ? 'one thread' : threads + ' threads') +
        ': ' + engine.why + '.';
    byId('train-engine').setAttribute('data-threads', String(threads));
    return engine;
  });

  // ---- a run folder as a .tar (POSIX ustar: a 512-byte header per file, its bytes padded to 512, two zero blocks) ----
  function tarHeader(path, size) {
    var header = new Uint8Array(512);
    function put(text, offset) { for (var i = 0; i < text.length; ++i) header[offset + i] = text.charCodeAt(i); }
    function octal(value, width) { return (Array(width).join('0') + value.toString(8)).slice(-(width - 1)); }
    put(path, 0);                                            // name (at most 100 bytes)
    put('0000644', 100); put('0000000', 108); put('0000000', 116);   // mode, uid, gid
    put(octal(size, 12), 124);                               // size
    put(octal(Math.floor(Date.now() / 1000), 12), 136);      // mtime
    put('        ', 148);                                    // the checksum counts itself as spaces
    put('0', 156); put('ustar\u000000', 257);                // a regular file; magic and version
    var sum = 0;
    for (var i = 0; i < 512; ++i) sum += header[i];
    put(octal(sum, 7) + '\u0000 ', 148);
    return header;
  }
  function runTar(folder, files) {
    var parts = [];
    Object.keys(files).sort().forEach(function (path) {
      var full = folder + '/' + path;
      if (full.length > 100) throw new Error(full + ': a path longer than a tar header holds');
      parts.push(tarHeader(full, files[path].length), files[path], new Uint8Array((512 - files[path].length % 512) % 512));
    });
    parts.push(new Uint8Array(1024));
    return new Blob(parts, {type: 'application/x-tar'});
  }
  training.runTar = runTar;

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
    var map = cross[cross.length - 1], cell = 16, left = 64, top = 64;
    var rows = map.weights[0].length, cols = map.weights[0][0].length;
    var svg = el('svg', {width: left + cols * cell + 4, height: top + rows * cell + 4, class: 'train-map'}, mapBox);
    data.tokens.source.forEach(function (t, j) {
      var x = left + j * cell + cell - 4;
      el('text', {x: x, y: top - 4, transform: 'rotate(-60 ' + x + ' ' + (top - 4) + ')'}, svg).textContent = t;
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

  function lastStep() { return training.losses.length ? training.losses[training.losses.length - 1].step : 0; }
  function onReport(report, files) {
    if (report.loss !== undefined) {
      report.wall = performance.now();                      // the page's clock: slices' set-up included
      training.losses.push(report);
      drawCurve();
      say('step ' + report.step + ' · loss ' + report.loss.toFixed(4) + ' · ' +
          Math.round(report.tokens_per_second) + ' tokens/s' + (training.paused ? ' · pausing…' : ''), 'training');
    }
    if (!report.validation) return;
    var v = report.validation, task = training.task;
    training.validations.push(v);
    byId('train-exact').textContent = 'validation at step ' + v.step + ': ' + (100 * v.exact_match).toFixed(1) +
        '% of the sentences exactly right, ' + (100 * v.token_accuracy).toFixed(1) + '% of the tokens';
    if (report.attention) {
      drawMap(report.attention);
      training.watched = {source: report.attention.source, translation: report.attention.target, step: v.step};
      byId('train-translation').textContent = report.attention.source + ' → ' + report.attention.target;
    } else {
      byId('train-translation').textContent = report.attention_error;
    }
    live.setRunFiles(1, files, task + ', trained in this page (step ' + v.step + ')');
  }
  function onMessage(event) {
    var message = event.data;
    if (message.report) onReport(message.report, message.files);
    if (message.corpus) training.corpus = message.corpus;
    if (message.threads) training.threadsRunning = message.threads;   // the engine's threads, its own among them
    if (message.slice && message.slice.losses) {
      training.slices.push({step: message.slice.step, seconds: message.slice.seconds, wall: performance.now()});
      var first = message.slice.step - message.slice.losses.length + 1;
      message.slice.losses.forEach(function (loss, i) { training.stepLosses[first + i] = loss; });
    }
    if (message.paused) {
      pauseButton.disabled = false;
      say('paused at step ' + lastStep() + ': Resume continues from there', 'paused');
    }
    if (message.download) saveTar(message.download);
    if (message.downloadError) say(message.downloadError, status.getAttribute('data-state'));
    if (message.done) finish(message.done);
  }
  function setRunning(running) {
    startButton.disabled = continueButton.disabled = running;
    pauseButton.disabled = stopButton.disabled = !running;
    pauseButton.textContent = 'Pause';
  }
  function finish(answer) {
    training.outcome = answer;
    setRunning(false);
    downloadButton.disabled = !lastStep() && !answer.step;
    if (answer.error) return say(answer.error, 'error');
    say(answer.outcome + ' at step ' + answer.step + ': ' + (100 * answer.exact_match).toFixed(1) +
        '% exact — pick it in the run menu above to explore it, or download it', 'done');
  }
  function saveTar(files) {
    var link = document.createElement('a');
    link.href = URL.createObjectURL(runTar(training.task, files));
    link.download = training.task + '-page.tar';
    document.body.appendChild(link);
    link.click();
    link.remove();
    training.savedStep = lastStep();
    say('downloaded ' + link.download + ' (step ' + training.savedStep + '): tar -xf it, then attnlab translate ' +
        '--run ' + training.task, status.getAttribute('data-state'));
  }

  // Starts a worker on `task`: a new run, or (files given) the run folder those files hold, continued.
  function start(task, files) {
    if (training.worker) training.worker.terminate();
    Object.assign(training, {task: task, losses: [], stepLosses: [], validations: [], slices: [], outcome: null,
                             paused: false, savedStep: 0, corpus: null, started: performance.now()});
    setRunning(true);
    downloadButton.disabled = false;
    say('starting: generating the corpus…', 'training');
    engineChoice.then(function (engine) { startWorker(engine, task, files); });
  }
  function startWorker(engine, task, files) {
    if (engine.url && threadsAsked() === 1) engine = {threads: 1};   // one thread: the engine inside the page
    var threads = engine.url ? threadsAsked() : 1;
    training.threads = threads;
    training.worker = new Worker(workerUrl(engine));
    training.worker.onmessage = onMessage;
    training.worker.onerror = function (event) { finish({error: event.message || 'the worker failed'}); };
    var config = byId('live-config-' + task);
    var overrides = (training.overrides || OVERRIDES[task] || []).concat(COMMON_OVERRIDES);
    if (engine.url) overrides = overrides.concat(['train.threads=' + threads]);   // the Web Workers it starts
    training.worker.postMessage({files: null, start: {files: files || null, engine: engine.url ? {
      url: engine.url, threads: threads} : null, request: {
      task: task, run: '/runs/' + task, resume: !!files, config: config ? config.textContent : '',
      overrides: overrides, sentence: sentenceInput.value.trim(), slice_seconds: training.sliceSeconds}}});
  }
  // The task of a picked run: the corpus its config.yaml reads (data/TASK/…), one the worker can generate.
  function taskOfRun(files) {
    var config = new TextDecoder().decode(files['config.yaml']);
    var found = /train_src:\s*["']?data\/([^/\s]+)\//.exec(config);
    var tasks = Array.prototype.map.call(taskSelect.options, function (o) { return o.value; });
    if (!found || tasks.indexOf(found[1]) < 0) {
      throw new Error('the picked run trains on ' + (found ? 'data/' + found[1] : 'no data/TASK corpus') +
                      ': the page can continue a run of ' + tasks.join(', ') + ' only');
    }
    return found[1];
  }

  startButton.addEventListener('click', function () { start(taskSelect.value, null); });
  continueButton.addEventListener('click', function () {
    var files = live.slots[0].files;
    if (!files) return say('pick a run folder above first (all its files: the checkpoints too)', 'error');
    try { start(taskOfRun(files), files); } catch (error) { say(error.message, 'error'); }
  });
  pauseButton.addEventListener('click', function () {
    training.paused = !training.paused;
    training.worker.postMessage(training.paused ? {pause: true} : {resume: true});
    pauseButton.textContent = training.paused ? 'Resume' : 'Pause';
    if (training.paused) pauseButton.disabled = true;       // until the slice ends and the worker says so
    say(training.paused ? 'pausing after this slice of steps…' : 'resuming at step ' + lastStep(), 'training');
  });
  stopButton.addEventListener('click', function () {       // the worker stays, paused: Download still reads it
    training.worker.postMessage({pause: true});
    finish({outcome: 'stopped', step: lastStep(),
            exact_match: training.validations.length ? training.validations[training.validations.length - 1].exact_match : 0});
  });
  downloadButton.addEventListener('click', function () { training.worker.postMessage({download: true}); });
  sentenceInput.addEventListener('change', function () {
    if (training.worker) training.worker.postMessage({sentence: sentenceInput.value.trim()});
  });
  // A run with steps not downloaded: closing the tab asks first (the browser's own question).
  window.addEventListener('beforeunload', function (event) {
    if (lastStep() > training.savedStep) {
      event.preventDefault();
      event.returnValue = '';
    }
  });
})();
