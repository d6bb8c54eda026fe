// data_parallel.h — data parallelism: N processes ("ranks") train one model, each on 1/N of every batch.
//
// Why the average of N shards' gradients is the global batch's gradient. The training loss of a batch is the
// mean over its target tokens (pad ignored):
//     L = (1/n) · Σ_{t ∈ batch} ℓ_t                      n = the batch's target tokens
// Cut the batch's sentences into N shards, shard r holding n_r of the tokens (Σ_r n_r = n). The sum splits:
//     L = Σ_r (n_r/n) · L_r        with  L_r = (1/n_r) · Σ_{t ∈ shard r} ℓ_t   (shard r's own mean loss)
// and the gradient is linear, so
//     ∂L/∂θ = Σ_r (n_r/n) · ∂L_r/∂θ
// Each rank computes its shard's mean loss L_r, weights it by its share of the tokens w_r = n_r/n before
// backward, and one all-reduce (every rank sends its gradient and receives the sum) gives every rank ∂L/∂θ —
// the very gradient one process would get from the whole batch. With equal shares (w_r = 1/N) that sum is the
// plain average of the N shard gradients; the weights only correct for shards of unequal token counts. So
// train.batch_tokens keeps its meaning (the *global* batch), and the optimisation is the same whatever N:
// only the order of floating-point additions changes (inside the shards' matrix products and in the
// all-reduce), which moves the losses in their last digits, not in what they mean.
//
// One step on every rank (train/step.h's training_step, through data_parallel_training.h):
//   global batch      the same Batcher, seed and position on every rank: every rank draws the same batch
//   shard()           this rank's rows of it: rows [r·B/N, (r+1)·B/N) of the padded [B, S] and [B, T] ids
//   forward, loss     L_r on the shard;  backward of w_r · L_r  (w_r = shard_weight())
//   sum_gradients()   one MPI_Allreduce (sum) over all gradients laid end to end in one flat buffer (or, with
//                     train.allreduce_bucket_mb, buckets of them summed while backward runs: gradient_buckets.h)
//   clip, Adam        on identical gradients every rank makes the identical update: the weights stay equal
// With train.shard_optimizer (ZeRO stage 1, sharded_optimizer.h) the last two lines change: each rank receives
// the sum of only its 1/N of the gradient (a reduce-scatter), clips and updates only those numbers with Adam,
// keeping their moments alone, and an all-gather hands every rank the others' new numbers.
// Rank 0 alone logs, validates and writes checkpoints and metrics.jsonl; the others train and wait for it.
// Before the first step every rank takes rank 0's weights, Adam's moments and position in the data
// (start_together, data_parallel_training.h), so a run resumes with any N; and before each step they agree on
// whether to stop (collective::max of their reasons), so Ctrl-C or the time limit stops them all after the same step.
//
// The messages themselves (MPI calls) live in data_parallel_mpi.cpp; a build without MPI compiles
// data_parallel_single.cpp instead, where one process is the whole job and every collective does nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/batch.h"
#include "nn/module.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// ---- The job: which rank this process is, and the collectives (data_parallel_mpi.cpp / _single.cpp) ------

// Started once per process by `attnlab train` (src/cli/train_command.cpp). Launched by mpirun it joins the
// job (MPI_Init); started alone it is rank 0 of 1 and MPI is never touched. In a build without MPI, a launch
// by mpirun with more than one process is refused (N separate runs would write the same folder).
class MpiJob {
 public:
  MpiJob();
  ~MpiJob();                      // MPI_Finalize, when MPI_Init ran
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;
};

namespace collective {
int rank();                                    // 0 … ranks() − 1; 0 outside a job
int ranks();                                   // N; 1 outside a job
int ranks_on_this_machine();                   // how many of them share this machine's cores
bool built_with_mpi();
void sum_in_place(real* values, int64_t count);          // every rank ends with Σ over the ranks
void sum_in_place_double(double* values, int64_t count);
int max(int value);                                      // the largest value any rank has
void broadcast(real* values, int64_t count);             // rank 0's values to every rank
void broadcast(int64_t* values, int64_t count);
void broadcast(std::string& text);
// ZeRO's collectives (sharded_optimizer.h). `all` holds N blocks of `block` numbers, block r being rank r's:
void reduce_scatter_sum(const real* all, real* mine, int64_t block);   // mine ← Σ over the ranks of their block r
void all_gather(const real* mine, real* all, int64_t block);           // every rank's block r ← rank r's mine
void gather_to_root(const real* mine, real* all, int64_t block);       // the same, on rank 0 alone
void barrier();                                          // every rank waits until all have arrived
[[noreturn]] void abort_job(int exit_code);              // ends every rank of the job (MPI_Abort)

// sum_in_place, started now and finished later (MPI_Iallreduce): the numbers travel while the caller computes.
// Every rank must start its sums in the same order (a collective is matched by its place in that order). Open
// MPI moves a started sum on only inside MPI calls, so a caller that computes for long calls done() now and then.
// One process: nothing to send, every sum is done at once. (gradient_buckets.h uses it.)
class SumInFlight {
 public:
  SumInFlight();
  ~SumInFlight();                                        // waits for a sum still in flight
  SumInFlight(SumInFlight&&) noexcept;
  SumInFlight& operator=(SumInFlight&&) = delete;
  SumInFlight(const SumInFlight&) = delete;
  SumInFlight& operator=(const SumInFlight&) = delete;

  void start(real* values, int64_t count);               // values ← Σ over the ranks, once wait() returns
  bool done();                                           // moves it on (MPI_Test); true once it has arrived
  void wait();                                           // until it has arrived (MPI_Wait)

 private:
  struct Request;                                        // MPI_Request (data_parallel_mpi.cpp), or nothing
  std::unique_ptr<Request> request_;
};
}  // namespace collective

// Adds the seconds since it was made to `total` when it goes: the time of one collective and its copies.
class Timed {
 public:
  explicit Timed(double& total) : total_(total) {}
  ~Timed() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count(); }
  Timed(const Timed&) = delete;
  Timed& operator=(const Timed&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// ---- What the training step uses -----------------------------------------------------------------------

class DataParallel {
 public:
  DataParallel();                                   // this process's place in the job (one process: 0 of 1)
  DataParallel(int rank, int ranks);                // shard() as rank r of N would (tests, in one process)

  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  bool is_root() const { return rank_ == 0; }       // rank 0: logs, validates, writes the run folder

  // This rank's rows of the global batch: rows [r·B/N, (r+1)·B/N) of src, tgt_in and targets, padded as in
  // the global batch, with their token counts. One process: the batch itself. May have 0 rows when B < N.
  const Batch& shard(const Batch& global);
  // w_r = n_r / n: the shard's share of the global batch's target tokens (1 for one process).
  static double shard_weight(const Batch& shard, const Batch& global);

  // Every parameter's gradient ← the sum over the ranks of that parameter's gradient, in one all-reduce over a
  // flat buffer. A parameter that no rank has a gradient for keeps none (Adam then leaves it alone, as with one
  // process); one that only some ranks have counts as zeros on the others. One process: nothing happens.
  void sum_gradients(const std::vector<NamedParameter>& parameters);
  // Seconds spent in sum_gradients() so far: the all-reduce, the copies around it, and waiting there for the
  // slowest rank to finish its backward pass — the time data parallelism costs on top of the computing.
  double communication_seconds() const { return communication_seconds_; }

 private:
  int rank_ = 0, ranks_ = 1;
  Batch shard_;                                     // the last shard() made
  std::vector<real> flat_;                          // all gradients end to end, + one "has a gradient" per parameter
  double communication_seconds_ = 0;
};

// Threads per rank for train.threads = `requested`: as asked, or, for 0 (all cores), this machine's cores
// shared among the ranks on it, so N ranks on one machine do not each start a thread per core. One process: 0
// stays 0 (use_threads, tensor/parallel.h, takes every core).
int64_t threads_per_rank(int64_t requested);

// A seed for rank r's dropout masks, from rank 0's generator state: different ranks draw different masks
// (the same masks would make shards' noise identical), and the same state and rank always give the same seed.
uint64_t dropout_seed_for_rank(const std::string& root_generator_state, int rank);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
