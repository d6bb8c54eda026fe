// work_queue.h — the translations `attnlab serve` computes: a fixed set of workers, a bounded queue, and each client
// its share.
//
// A request that needs the model is a job. try_submit() hands it to one of `workers` threads at once, or puts it
// in a queue of at most `queue_length` waiting jobs; when the queue is full it refuses at once (the server then
// answers 503 with Retry-After) instead of letting work pile up without bound. Each worker computes with
// `threads_per_worker` OpenMP threads (omp_set_num_threads is per thread), so W workers use at most W × that many
// cores however many requests arrive — not one team of every core per worker.
//
// Fair shares. Every job names its client (the address it came from) and its cost (the work it asks for, an
// upper estimate: explorer_api.h). Then
//   running(client) ≤ per_client             one client cannot take every worker (per_client < workers leaves a
//                                             worker for the others)
//   work(client)    ≤ client_work             its waiting and running jobs' costs together; beyond it, refused
//                                             (so one client cannot fill the queue with heavy work either)
// and a free worker takes, among the waiting jobs whose client is under its share, one of the client with the
// fewest jobs running, the oldest first: a client that sent one sentence goes before the tenth of another's.
// stop() drops the jobs still waiting (each is told, so its connection gets an answer), lets the running ones
// finish and joins the workers.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace attnlab {

struct WorkShares {
  size_t per_client = 1;       // jobs of one client running at once
  int64_t client_work = 0;     // the costs of one client's waiting and running jobs together (0: no bound)
};

class WorkQueue {
 public:
  struct Job {
    std::function<void()> run;       // on a worker
    std::function<void()> dropped;   // instead of run, when the queue stops before the job's turn
    std::string client;              // who asked: the share it counts against
    int64_t cost = 1;                // its work (explorer_api.h's estimate)
  };
  enum class Admitted { yes, queue_full, client_full };

  WorkQueue(size_t workers, size_t queue_length, int threads_per_worker, WorkShares shares);
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;
  ~WorkQueue();

  Admitted try_submit(Job job);   // not yes: nothing was queued (queue_full also when stopping)
  void stop();                    // idempotent

  size_t workers() const { return workers_.size(); }
  size_t queue_length() const { return queue_length_; }
  const WorkShares& shares() const { return shares_; }
  size_t running() const;         // jobs being computed now

 private:
  struct Share {
    size_t running = 0;
    int64_t work = 0;
  };
  void work(int threads);
  bool next_job(Job& job);        // under mutex_: takes the fairest waiting job, if one may run

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> waiting_;
  std::map<std::string, Share> clients_;   // clients with a job waiting or running
  size_t idle_ = 0, running_ = 0;
  size_t queue_length_;
  WorkShares shares_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace attnlab
