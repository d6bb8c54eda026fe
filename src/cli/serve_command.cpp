// serve_command.cpp — `attnlab serve`: the attention explorer, live, over HTTP (Debian's cpp-httplib).
//
//   GET  /                the explorer page (src/inspect/explorer_page.h) with a form: no sentence yet
//   GET  /api/runs        {"runs": ["runs/a", "runs/b"]}
//   POST /api/translate   {"run": 0, "text": "a happy girl .", "beam": 1}  ("run" and "beam" optional)
//                         → the sentence's attention.json (the schema `attnlab attention` writes,
//                           docs/guide/explorer-and-serve.md): the translation, every map, the numbers behind each weight
//   anything else         404
// Every refusal is a JSON object {"error": "…"} saying what was wrong: 400 for a request that is not a JSON
// object, a text that is missing, empty, longer than --max-text-bytes, not UTF-8 or with no token, a run or beam
// out of range; 413 for a body over 64 KiB; 503 when --max-in-flight translations are already running.
//
// Safety: it listens on 127.0.0.1 unless --host says otherwise, and it never reads a file after start — the page
// is in the binary and no path of a request is mapped to the disk, so "/../" leads nowhere. Each run's model
// answers one request at a time (a mutex per run: record_attention switches the model's path while it runs).
// Stopping: SIGINT (Ctrl-C) and SIGTERM are blocked in every thread and awaited by one (sigwait), which stops
// the server; requests under way finish, and the command exits 0.
#include <pthread.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "inspect/attention_maps.h"
#include "inspect/explorer_page.h"
#include "run/run.h"
#include "util/error.h"

// Last: cpp-httplib brings <resolv.h>, whose macro `_res` would rewrite a parameter name inside Eigen's headers.
#include <httplib.h>

namespace attnlab {

struct ServeCommandOptions {
  std::vector<std::string> runs;       // the run folders a visitor may choose among
  std::string host = "127.0.0.1";      // the address to listen on: this machine only, unless told otherwise
  int port = 8080;
  std::string checkpoint = "best";     // best | latest | a checkpoint file (of every run)
  int64_t max_text_bytes = 1000;       // a longer sentence is refused (400)
  int64_t max_in_flight = 8;           // translations at once; more are refused (503) until one ends
};

namespace {

constexpr size_t max_body_bytes = 64 * 1024;
constexpr int64_t max_beam = 16;

struct ServedRun {
  std::string dir;
  LoadedRun run;
  std::mutex in_use;   // one translation at a time per model
};

void refuse(httplib::Response& response, int status, const std::string& message) {
  response.status = status;
  response.set_content(nlohmann::json{{"error", message}}.dump(), "application/json");
}

// An integer field of the request: `fallback` when absent; throws attnlab::Error when it is not an integer in
// [low, high].
int64_t integer_field(const nlohmann::json& body, const char* name, int64_t fallback, int64_t low, int64_t high) {
  if (!body.contains(name)) return fallback;
  const nlohmann::json& value = body[name];
  if (!value.is_number_integer() || value.get<int64_t>() < low || value.get<int64_t>() > high) {
    throw Error(std::string("\"") + name + "\" must be an integer from " + std::to_string(low) + " to " +
                std::to_string(high) + ", got " + value.dump());
  }
  return value.get<int64_t>();
}

// POST /api/translate: the request read and checked, then the sentence recorded by the run's model.
std::string translate_request(const std::string& request_body, std::vector<std::unique_ptr<ServedRun>>& runs,
                              const ServeCommandOptions& options) {
  const nlohmann::json body = nlohmann::json::parse(request_body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    throw Error("the request body is not a JSON object (or not valid UTF-8): send {\"text\": \"a sentence\", "
                "\"run\": 0, \"beam\": 1}");
  }
  if (!body.contains("text") || !body["text"].is_string()) throw Error("\"text\" (a string) is missing");
  const std::string text = body["text"].get<std::string>();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw Error("\"text\" is empty: type a sentence");
  if (static_cast<int64_t>(text.size()) > options.max_text_bytes) {
    throw Error("\"text\" has " + std::to_string(text.size()) + " bytes, more than the " +
                std::to_string(options.max_text_bytes) + " this server accepts (--max-text-bytes)");
  }
  const int64_t r = integer_field(body, "run", 0, 0, static_cast<int64_t>(runs.size()) - 1);
  const int64_t beam = integer_field(body, "beam", 0, 0, max_beam);
  ServedRun& served = *runs[static_cast<size_t>(r)];
  std::lock_guard<std::mutex> lock(served.in_use);
  return attention_json(record_attention(served.run, text, "", beam));
}

}  // namespace

int serve_command(const ServeCommandOptions& options) {
  // Block the stop signals before any thread starts — OpenMP's worker threads too, which loading a model may
  // start — since threads inherit the mask and a signal goes to any thread that does not block it; one thread
  // waits for them (below).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::vector<std::unique_ptr<ServedRun>> runs;
  std::vector<std::string> names;
  for (const std::string& dir : options.runs) {
    auto served = std::make_unique<ServedRun>();
    served->dir = dir;
    served->run = load_run(dir, options.checkpoint);   // a bad folder ends here, with its message, before listening
    names.push_back(dir);
    runs.push_back(std::move(served));
  }
  const std::string page = explorer_page_html("attnlab explorer", "", names);

  httplib::Server server;
  server.set_payload_max_length(max_body_bytes);
  std::atomic<int64_t> in_flight{0};

  server.Get("/", [&](const httplib::Request&, httplib::Response& response) {
    response.set_content(page, "text/html; charset=utf-8");
  });
  server.Get("/api/runs", [&](const httplib::Request&, httplib::Response& response) {
    response.set_content(nlohmann::json{{"runs", names}}.dump(), "application/json");
  });
  server.Post("/api/translate", [&](const httplib::Request& request, httplib::Response& response) {
    if (in_flight.fetch_add(1) >= options.max_in_flight) {
      --in_flight;
      refuse(response, 503, "busy: " + std::to_string(options.max_in_flight) + " translations are running; try again");
      return;
    }
    try {
      response.set_content(translate_request(request.body, runs, options), "application/json");
    } catch (const Error& e) {
      refuse(response, 400, e.what());
    } catch (const std::exception& e) {
      refuse(response, 500, std::string("internal error: ") + e.what());
    }
    --in_flight;
  });
  // What cpp-httplib answers by itself (404 no such page, 413 body too large, 400 unreadable request) gets a
  // JSON body too.
  server.set_error_handler(httplib::Server::Handler([](const httplib::Request&, httplib::Response& response) {
    if (!response.body.empty()) return;
    const std::string what = response.status == 404   ? "no such page: the explorer is at /"
                             : response.status == 413 ? "the request body is larger than 64 KiB"
                                                      : "bad request";
    refuse(response, response.status, what);
  }));

  if (!server.bind_to_port(options.host, options.port)) {
    throw Error("cannot listen on " + options.host + ":" + std::to_string(options.port) +
                " (is the port in use, or the address not this machine's?): choose another with --port or --host");
  }
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    server.stop();
  });
  std::printf("attnlab serve: the explorer is at http://%s:%d/ (%zu run%s); Ctrl-C stops it\n", options.host.c_str(),
              options.port, runs.size(), runs.size() == 1 ? "" : "s");
  std::fflush(stdout);
  const bool listened = server.listen_after_bind();
  pthread_kill(waiter.native_handle(), SIGTERM);      // the waiter is still waiting if listening ended by itself
  waiter.join();
  std::printf("attnlab serve: stopped\n");
  return listened ? 0 : 1;
}

// `attnlab serve`: its options and their help texts, read into ServeCommandOptions; main.cpp runs it.
Subcommand add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "serve",
      "Serve the explorer live: a page where you type a sentence, pick a run and a beam size, and see the "
      "translation with every view of `attnlab attention`. Listens on --host (127.0.0.1: this machine only, "
      "unless told otherwise) and --port; answers bad requests with a JSON error and status 400; Ctrl-C stops it.");
  subcommand->add_option("--run", options->runs, "A run folder (repeat --run for several runs to choose among)")
      ->required();
  subcommand->add_option("--port", options->port, "The TCP port (default 8080)")->check(CLI::Range(1, 65535));
  subcommand->add_option("--host", options->host, "The address to listen on (default 127.0.0.1)");
  subcommand->add_option("--checkpoint", options->checkpoint,
                         "best (default), latest, or the path of a checkpoint file");
  subcommand->add_option("--max-text-bytes", options->max_text_bytes,
                         "The longest sentence accepted, in bytes (default 1000)")
      ->check(CLI::Range(1, 100000));
  subcommand->add_option("--max-in-flight", options->max_in_flight,
                         "Translations computed at once; more are answered 503 (default 8)")
      ->check(CLI::Range(1, 64));
  return {subcommand, [options] { return serve_command(*options); }};
}

}  // namespace attnlab
