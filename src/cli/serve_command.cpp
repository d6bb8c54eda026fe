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
// the server: no new connections (a connect is refused), new requests and queued translations answered 503,
// running ones finish, every answer made is sent whole, then every connection closed, slow ones too; exit 0. All
// of it within --stop-timeout: past it a reader still reading is cut off, and if a translation still runs then,
// the process ends anyway (exit 1, saying so). A second signal ends the process at once (exit 130).
// Memory: each run is loaded once per translation at once (--max-in-flight; model_copies.h says why), and the
// answers held across all connections are bounded by --answer-budget-mb (answer_budget.h).
#include <malloc.h>
#include <pthread.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/serve/explorer_api.h"
#include "cli/serve/http_server.h"
#include "cli/serve/model_copies.h"
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
  int64_t max_connections = 512;
  int64_t max_per_address = 64;        // connections from one address at once
  int64_t timeout = 10;                // seconds for a request to arrive whole, and for a connection to idle
  int64_t silent_timeout = 5;          // seconds a connection may stay open without sending a byte of a request
  int64_t answer_budget_mb = 256;      // answers held in memory across all connections
  int64_t max_per_client = 0;          // translations of one address at once (0: --max-in-flight − 1, at least 1)
  int64_t max_client_work = 10;        // millions of token passes one address may have waiting or running
  int64_t stop_timeout = 10;           // seconds a stop may take
  std::vector<std::string> allow_origins;   // pages elsewhere that may use the server (its own page always may)
};

namespace {

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.starts_with("127.");
}

// Waits for SIGINT or SIGTERM (blocked in every thread, so only this sigwait sees them): the first calls
// `stop`, a second ends the process at once, whatever the first is still waiting for; so does a stop that is not
// over a second after its --stop-timeout (a translation still running: nothing can cut one short).
void await_stop_signals(const sigset_t& signals, HttpServer& server, int64_t stop_timeout) {
  int signal = SIGUSR1;
  while (signal == SIGUSR1) sigwait(&signals, &signal);
  std::future<void> stopped = std::async(std::launch::async, [&server] { server.stop(); });
  std::thread second([&signals] {
    int again = 0;
    sigwait(&signals, &again);
    if (again == SIGUSR1) return;   // the stopper finished: no second signal came
    std::fprintf(stderr, "attnlab serve: a second signal: stopping at once\n");
    std::_Exit(130);
  });
  if (stopped.wait_for(std::chrono::seconds(stop_timeout + 1)) == std::future_status::timeout) {
    std::fprintf(stderr, "attnlab serve: not stopped within --stop-timeout %lld s (a translation is still running): "
                 "stopping at once\n", static_cast<long long>(stop_timeout));
    std::_Exit(1);
  }
  pthread_kill(second.native_handle(), SIGUSR1);
  second.join();
}

// Each connection is a file descriptor: the soft limit (ulimit -n) is raised toward the hard one so that
// --max-connections fit, with libmicrohttpd's room to refuse (http_server.cpp) and the process's own files.
void make_room_for_connections(int64_t connections) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const auto needed = static_cast<rlim_t>(connections + 64 + 64);
  if (limit.rlim_cur < needed && limit.rlim_max != limit.rlim_cur) {
    limit.rlim_cur = std::min(needed, limit.rlim_max);
    setrlimit(RLIMIT_NOFILE, &limit);
  }
  if (limit.rlim_cur < needed) {
    throw Error("--max-connections " + std::to_string(connections) + " needs about " + std::to_string(needed) +
                " file descriptors, and this process may open at most " + std::to_string(limit.rlim_cur) +
                " (ulimit -Hn): lower --max-connections to at most " +
                std::to_string(static_cast<int64_t>(limit.rlim_cur) - 128));
  }
}

// The options that must agree with each other; throws attnlab::Error naming them.
void check_serve_options(const ServeCommandOptions& options) {
  if (options.answer_budget_mb < options.max_answer_mb) {
    throw Error("--answer-budget-mb " + std::to_string(options.answer_budget_mb) + " is less than --max-answer-mb " +
                std::to_string(options.max_answer_mb) + ": the largest answer could never be sent; raise "
                "--answer-budget-mb or lower --max-answer-mb");
  }
  if (options.max_per_client > options.max_in_flight) {
    throw Error("--max-per-client " + std::to_string(options.max_per_client) + " is more than --max-in-flight " +
                std::to_string(options.max_in_flight) + ": one client cannot have more translations at once than "
                "the server computes");
  }
}

// The HTTP layer's limits from the options.
HttpLimits http_limits(const ServeCommandOptions& options) {
  HttpLimits limits;
  limits.connections = static_cast<unsigned>(options.max_connections);
  limits.per_address = static_cast<unsigned>(options.max_per_address);
  limits.idle_seconds = limits.request_seconds = static_cast<unsigned>(options.timeout);
  limits.silent_seconds = static_cast<unsigned>(options.silent_timeout);
  limits.answer_budget_bytes = options.answer_budget_mb << 20;
  limits.stop_seconds = static_cast<unsigned>(options.stop_timeout);
  return limits;
}

// The runs, each loaded --max-in-flight times (model_copies.h); a bad folder ends here, with its message, before
// anything listens.
std::vector<std::unique_ptr<ServedRun>> load_served_runs(const ServeCommandOptions& options) {
  std::vector<std::unique_ptr<ServedRun>> runs;
  const std::vector<std::string> names = shown_run_names(options.runs);
  for (size_t r = 0; r < options.runs.size(); ++r) {
    const std::string& dir = options.runs[r];
    auto served = std::make_unique<ServedRun>();
    served->dir = dir;
    served->name = names[r];
    if (is_cloze_run(dir)) {                           // a reader: the page asks it questions (cloze view)
      served->cloze = std::make_unique<LoadedClozeRun>(load_cloze_run(dir, options.checkpoint));
    } else if (is_language_model_run(dir)) {           // a GPT: the page continues prompts (generate.js)
      served->language_model = std::make_unique<LoadedLanguageModel>(load_language_model(dir, options.checkpoint));
    } else {
      served->run = load_run(dir, options.checkpoint);
    }
    add_model_copies(*served, static_cast<size_t>(options.max_in_flight) - 1, options.checkpoint);
    runs.push_back(std::move(served));
  }
  return runs;
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
  check_serve_options(options);
  make_room_for_connections(options.max_connections);
  const Audience audience = audience_of(options.host, options.port, options.allow_origins);   // a bad origin: now
  std::vector<std::unique_ptr<ServedRun>> runs = load_served_runs(options);
  // Blocks of 1 MiB and more (answers, their pieces, the largest tensors) each from an mmap of its own, given back
  // to the system when freed, not kept in malloc's heap (the tensor pool's 32 MiB, storage.h, is for training).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  std::vector<std::string> names;
  for (const auto& served : runs) names.push_back(served->name);
  ExplorerApiOptions api;
  api.max_text_bytes = options.max_text_bytes, api.max_answer_bytes = options.max_answer_mb << 20;
  api.max_work = options.max_client_work * 1000000;
  const std::string page = explorer_page_html("attnlab explorer", "", names, "", {}, ask_limits(runs, api));
  const int threads = use_threads(options.threads);    // the whole budget; each worker takes its share
  const auto workers = static_cast<size_t>(options.max_in_flight);
  const WorkShares shares{options.max_per_client > 0 ? static_cast<size_t>(options.max_per_client)
                                                     : std::max<size_t>(1, workers - 1),
                          api.max_work};
  WorkQueue queue(workers, static_cast<size_t>(options.queue), std::max(1, threads / static_cast<int>(workers)), shares);
  const HttpLimits limits = http_limits(options);
  if (!is_loopback(options.host)) {   // said before the port opens
    std::fprintf(stderr, "attnlab serve: warning: listening on %s, not only this machine: serve is meant for a "
                 "trusted network (a classroom), not the open internet\n", options.host.c_str());
  }
  HttpServer server(options.host, options.port, limits, explorer_router(runs, page, api), queue, audience);
  std::printf("attnlab serve: the explorer is at http://%s:%d/ (%zu run%s; %zu translation%s at once, %d thread%s); "
              "Ctrl-C stops it\n", options.host.c_str(), options.port, runs.size(), runs.size() == 1 ? "" : "s",
              workers, workers == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
  std::fflush(stdout);
  await_stop_signals(stop_signals, server, options.stop_timeout);
  std::printf("attnlab serve: stopped\n");
  return 0;
}

// The options that bound the work and the connections (docs/guide/explorer-and-serve.md, "Under load and attack").
void add_load_options(CLI::App& subcommand, ServeCommandOptions& options) {
  subcommand.add_option("--max-in-flight", options.max_in_flight,
                        "Translations computed at once, each on its own copy of the model (default 2; every run is "
                        "loaded this many times)")
      ->check(CLI::Range(1, 64));
  subcommand.add_option("--max-per-client", options.max_per_client,
                        "Translations one client (address) may have computed at once (default 0: --max-in-flight - "
                        "1, at least 1, so that one client leaves a worker for the others)")
      ->check(CLI::Range(0, 64));
  subcommand.add_option("--max-client-work", options.max_client_work,
                        "The work one client (address) may have waiting and running at once, in millions of token "
                        "passes (sentence length × beam, and integrated gradients' ig_steps: the guide gives the "
                        "formula); more is 503, one request over it 413 (default 10)")
      ->check(CLI::Range(1, 1000000));
  subcommand.add_option("--queue", options.queue,
                        "Translations waiting for a free worker; more are answered 503 with Retry-After (default 32)")
      ->check(CLI::Range(0, 4096));
  subcommand.add_option("--threads", options.threads,
                        "CPU threads for the models, shared by the translations at once (default 0: every core)")
      ->check(CLI::Range(0, 1024));
  subcommand.add_option("--answer-budget-mb", options.answer_budget_mb,
                        "MiB of answers held in memory at once across all connections, from admission until sent "
                        "(a slow reader holds its answer); past it a request is answered 503 (default 256, at least "
                        "--max-answer-mb)")
      ->check(CLI::Range(1, 65536));
  subcommand.add_option("--max-connections", options.max_connections,
                        "Connections open at once (default 512); when full, a newcomer replaces the oldest connection "
                        "that has sent nothing, or is answered 503 at once")
      ->check(CLI::Range(1, 100000));
  subcommand.add_option("--max-per-address", options.max_per_address,
                        "Connections open at once from one address; a request on one more is answered 503, and "
                        "those are the first closed to make room (default 64)")
      ->check(CLI::Range(1, 100000));
  subcommand.add_option("--timeout", options.timeout,
                        "Seconds a request may take to arrive, and a connection may stay idle (default 10)")
      ->check(CLI::Range(1, 600));
  subcommand.add_option("--silent-timeout", options.silent_timeout,
                        "Seconds a connection may stay open without sending a byte of a request (default 5)")
      ->check(CLI::Range(1, 600));
  subcommand.add_option("--stop-timeout", options.stop_timeout,
                        "Seconds a stop (Ctrl-C, SIGTERM) may take to finish the running translations and send every "
                        "answer made whole; then the rest is cut off (default 10)")
      ->check(CLI::Range(1, 3600));
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
                         "cloze run (model.task: cloze) is asked questions, \"<document> @query <query>\"; a "
                         "language model's run (model.task: language_model) continues a prompt, with max tokens, "
                         "temperature, top-k, top-p and seed in the form")
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
  subcommand->add_option("--allow-origin", options->allow_origins,
                         "A web page elsewhere that may use this server through a browser, as its Origin header "
                         "names it (scheme://host[:port], say http://localhost:3000; repeat for several); without "
                         "it only serve's own page may: any other Origin is refused with 403");
  add_load_options(*subcommand, *options);
  return {subcommand, [options] { return serve_command(*options); }};
}

}  // namespace attnlab
