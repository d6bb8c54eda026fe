// serve_command.cpp — `attnlab serve`: the attention explorer, live, over HTTP.
//
// The parts, in src/cli/serve/: explorer_api.h (the routes and what each refuses), http_server.h (the HTTP layer
// on libmicrohttpd, every request bounded before anything is allocated for it), work_queue.h (the translations:
// a fixed set of workers, a queue of bounded length, 503 when it is full). This file reads the options, loads
// the runs, starts the three and waits for a stop signal.
//
// Safety: it listens on 127.0.0.1 unless --host says otherwise (and warns when it is told otherwise: serve is meant
// for a trusted network), and it never reads a file after start — the page is in the binary and no path of a
// request is mapped to the disk, so "/../" leads nowhere. It answers only requests that name it in Host and come
// from its own page (or one --allow-origin names): request_checks.h; and it shows no absolute path of its disk.
// Stopping: SIGINT (Ctrl-C) and SIGTERM are blocked in every thread and awaited by one (sigwait). The first stops
// the server: no new connections, queued translations answered 503, running ones finish (each is bounded by
// --max-answer-mb), every connection closed, slow ones too; exit 0 within seconds. A second signal ends the
// process at once (exit 130).
#include <pthread.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/serve/explorer_api.h"
#include "cli/serve/http_server.h"
#include "cli/serve/request_checks.h"
#include "cli/serve/work_queue.h"
#include "inspect/pages/explorer_page.h"
#include "run/run.h"
#include "tensor/parallel.h"
#include "util/error.h"

namespace attnlab {

struct ServeCommandOptions {
  std::vector<std::string> runs;       // the run folders a visitor may choose among
  std::string host = "127.0.0.1";      // the address to listen on: this machine only, unless told otherwise
  int port = 8080;
  std::string checkpoint = "best";     // best | latest | average | a checkpoint file (of every run)
  int64_t max_text_bytes = 1000;       // a longer sentence is refused (400)
  int64_t max_answer_mb = 64;          // a sentence whose answer would be larger is refused (413)
  int64_t max_in_flight = 2;           // translations computed at once
  int64_t queue = 32;                  // translations waiting; more are refused (503 + Retry-After)
  int64_t threads = 0;                 // CPU threads for the models in all (0: every core)
  int64_t max_connections = 256;
  int64_t timeout = 10;                // seconds for a request to arrive whole, and for a connection to idle
  std::vector<std::string> allow_origins;   // pages elsewhere that may use the server (its own page always may)
};

namespace {

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.starts_with("127.");
}

// Waits for SIGINT or SIGTERM (blocked in every thread, so only this sigwait sees them): the first calls
// `stop`, a second ends the process at once, whatever the first is still waiting for.
void await_stop_signals(const sigset_t& signals, HttpServer& server) {
  int signal = SIGUSR1;
  while (signal == SIGUSR1) sigwait(&signals, &signal);
  std::thread stopper([&server] { server.stop(); });
  std::thread second([&signals] {
    int again = 0;
    sigwait(&signals, &again);
    if (again == SIGUSR1) return;   // the stopper finished: no second signal came
    std::fprintf(stderr, "attnlab serve: a second signal: stopping at once\n");
    std::_Exit(130);
  });
  stopper.join();
  pthread_kill(second.native_handle(), SIGUSR1);
  second.join();
}

}  // namespace

int serve_command(const ServeCommandOptions& options) {
  // Block the stop signals before any thread starts — OpenMP's and the server's — since threads inherit the mask
  // and a signal goes to any thread that does not block it; this thread waits for them (await_stop_signals).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGUSR1);   // only for await_stop_signals to end its second wait
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  const Audience audience = audience_of(options.host, options.port, options.allow_origins);   // a bad origin: now
  std::vector<std::unique_ptr<ServedRun>> runs;
  const std::vector<std::string> names = shown_run_names(options.runs);
  for (size_t r = 0; r < options.runs.size(); ++r) {
    const std::string& dir = options.runs[r];
    auto served = std::make_unique<ServedRun>();
    served->dir = dir;
    served->name = names[r];
    if (is_cloze_run(dir)) {                           // a reader: the page asks it questions (cloze view)
      served->cloze = std::make_unique<LoadedClozeRun>(load_cloze_run(dir, options.checkpoint));
    } else {
      served->run = load_run(dir, options.checkpoint);   // a bad folder ends here, with its message, before listening
    }
    runs.push_back(std::move(served));
  }
  const ExplorerApiOptions api{options.max_text_bytes, options.max_answer_mb << 20};
  const std::string page = explorer_page_html("attnlab explorer", "", names, "", {}, ask_limits(runs, api));
  const int threads = use_threads(options.threads);    // the whole budget; each worker takes its share
  const auto workers = static_cast<size_t>(options.max_in_flight);
  WorkQueue queue(workers, static_cast<size_t>(options.queue), std::max(1, threads / static_cast<int>(workers)));
  HttpLimits limits;
  limits.connections = static_cast<unsigned>(options.max_connections);
  limits.idle_seconds = limits.request_seconds = static_cast<unsigned>(options.timeout);
  if (!is_loopback(options.host)) {   // said before the port opens
    std::fprintf(stderr, "attnlab serve: warning: listening on %s, not only this machine: serve is meant for a "
                 "trusted network (a classroom), not the open internet\n", options.host.c_str());
  }
  HttpServer server(options.host, options.port, limits, explorer_router(runs, page, api), queue, audience);
  std::printf("attnlab serve: the explorer is at http://%s:%d/ (%zu run%s; %zu translation%s at once, %d thread%s); "
              "Ctrl-C stops it\n", options.host.c_str(), options.port, runs.size(), runs.size() == 1 ? "" : "s",
              workers, workers == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
  std::fflush(stdout);
  await_stop_signals(stop_signals, server);
  std::printf("attnlab serve: stopped\n");
  return 0;
}

// `attnlab serve`: its options and their help texts, read into ServeCommandOptions; main.cpp runs it.
Subcommand add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "serve",
      "Serve the explorer live: a page where you type a sentence, pick a run and a beam size, and see the "
      "translation with every view of `attnlab attention`. Listens on --host (127.0.0.1: this machine only, "
      "unless told otherwise) and --port; answers bad requests with a JSON error and status 400, and only requests "
      "that name it in Host and come from its own page (or one --allow-origin names); Ctrl-C stops it.");
  subcommand->add_option("--run", options->runs, "A run folder (repeat --run for several runs to choose among); a "
                         "cloze run (model.task: cloze) is asked questions, \"<document> @query <query>\"")
      ->required();
  subcommand->add_option("--port", options->port, "The TCP port (default 8080)")->check(CLI::Range(1, 65535));
  subcommand->add_option("--host", options->host,
                         "The address to listen on (default 127.0.0.1); requests must name it, or 127.0.0.1 or "
                         "localhost, with the port in their Host header (421 otherwise)");
  subcommand->add_option("--checkpoint", options->checkpoint,
                         "best (default), latest, average (attnlab average), or the path of a checkpoint file");
  subcommand->add_option("--max-text-bytes", options->max_text_bytes,
                         "The longest sentence accepted, in bytes (default 1000, at most 16384); the page's form "
                         "counts them and states the limit")
      ->check(CLI::Range(1, 16384));
  subcommand->add_option("--max-answer-mb", options->max_answer_mb,
                         "The largest answer sent, in MiB, estimated before translating; a longer sentence is "
                         "refused with 413 (default 64, at most 1024). The page states, per run and beam, the most "
                         "tokens this allows (on configs/toy-en-fr.yaml's model 172 at beam 1: fewer than a "
                         "1000-byte sentence of short words holds)")
      ->check(CLI::Range(1, 1024));
  subcommand->add_option("--max-in-flight", options->max_in_flight,
                         "Translations computed at once (default 2)")
      ->check(CLI::Range(1, 64));
  subcommand->add_option("--queue", options->queue,
                         "Translations waiting for a free worker; more are answered 503 with Retry-After (default 32)")
      ->check(CLI::Range(0, 4096));
  subcommand->add_option("--threads", options->threads,
                         "CPU threads for the models, shared by the translations at once (default 0: every core)")
      ->check(CLI::Range(0, 1024));
  subcommand->add_option("--max-connections", options->max_connections,
                         "Connections open at once (default 256)")
      ->check(CLI::Range(1, 10000));
  subcommand->add_option("--allow-origin", options->allow_origins,
                         "A web page elsewhere that may use this server through a browser, as its Origin header "
                         "names it (scheme://host[:port], say http://localhost:3000; repeat for several); without "
                         "it only serve's own page may: any other Origin is refused with 403");
  subcommand->add_option("--timeout", options->timeout,
                         "Seconds a request may take to arrive, and a connection may stay idle (default 10)")
      ->check(CLI::Range(1, 600));
  return {subcommand, [options] { return serve_command(*options); }};
}

}  // namespace attnlab
