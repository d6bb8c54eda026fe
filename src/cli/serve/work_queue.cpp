// work_queue.cpp — W workers, a bounded queue, and each client's share (work_queue.h).
#include "cli/serve/work_queue.h"

#include <omp.h>

#include <utility>

namespace attnlab {

WorkQueue::WorkQueue(size_t workers, size_t queue_length, int threads_per_worker, WorkShares shares)
    : queue_length_(queue_length), shares_(shares) {
  for (size_t w = 0; w < workers; ++w) workers_.emplace_back([this, threads_per_worker] { work(threads_per_worker); });
}

WorkQueue::~WorkQueue() { stop(); }

WorkQueue::Admitted WorkQueue::try_submit(Job job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // Room: an idle worker for each job already waiting and this one, or a free place in the queue.
    const size_t waiting_for_queue = waiting_.size() + 1 > idle_ ? waiting_.size() + 1 - idle_ : 0;
    if (stopping_ || waiting_for_queue > queue_length_) return Admitted::queue_full;
    Share& share = clients_[job.client];
    if (shares_.client_work > 0 && share.work + job.cost > shares_.client_work) {
      if (share.work == 0) clients_.erase(job.client);
      return Admitted::client_full;
    }
    share.work += job.cost;
    waiting_.push_back(std::move(job));
  }
  wake_.notify_all();   // the worker that may take it is not always the first one woken
  return Admitted::yes;
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

size_t WorkQueue::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_;
}

bool WorkQueue::next_job(Job& job) {
  auto fairest = waiting_.end();
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    const size_t running = clients_[it->client].running;
    if (running >= shares_.per_client) continue;
    if (fairest == waiting_.end() || running < clients_[fairest->client].running) fairest = it;
  }
  if (fairest == waiting_.end()) return false;
  job = std::move(*fairest);
  waiting_.erase(fairest);
  ++clients_[job.client].running;
  return true;
}

void WorkQueue::work(int threads) {
  omp_set_num_threads(threads);   // this thread's parallel regions: its share of the cores, not all of them
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    Job job;
    ++idle_;
    wake_.wait(lock, [&] { return stopping_ || next_job(job); });
    --idle_;
    if (!job.run) return;          // stopping, nothing taken
    ++running_;
    lock.unlock();
    job.run();
    lock.lock();
    --running_;
    Share& share = clients_[job.client];
    --share.running;
    share.work -= job.cost;
    if (share.running == 0 && share.work <= 0) clients_.erase(job.client);
    wake_.notify_all();            // a job of this client may run now
  }
}

}  // namespace attnlab
