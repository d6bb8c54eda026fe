// work_queue.cpp — W workers and a bounded queue of jobs (work_queue.h).
#include "cli/serve/work_queue.h"

#include <omp.h>

#include <utility>

namespace attnlab {

WorkQueue::WorkQueue(size_t workers, size_t queue_length, int threads_per_worker) : queue_length_(queue_length) {
  for (size_t w = 0; w < workers; ++w) workers_.emplace_back([this, threads_per_worker] { work(threads_per_worker); });
}

WorkQueue::~WorkQueue() { stop(); }

bool WorkQueue::try_submit(Job job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Room: an idle worker for each job already waiting and this one, or a free place in the queue.
    const size_t waiting_for_queue = waiting_.size() + 1 > idle_ ? waiting_.size() + 1 - idle_ : 0;
    if (stopping_ || waiting_for_queue > queue_length_) return false;
    waiting_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void WorkQueue::stop() {
  std::deque<Job> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    dropped.swap(waiting_);
  }
  wake_.notify_all();
  for (Job& job : dropped) job.dropped();
  for (std::thread& worker : workers_) worker.join();
}

void WorkQueue::work(int threads) {
  omp_set_num_threads(threads);   // this thread's parallel regions: its share of the cores, not all of them
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    ++idle_;
    wake_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
    --idle_;
    if (waiting_.empty()) return;   // stopping, nothing left
    Job job = std::move(waiting_.front());
    waiting_.pop_front();
    lock.unlock();
    job.run();
    lock.lock();
  }
}

}  // namespace attnlab
