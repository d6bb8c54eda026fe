// live.js — the live explorer: the explorer page (explorer.js) with attnlab itself inside it, so it translates
// what you type with no server and no install (src/inspect/pages/live_page.h says how the page is made).
//
// The explorer, written for `attnlab serve`, asks for a sentence's data with fetch('api/translate', {run, text,
// beam, ig_steps}), and its interventions panel with the same request and "interventions" (interventions.js). Here nobody serves: this file answers that request in the page, from the browser build of
// attnlab (web/engine.cpp, compiled to WebAssembly: the engine script), which runs the very functions
// `attnlab serve` runs — load_run() and record_attention() — on a run folder written into its in-memory file
// system. So every view is drawn from attention this page recorded, with the explorer's own code.
// A language model's run (model.task: language_model) loads too: the engine says so when it loads it, the form then
// shows the sampling fields (generate.js: max tokens, temperature, top-k, top-p, seed) and sends them as serve's form
// does, and the engine continues the prompt as `attnlab serve` and `attnlab generate` do (the same seed, the same text).
// The runs ("slots" of the explorer's run menu):
//   0  the run bundled into the page (`attnlab attention --live --run RUN`), or the one whose files you pick
//   1  the copy task, once it has trained in this page (training.js)
// Nothing is fetched: Chromium refuses fetch() of file:// addresses, so the WebAssembly is inside the engine
// script (Emscripten's SINGLE_FILE) and the run's files are inside the page, or read from the files you pick.
(function () {
  'use strict';
  // The bundled run: {name, checkpoint, files: {path: base64}}, or null when the page was written without one.
  var bundled = JSON.parse(document.getElementById('live-run').textContent);
  var status = document.getElementById('live-status');
  var slots = [{dir: '/runs/picked', files: null, name: 'your run'}, {dir: '/runs/trained', files: null, name: 'copy'}];
  var loadedSlot = null;             // the slot whose run the engine holds
  var live = window.attnlabLive = {slots: slots, timings: []};

  function say(text, state) {
    status.textContent = text;
    status.setAttribute('data-state', state);
  }
  function bytesOf(base64) {
    var text = atob(base64), bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i);
    return bytes;
  }
  // {path: Uint8Array} written under the slot's folder; the engine loads it again before its next answer.
  // checkpoint: the file in it to load (checkpoints/NAME.safetensors), or nothing for the best, as the command line's
  // --checkpoint best would choose (best.safetensors, else the latest step).
  live.setRunFiles = function (slot, files, name, checkpoint) {
    slots[slot].files = files;
    slots[slot].checkpoint = checkpoint || null;
    if (name) slots[slot].name = name;
    if (loadedSlot === slot) loadedSlot = null;
    var option = document.querySelector('#ask-run option[value="' + slot + '"]');
    if (option && name) option.textContent = name;
  };

  // ---- the engine: one instance on the page's thread (translation takes milliseconds for a small model) ----
  var engine = window.createAttnlab().then(function (module) {
    live.engine = module;
    return module;
  });
  function call(module, name) {                       // call(module, name, string...): the answer, parsed
    var strings = Array.prototype.slice.call(arguments, 2);
    return JSON.parse(module.ccall(name, 'string', strings.map(function () { return 'string'; }), strings));
  }
  function writeFiles(module, dir, files) {
    Object.keys(files).forEach(function (path) {
      var full = dir + '/' + path;
      module.FS.mkdirTree(full.slice(0, full.lastIndexOf('/')));
      module.FS.writeFile(full, files[path]);
    });
  }
  function loadSlot(module, slot) {
    if (loadedSlot === slot) return;
    var run = slots[slot];
    if (!run.files) {
      throw new Error(slot === 1 ? 'train the copy task first (below): this run is made in the page'
                                 : 'no run yet: pick a run folder\'s files above');
    }
    try { module.FS.rmdir(run.dir); } catch (e) { /* first load, or not empty: files are overwritten */ }
    writeFiles(module, run.dir, run.files);
    var answer = call(module, 'attnlab_load', run.dir, run.checkpoint ? run.dir + '/' + run.checkpoint : 'best');
    if (answer.error) throw new Error(answer.error);
    loadedSlot = slot;
    run.loaded = answer;
    window.attnlabExplorer.languageModelLoaded(slot, answer.task === 'language_model' ? answer.limits : null);
  }
  // What the engine is asked: a language model's sampling fields (generate.js) or a translation's.
  function engineRequest(body) {
    if (body.max_tokens !== undefined) {
      return {text: body.text, max_tokens: body.max_tokens, temperature: body.temperature, top_k: body.top_k,
              top_p: body.top_p, seed: body.seed};
    }
    return {text: body.text, beam: body.beam, ig_steps: body.ig_steps, interventions: body.interventions};
  }
  // The answer `attnlab serve` would give to POST api/translate, as a fetch Response.
  function translateInPage(body) {
    return engine.then(function (module) {
      var started = performance.now(), answer;
      try {
        loadSlot(module, body.run);
        answer = call(module, 'attnlab_attention', JSON.stringify(engineRequest(body)));
      } catch (error) {
        answer = {error: error.message};
      }
      live.timings.push({text: body.text, ms: performance.now() - started});
      return new Response(JSON.stringify(answer), {status: answer.error ? 400 : 200,
                                                   headers: {'Content-Type': 'application/json'}});
    });
  }
  // A link's sentence is asked as soon as the page opens (serve.js, askFromAddress), before the engine has loaded
  // the bundled run: the form waits for it, so that a language model's link is sent with its sampling fields.
  var ready = false, heldBack = null;
  window.addEventListener('submit', function (event) {
    if (ready || event.target.id !== 'ask') return;
    event.preventDefault();
    event.stopImmediatePropagation();
    heldBack = event.target;
  }, true);
  function release() {
    ready = true;
    if (heldBack) heldBack.requestSubmit();
    heldBack = null;
  }
  var pageFetch = window.fetch;
  window.fetch = function (url, options) {
    if (url !== 'api/translate') return pageFetch.apply(this, arguments);
    return translateInPage(JSON.parse(options.body));
  };
  // For the tests and a learner's console: the plain translation of a line, as `attnlab translate` prints it.
  live.translate = function (line) {
    return engine.then(function (module) {
      loadSlot(module, 0);
      return call(module, 'attnlab_translate', line);
    });
  };

  // ---- a run's files: bundled, or picked (a run folder, or its files one by one) ----
  // What a run folder holds that translating needs: config.yaml, the tokenizer files, the checkpoints.
  function wanted(path) {
    return /^(config\.yaml|[^/]*tokenizer[^/]*|checkpoints\/[^/]+\.safetensors)$/.test(path);
  }
  function pickedFiles(list) {
    var reads = Array.prototype.slice.call(list).map(function (file) {
      var path = file.webkitRelativePath ? file.webkitRelativePath.split('/').slice(1).join('/') : file.name;
      if (/\.safetensors$/.test(path) && path.indexOf('/') < 0) path = 'checkpoints/' + path;
      return wanted(path) ? file.arrayBuffer().then(function (buffer) { return [path, new Uint8Array(buffer)]; })
                          : null;
    }).filter(Boolean);
    return Promise.all(reads).then(function (pairs) {
      var files = {};
      pairs.forEach(function (pair) { files[pair[0]] = pair[1]; });
      if (!files['config.yaml']) throw new Error('no config.yaml among the files picked: pick a run folder');
      return files;
    });
  }
  // The checkpoint to load among picked files: the best (none named) when there is a best or a step checkpoint,
  // else the one checkpoint picked (an averaged one, say); several others and none of those: the engine says so.
  function checkpointOf(files) {
    var checkpoints = Object.keys(files).filter(function (path) { return /^checkpoints\//.test(path); });
    var stepOrBest = checkpoints.some(function (path) { return /\/(best|step-\d+)\.safetensors$/.test(path); });
    return !stepOrBest && checkpoints.length === 1 ? checkpoints[0] : null;
  }
  function whatToType(slot) { return slot.loaded.task === 'language_model' ? 'a prompt' : 'a sentence'; }
  function pickFrom(input) {
    input.addEventListener('change', function () {
      var first = input.files[0], name = first && first.webkitRelativePath ? first.webkitRelativePath.split('/')[0]
                                                                          : 'picked run';
      pickedFiles(input.files).then(function (files) {
        live.setRunFiles(0, files, name, checkpointOf(files));
        return engine.then(function (module) { loadSlot(module, 0); });
      }).then(function () {
        say(name + ': loaded (step ' + slots[0].loaded.step + ') — type ' + whatToType(slots[0]) + ' above', 'ready');
      }).catch(function (error) { say(error.message, 'error'); });
    });
  }
  pickFrom(document.getElementById('live-pick-folder'));
  pickFrom(document.getElementById('live-pick-files'));

  if (bundled) {
    var files = {};
    Object.keys(bundled.files).forEach(function (path) { files[path] = bytesOf(bundled.files[path]); });
    live.setRunFiles(0, files, bundled.name, bundled.checkpoint);
  }
  engine.then(function (module) {
    if (bundled) loadSlot(module, 0);
    say(bundled ? bundled.name + ' (step ' + slots[0].loaded.step + ') is loaded: type ' + whatToType(slots[0]) + ' above'
                : 'attnlab is loaded: pick a run folder, or train the copy task below', 'ready');
    document.body.setAttribute('data-live-ready', '1');
    release();
  }).catch(function (error) {
    say(error.message, 'error');
    document.body.setAttribute('data-live-ready', 'error');
    release();   // a held-back request is answered with the error
  });
})();
