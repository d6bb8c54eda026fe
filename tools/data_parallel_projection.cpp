// data_parallel_projection.cpp — how data parallelism would scale to more machines: a calculation, not a guess
// (docs/guide/data-parallelism.md prints its table).
//
// Inputs: the model's parameter count P (attnlab train logs it: "model: P parameters"), the step time T measured
// on one machine for the global batch (train.batch_tokens), and the tokens in that batch.
// The model of one step on N machines, with the global batch fixed (as train.batch_tokens is):
//     compute(N) = T / N                                 each machine does 1/N of the forward and backward
//     bytes      = 4 · P                                 the gradient, float32
//     comm(N)    = 2 · (N − 1)/N · bytes / bandwidth     ring all-reduce: a reduce-scatter and an all-gather,
//                + 2 · (N − 1) · latency                 each N − 1 steps that move 1/N of the bytes
//     step(N)    = compute(N) + comm(N)                  attnlab sums the gradients after backward: no overlap
//     speed-up   = T / step(N)
// and, second table, with the batch per machine fixed instead (train.batch_tokens raised N-fold, the usual way
// to use a cluster; it changes the optimisation, as any larger batch does):
//     step(N)    = T + comm(N)                           speed-up in tokens/s = N · T / step(N)
// Assumptions, stated because they decide the answer: every machine computes as fast as the measured one and
// its share scales perfectly (1/N of the batch takes 1/N of the time — optimistic for small shards, whose
// matrix products run less efficiently); the network delivers its nominal bandwidth to each link of the ring
// (no other traffic, full duplex); the latency per message is --latency-us (default 50 µs, a commodity
// Ethernet switch with TCP); the optimizer step and everything else in T scale like the compute (Adam runs
// on every machine in full, so this flatters large N slightly).
//
//   usage: data_parallel_projection --parameters P --step-seconds T [--tokens T] [--latency-us L]
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct Inputs {
  double parameters = 0;     // P
  double step_seconds = 0;   // T, one machine, the whole global batch
  double tokens = 0;         // tokens per step (source + target), for tokens/s; 0: not shown
  double latency_seconds = 50e-6;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr, "data_parallel_projection: %s\nusage: data_parallel_projection --parameters P "
               "--step-seconds T [--tokens N] [--latency-us L]\n", problem.c_str());
  std::exit(2);
}

double positive_number(const std::string& option, const char* text, bool zero_allowed) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(value > 0 || (zero_allowed && value == 0))) {
    usage(option + " needs a number " + (zero_allowed ? ">= 0" : "> 0") + ", got '" + text + "'");
  }
  return value;
}

Inputs read_inputs(int argc, char** argv) {
  Inputs in;
  for (int i = 1; i < argc; ++i) {
    const std::string option = argv[i];
    if (i + 1 >= argc) usage(option + " needs a value");
    const char* value = argv[++i];
    if (option == "--parameters") in.parameters = positive_number(option, value, false);
    else if (option == "--step-seconds") in.step_seconds = positive_number(option, value, false);
    else if (option == "--tokens") in.tokens = positive_number(option, value, true);
    else if (option == "--latency-us") in.latency_seconds = positive_number(option, value, true) * 1e-6;
    else usage("unknown option " + option);
  }
  if (in.parameters == 0 || in.step_seconds == 0) usage("--parameters and --step-seconds are required");
  return in;
}

// Ring all-reduce of `bytes` over N machines: 2·(N − 1)/N · bytes / bandwidth + 2·(N − 1) · latency.
double all_reduce_seconds(int N, double bytes, double gigabits_per_second, double latency_seconds) {
  if (N == 1) return 0;
  return 2.0 * (N - 1) / N * bytes / (gigabits_per_second * 1e9 / 8) + 2.0 * (N - 1) * latency_seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const Inputs in = read_inputs(argc, argv);
  const double bytes = 4 * in.parameters;                       // float32 gradients
  const double gigabits[] = {1, 10, 25};
  std::printf("P = %.0f parameters (%.1f MB of float32 gradient), T = %.1f ms per step on one machine, "
              "latency %.0f µs per message\n\n", in.parameters, bytes / 1e6, in.step_seconds * 1e3,
              in.latency_seconds * 1e6);
  std::printf("| machines | all-reduce ms, 1 / 10 / 25 Gbit/s | step ms, 1 / 10 / 25 Gbit/s "
              "| speed-up, 1 / 10 / 25 Gbit/s |%s\n",
              in.tokens > 0 ? " tokens/s at 10 Gbit/s |" : "");
  std::printf("|---:|---:|---:|---:|%s\n", in.tokens > 0 ? "---:|" : "");
  for (int N : {1, 2, 4, 8, 16, 32, 64}) {
    double comm[3], step[3];
    for (int k = 0; k < 3; ++k) {
      comm[k] = all_reduce_seconds(N, bytes, gigabits[k], in.latency_seconds);
      step[k] = in.step_seconds / N + comm[k];
    }
    std::printf("| %d | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %.2f / %.2f / %.2f |", N, comm[0] * 1e3,
                comm[1] * 1e3, comm[2] * 1e3, step[0] * 1e3, step[1] * 1e3, step[2] * 1e3, in.step_seconds / step[0],
                in.step_seconds / step[1], in.step_seconds / step[2]);
    if (in.tokens > 0) std::printf(" %.0f |", in.tokens / step[1]);
    std::printf("\n");
  }
  std::printf("\nWith the batch per machine fixed (train.batch_tokens × machines):\n\n");
  std::printf("| machines | step ms, 1 / 10 / 25 Gbit/s | speed-up in tokens/s, 1 / 10 / 25 Gbit/s |\n"
              "|---:|---:|---:|\n");
  for (int N : {1, 2, 4, 8, 16, 32, 64}) {
    double step[3];
    for (int k = 0; k < 3; ++k) {
      step[k] = in.step_seconds + all_reduce_seconds(N, bytes, gigabits[k], in.latency_seconds);
    }
    std::printf("| %d | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f |\n", N, step[0] * 1e3, step[1] * 1e3, step[2] * 1e3,
                N * in.step_seconds / step[0], N * in.step_seconds / step[1], N * in.step_seconds / step[2]);
  }
  return 0;
}
