// work_queue.h — the translations `attnlab serve` computes: a fixed set of workers and a queue of bounded length.
//
// A request that needs the model is a job. try_submit() hands it to one of `workers` threads at once, or puts it
// in a queue of at most `queue_length` waiting jobs; when the queue is full it refuses at once (the server then
// answers 503 with Retry-After) instead of letting work pile up without bound. Each worker computes with
// `threads_per_worker` OpenMP threads (omp_set_num_threads is per thread), so W workers use at most W × that many
// cores however many requests arrive — not one team of every core per worker.
// stop() drops the jobs still waiting (each is told, so its connection gets an answer), lets the running ones
// finish and joins the workers.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace attnlab {

class WorkQueue {
 public:
  struct Job {
    std::function<void()> run;       // on a worker
    std::function<void()> dropped;   // instead of run, when the queue stops before the job's turn
  };

  WorkQueue(size_t workers, size_t queue_length, int threads_per_worker);
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;
  ~WorkQueue();

  bool try_submit(Job job);   // false: the workers are busy and the queue is full (or stopping)
  void stop();                // idempotent

  size_t workers() const { return workers_.size(); }
  size_t queue_length() const { return queue_length_; }

 private:
  void work(int threads);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> waiting_;
  size_t idle_ = 0;
  size_t queue_length_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace attnlab
