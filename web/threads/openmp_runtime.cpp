// openmp_runtime.cpp — a small OpenMP runtime over pthreads, for the threaded browser build (cmake/browser.cmake,
// preset wasm-threads). Emscripten ships none: clang -fopenmp turns every `#pragma omp` of the chapters into calls
// of LLVM's OpenMP runtime (libomp's ABI, the __kmpc_* functions), and this file is what answers them. Emscripten
// runs each pthread as a Web Worker over the page's one SharedArrayBuffer memory.
//
// Only the calls the chapters' pragmas compile to (found by linking them; cmake/browser.cmake), nothing more:
//   __kmpc_fork_call(loc, argc, microtask, args…)   `#pragma omp parallel`: run microtask(&tid, &tid, args…) on
//                            every thread of a team — thread 0 is the caller — and return when all have finished
//   __kmpc_push_num_threads(loc, gtid, n)            num_threads(n): the next fork of this thread uses n threads
//   __kmpc_serialized_parallel / __kmpc_end_serialized_parallel   a region whose `if` clause is false: clang calls
//                            the microtask itself, on the calling thread, between these two (a team of one)
//   __kmpc_global_thread_num(loc)                    an id of the calling thread (here: its number in its team)
//   __kmpc_for_static_init_4/_4u/_8/_8u(…), __kmpc_for_static_fini   `#pragma omp for schedule(static[, c])`:
//                            this thread's share of the iterations, computed as libomp computes it (below)
//   __kmpc_dispatch_init_4/_8, __kmpc_dispatch_next_4/_8   schedule(dynamic[, c]): the threads take chunks of c
//                            iterations from a shared counter, in the order they come for them
//   __kmpc_barrier(loc, gtid)                        `#pragma omp barrier`: wait for every thread of the team
// and the omp_* functions of web/threads/omp.h.
//
// The team is persistent: its threads are started at the first parallel region (Emscripten hands each a Web Worker
// of the pool the engine preloads, -sPTHREAD_POOL_SIZE), then wait for the next region. A region inside a region
// runs on the calling thread alone (a team of one), as libomp does with nesting off — product.cpp's products and
// Eigen ask omp_in_parallel() and stay on one thread there anyway.
// Waiting: a waiting thread first spins on the word it waits for (a few tens of µs: the next region usually comes
// sooner, and waking a sleeping Web Worker costs about as much), then sleeps on a condition variable.
// Results: which iterations a thread runs never changes a number the chapters compute — src/tensor/parallel.h
// chunks every loop that sums by the size of its data, never by the thread count — so this runtime gives the
// native build's bits (the reproducibility contract, tests/web/live_threads_browser_test.py).
#include <emscripten.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "omp.h"

namespace {

// ---- waiting: spin a while on an atomic word, then sleep until someone changes it and calls wake_all ----
pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t sleep_signal = PTHREAD_COND_INITIALIZER;
constexpr int spin_checks = 20000;                     // ~20–50 µs of checking before going to sleep

void wait_while_equal(const std::atomic<uint32_t>& word, uint32_t value) {
  for (int i = 0; i < spin_checks; ++i) {
    if (word.load(std::memory_order_acquire) != value) return;
  }
  pthread_mutex_lock(&sleep_lock);
  while (word.load(std::memory_order_acquire) == value) pthread_cond_wait(&sleep_signal, &sleep_lock);
  pthread_mutex_unlock(&sleep_lock);
}

void wake_all() {                                      // after changing a word others may sleep on
  pthread_mutex_lock(&sleep_lock);                     // a sleeper checks its word under this lock: none misses it
  pthread_mutex_unlock(&sleep_lock);
  pthread_cond_broadcast(&sleep_signal);
}

// ---- the team: what the threads run, and the words they wait on ----
using Microtask = void (*)(int32_t* gtid, int32_t* btid, ...);
constexpr int max_arguments = 32;                      // the most a chapter's region captures: 13 (measured)

struct Dynamic {                                       // schedule(dynamic): the loop's shared counter
  std::atomic<int64_t> next{0};                        // the next iteration no thread has taken yet
  int64_t upper = 0, step = 1, chunk = 1;
};

struct Team {
  std::vector<pthread_t> workers;                      // threads 1 … workers.size() (thread 0 is the caller)
  std::atomic<bool> busy{false};                       // a region is running: a second caller runs alone
  std::atomic<uint32_t> region{0};                     // +1 per region: the workers wake on it
  Microtask microtask = nullptr;                       // the region's body, its arguments, its team size
  void* arguments[max_arguments] = {};
  int argument_count = 0;
  int size = 1;
  std::atomic<uint32_t> finished{0};                   // workers done with the current region (all of them
                                                       // answer every region, those outside its team at once)
  std::atomic<uint32_t> arrived{0};                    // threads at the current barrier
  std::atomic<uint32_t> barrier_round{0};              // +1 per barrier passed
  Dynamic dynamic;
};
Team team;
std::atomic<int> max_threads{0};                       // omp_set_num_threads; 0: the cores (as many as given)

// This thread's place: its number in its team, the team's size, how many parallel regions of more than one
// thread it is inside, and the team size its next fork asks (num_threads).
struct Place {
  int thread = 0, size = 1, active_levels = 0, next_size = 0;
};
thread_local Place place;
thread_local std::vector<Place> serialized_outer;      // the places __kmpc_serialized_parallel left, innermost last
thread_local Dynamic dynamic_alone;                    // a dynamic loop in a team of one

// ---- running a microtask: its type must match exactly (a WebAssembly call checks the signature) ----
// Clang's outlined region is void(int32_t*, int32_t*, void* × argc); call it with its own argument count.
template <size_t>
using Argument = void*;                                // every captured variable comes as a pointer

template <size_t... I>
void call_with(Microtask microtask, int32_t* id, void* const* arguments, std::index_sequence<I...>) {
  using Exact = void (*)(int32_t*, int32_t*, Argument<I>...);
  reinterpret_cast<Exact>(reinterpret_cast<void*>(microtask))(id, id, arguments[I]...);
}

template <size_t... Counts>
void call_as_declared(Microtask microtask, int argc, void* const* arguments, std::index_sequence<Counts...>) {
  int32_t id = place.thread;
  ((argc == int(Counts) ? call_with(microtask, &id, arguments, std::make_index_sequence<Counts>()) : void()), ...);
}

// The region's body as thread `thread` of a team of `size`.
void run_as(int thread, int size, Microtask microtask, int argc, void* const* arguments) {
  const Place outer = place;
  place = {thread, size, outer.active_levels + (size > 1 ? 1 : 0), 0};
  call_as_declared(microtask, argc, arguments, std::make_index_sequence<max_arguments + 1>());
  place = outer;
}

struct WorkerStart {
  int thread;                                          // its number in the team
  uint32_t region;                                     // the last region before it was started
};

void* worker_main(void* start) {                       // thread `thread` of the team, for the program's life
  const WorkerStart first = *static_cast<WorkerStart*>(start);
  delete static_cast<WorkerStart*>(start);
  for (uint32_t seen = first.region;; seen += 1) {     // every region, one after the other
    wait_while_equal(team.region, seen);
    if (first.thread < team.size) {
      run_as(first.thread, team.size, team.microtask, team.argument_count, team.arguments);
    }
    team.finished.fetch_add(1, std::memory_order_acq_rel);
    wake_all();
  }
  return nullptr;
}

// The team's threads, started once: as many as `size` − 1 asks, or fewer if the browser gives no more workers.
int workers_for(int size) {
  while (static_cast<int>(team.workers.size()) < size - 1) {
    pthread_t worker;
    auto* start = new WorkerStart{static_cast<int>(team.workers.size()) + 1, team.region.load()};
    if (pthread_create(&worker, nullptr, worker_main, start) != 0) {
      delete start;
      break;
    }
    team.workers.push_back(worker);
  }
  return static_cast<int>(team.workers.size()) + 1;
}

void barrier(int size) {
  if (size <= 1) return;
  const uint32_t round = team.barrier_round.load(std::memory_order_acquire);
  if (team.arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<uint32_t>(size)) {
    team.arrived.store(0, std::memory_order_relaxed);  // the last to arrive opens the barrier
    team.barrier_round.fetch_add(1, std::memory_order_acq_rel);
    wake_all();
    return;
  }
  wait_while_equal(team.barrier_round, round);
}

// libomp's static schedule (kmp_sched.cpp, __kmp_for_static_init), for iterations lower, lower + step, … upper:
//   schedule(static)      trip < team: thread t takes iteration t alone; else each thread one block of
//                         ⌈trip / team⌉ iterations, in thread order (libomp's default "greedy" split)
//   schedule(static, c)   blocks of c iterations dealt round-robin: thread t starts at block t, strides team·c
// plower/pupper come in as the whole loop and go out as this thread's first block; pstride is the distance to its
// next block. (g++'s libgomp, the native build's runtime, splits schedule(static) slightly differently — every
// thread ⌊trip/team⌋ or one more — which changes which thread does what, never a result: see the top.)
template <typename T, typename Signed>
void static_schedule(int32_t schedule, int32_t* plastiter, T* plower, T* pupper, Signed* pstride, Signed step,
                     Signed chunk) {
  const int thread = place.thread, size = place.size;
  if (step == 0 || (step > 0 ? *pupper < *plower : *plower < *pupper)) {   // no iterations
    if (plastiter) *plastiter = 0;
    *pstride = step;
    return;
  }
  using Unsigned = std::make_unsigned_t<T>;
  const Unsigned trip = step > 0 ? Unsigned(*pupper - *plower) / Unsigned(step) + 1
                                 : Unsigned(*plower - *pupper) / Unsigned(-step) + 1;
  if (schedule == 33) {                                // kmp_sch_static_chunked
    if (chunk < 1) chunk = 1;
    const Signed span = chunk * step;
    *pstride = span * size;
    *plower += span * thread;
    *pupper = *plower + span - step;
    if (plastiter) *plastiter = Unsigned(thread) == ((trip - 1) / Unsigned(chunk)) % Unsigned(size);
    return;
  }
  if (trip < Unsigned(size)) {                         // kmp_sch_static, fewer iterations than threads
    if (Unsigned(thread) < trip) *pupper = *plower = *plower + thread * step;
    else *plower = *pupper + step;
    if (plastiter) *plastiter = Unsigned(thread) == trip - 1;
  } else {                                             // kmp_sch_static, greedy
    const T last = *pupper;
    const Signed block = Signed(trip / Unsigned(size) + (trip % Unsigned(size) ? 1 : 0)) * step;
    *plower += thread * block;
    *pupper = *plower + block - step;
    if (step > 0 ? *pupper > last : *pupper < last) *pupper = last;
    if (plastiter) *plastiter = *plower <= *pupper && *pupper == last;
  }
  *pstride = Signed(trip);
}

// schedule(dynamic, c): every thread of the team comes here for the loop; thread 0 sets the shared counter once
// all have finished the previous loop (the first barrier) and before any takes a chunk (the second).
Dynamic& dynamic_state() { return place.size > 1 ? team.dynamic : dynamic_alone; }

void dynamic_start(int64_t lower, int64_t upper, int64_t step, int64_t chunk) {
  barrier(place.size);
  if (place.thread == 0) {
    Dynamic& loop = dynamic_state();
    loop.next.store(lower, std::memory_order_relaxed);
    loop.upper = upper, loop.step = step, loop.chunk = chunk < 1 ? 1 : chunk;
  }
  barrier(place.size);
}

bool dynamic_next(int64_t* lower, int64_t* upper, int32_t* plast) {   // the next chunk, or false: none left
  Dynamic& loop = dynamic_state();
  const int64_t span = loop.chunk * loop.step;
  const int64_t first = loop.next.fetch_add(span, std::memory_order_acq_rel);
  if (loop.step > 0 ? first > loop.upper : first < loop.upper) return false;
  *lower = first;
  *upper = loop.step > 0 ? std::min(first + span - loop.step, loop.upper)
                         : std::max(first + span - loop.step, loop.upper);
  if (plast) *plast = *upper == loop.upper;
  return true;
}

// How many threads a region gets: num_threads or omp_set_num_threads, but one inside another region (no nesting)
// or while another thread's region holds the team; true in `claimed` when this region holds it.
int team_size_for_region(bool& claimed) {
  const int asked = place.next_size > 0 ? place.next_size : omp_get_max_threads();
  place.next_size = 0;
  bool idle = false;
  claimed = place.active_levels == 0 && asked > 1 && team.busy.compare_exchange_strong(idle, true);
  return claimed ? std::min(asked, workers_for(asked)) : 1;
}

// How many threads the engine may run: createAttnlab({threads: N}) preloads N − 1 Web Workers
// (-sPTHREAD_POOL_SIZE=Module.threads-1, web/CMakeLists.txt). A thread beyond them would need a new Web Worker, which
// starts only once the engine returns to the browser's event loop — never, while a region waits for it.
EM_JS(int, threads_the_page_gave, (), { return Module.threads > 0 ? Module.threads : 1; });

const int threads_given = std::max(1, threads_the_page_gave());   // read as the engine starts, on its own thread

}  // namespace

extern "C" {

int omp_get_thread_num() { return place.thread; }
int omp_get_num_threads() { return place.size; }
int omp_in_parallel() { return place.active_levels > 0 ? 1 : 0; }
void omp_set_num_threads(int threads) { max_threads.store(threads > 0 ? threads : 1); }
int omp_get_max_threads() {                            // what was asked, within the Web Workers the page gave
  const int threads = max_threads.load();
  return std::min(threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency()), threads_given);
}

int32_t __kmpc_global_thread_num(void*) { return place.thread; }
void __kmpc_push_num_threads(void*, int32_t, int32_t threads) { place.next_size = threads; }

void __kmpc_serialized_parallel(void*, int32_t) {       // clang then runs the region's body itself, here
  serialized_outer.push_back(place);
  place = {0, 1, place.active_levels, 0};
}
void __kmpc_end_serialized_parallel(void*, int32_t) {
  place = serialized_outer.back();
  serialized_outer.pop_back();
}

void __kmpc_fork_call(void*, int32_t argc, Microtask microtask, ...) {
  if (argc > max_arguments) {
    std::fprintf(stderr, "openmp_runtime.cpp: a parallel region captures %d variables, more than %d\n", argc,
                 max_arguments);
    std::abort();
  }
  void* arguments[max_arguments];
  va_list list;
  va_start(list, microtask);
  for (int i = 0; i < argc; ++i) arguments[i] = va_arg(list, void*);
  va_end(list);
  bool claimed = false;
  const int size = team_size_for_region(claimed);
  if (size > 1) {
    team.microtask = microtask, team.argument_count = argc, team.size = size;
    std::copy(arguments, arguments + argc, team.arguments);
    team.finished.store(0, std::memory_order_relaxed);
    team.region.fetch_add(1, std::memory_order_acq_rel);   // the workers wake
    wake_all();
  }
  run_as(0, size, microtask, argc, arguments);            // thread 0's share (all of it in a team of one)
  const uint32_t workers = size > 1 ? static_cast<uint32_t>(team.workers.size()) : 0;
  for (uint32_t done; (done = team.finished.load(std::memory_order_acquire)) < workers;) {
    wait_while_equal(team.finished, done);
  }
  if (claimed) team.busy.store(false, std::memory_order_release);
}

void __kmpc_barrier(void*, int32_t) { barrier(place.size); }

void __kmpc_for_static_init_4(void*, int32_t, int32_t schedule, int32_t* plastiter, int32_t* plower,
                              int32_t* pupper, int32_t* pstride, int32_t step, int32_t chunk) {
  static_schedule(schedule, plastiter, plower, pupper, pstride, step, chunk);
}
void __kmpc_for_static_init_4u(void*, int32_t, int32_t schedule, int32_t* plastiter, uint32_t* plower,
                               uint32_t* pupper, int32_t* pstride, int32_t step, int32_t chunk) {
  static_schedule(schedule, plastiter, plower, pupper, pstride, step, chunk);
}
void __kmpc_for_static_init_8(void*, int32_t, int32_t schedule, int32_t* plastiter, int64_t* plower,
                              int64_t* pupper, int64_t* pstride, int64_t step, int64_t chunk) {
  static_schedule(schedule, plastiter, plower, pupper, pstride, step, chunk);
}
void __kmpc_for_static_init_8u(void*, int32_t, int32_t schedule, int32_t* plastiter, uint64_t* plower,
                               uint64_t* pupper, int64_t* pstride, int64_t step, int64_t chunk) {
  static_schedule(schedule, plastiter, plower, pupper, pstride, step, chunk);
}
void __kmpc_for_static_fini(void*, int32_t) {}           // nothing to undo

void __kmpc_dispatch_init_8(void*, int32_t, int32_t, int64_t lower, int64_t upper, int64_t step, int64_t chunk) {
  dynamic_start(lower, upper, step, chunk);
}
int32_t __kmpc_dispatch_next_8(void*, int32_t, int32_t* plast, int64_t* plower, int64_t* pupper, int64_t* pstride) {
  if (!dynamic_next(plower, pupper, plast)) return 0;
  *pstride = dynamic_state().step;
  return 1;
}
void __kmpc_dispatch_init_4(void*, int32_t, int32_t, int32_t lower, int32_t upper, int32_t step, int32_t chunk) {
  dynamic_start(lower, upper, step, chunk);
}
int32_t __kmpc_dispatch_next_4(void*, int32_t, int32_t* plast, int32_t* plower, int32_t* pupper, int32_t* pstride) {
  int64_t lower = 0, upper = 0;
  if (!dynamic_next(&lower, &upper, plast)) return 0;
  *plower = static_cast<int32_t>(lower), *pupper = static_cast<int32_t>(upper);
  *pstride = static_cast<int32_t>(dynamic_state().step);
  return 1;
}

}  // extern "C"
