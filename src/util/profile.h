// profile.h — where does a training step's time go? Op by op, forward and backward (`attnlab bench --profile`).
//
// A step is a few hundred ops. Their times, summed per kind of op ("matmul", "softmax", "layer_norm", …), show
// which ops the step is made of — and, measured on 1 thread and on N, which of them do not get faster with more
// cores. Amdahl's law says those set the limit: if a share s of the step does not speed up at all, N cores can
// never make the step more than 1 / (s + (1 − s)/N) times faster.
//
// How each op is timed, without a timer in every op:
//   forward   from the end of the previous op (or the last mark()) to the moment this op calls record() (graph.h).
//             Every op computes its output and then records itself, so that span is the op's own computation
//             (plus whatever the model did between the two ops: a few microseconds of bookkeeping).
//   backward  the op's backward function, timed by the backward sweep (graph.cpp).
//   other     code that is not an op (the optimizer, gradient clipping) times itself with a Scope.
// When no profile is running, all this costs one test of a flag per op. The engine (src/autograd/graph.cpp) calls
// it; it lives here, below the engine, because it holds no real numbers and both precisions share one table.
// Not thread-safe: ops are recorded, and backward swept, by one thread (their loops may use many).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::profile {

enum class Pass { forward, backward, other };
const char* pass_name(Pass pass);   // "forward", "backward", "other"

struct Row {
  std::string op;       // the name the op records (graph.h), or a Scope's name
  Pass pass = Pass::forward;
  int64_t calls = 0;
  double seconds = 0;   // in total, over every call since start()
};

void start();           // clears what was collected and starts collecting
void stop();            // stops collecting (what was collected stays readable)
bool running();
void mark();            // what happens between here and the next op is not that op's
std::vector<Row> rows();   // what was collected, in the order each (op, pass) first appeared

// Called by the engine: the op named `op` has just computed its forward output (record()), or its backward
// function is about to run / has run.
void forward_done(const char* op);
std::chrono::steady_clock::time_point now();
void add(const char* op, Pass pass, std::chrono::steady_clock::time_point since);

// Times its own lifetime as one call of `name` (pass `other`) when a profile is running; nothing otherwise.
class Scope {
 public:
  explicit Scope(const char* name);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  const char* name_;
  bool timing_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace attnlab::profile
