// gradient_buckets.h — the ranks' gradients summed in buckets while backward is still running.
//
// Li et al. 2020, "PyTorch Distributed: Experiences on Accelerating Data Parallel Training" (§3.2.3, gradient
// bucketing; §3.2.4, overlapping computation with communication); Sergeev & Del Balso 2018, Horovod's "tensor
// fusion". Plain data parallelism (data_parallel.h) waits for backward to end and then sums every gradient over
// the ranks in one all-reduce: the network idles while the cores compute, and the cores idle while it sends.
// But backward runs from the loss down, so the last layers' gradients are complete long before the first
// layers' are. Cut the parameters into buckets of about B bytes, in reverse order of use (the last parameters
// first), and start a bucket's sum the moment all of its gradients are complete; the sums of the top layers
// then travel while backward computes the layers below them. A step's time goes from
//     t_backward + t_allreduce(all)        to about        t_backward + t_allreduce(last bucket)
// when the sending keeps up. Why buckets and not one sum per parameter: every all-reduce pays a fixed latency α
// besides its bytes (α + bytes/bandwidth), and a Transformer has ~16 small tensors per layer (biases, norms);
// why not one bucket: then nothing could start before the end.
//
// When is a gradient complete? A parameter used twice receives two contributions: with tied embeddings
// (model.tie_output) the target embedding is looked up at the bottom of the decoder and multiplied at its top,
// so its gradient is complete only when backward has come all the way down. autograd's sweep reaches a node
// only after every node that used it (autograd/graph.h), so it tells us each parameter as it reaches it
// (backward(loss, gradient_final)), and that is the moment — whatever the model's wiring. With
// train.accumulate > 1 the gradients add up over the step's batches: only the last batch's backward finishes them.
//
// The sum of a bucket is the same a + b as in the single all-reduce (each number is summed over the ranks
// alone, whatever bucket it travels in), so on two ranks the losses are bit for bit those without buckets
// (tests/distributed/mpi_test.sh checks it). Every rank must start its buckets in the same order: a bucket starts only after
// the ones before it, and finish() starts whatever is left in that order — a rank whose shard of the batch was
// empty runs no backward at all and starts every bucket there.
//
// The step, with train.allreduce_bucket_mb = B > 0 (train/step.h's training_step via data_parallel_training.h):
//   expect_backward()     before the step's last backward: every bucket waits for its parameters again
//   gradient_final(leaf)  from inside backward: this parameter is complete; start every bucket that now is,
//                         in order, and let the sums already in flight move on (Open MPI progresses them only
//                         inside MPI calls)
//   finish()              after backward: start the rest, wait for all, write the sums back into the gradients
// One process has no one to sum with and no hook is installed: backward runs exactly as without this file.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "autograd/backward_hook.h"
#include "distributed/data_parallel.h"
#include "nn/module.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class GradientBuckets {
 public:
  // Buckets of about `bucket_mb` megabytes of gradient over `parameters`, taken from the last parameter back to
  // the first; a parameter larger than that has a bucket of its own.
  GradientBuckets(const std::vector<NamedParameter>& parameters, double bucket_mb);

  void expect_backward();                        // before the step's last backward
  void gradient_final(const TensorNode& leaf);   // the hook (autograd/graph.h's GradientFinal)
  // Every rank calls it once per step, after the last backward (or instead of it): every parameter's gradient ←
  // the sum over the ranks. As in DataParallel::sum_gradients, a parameter no rank has a gradient for keeps
  // none, and one that only some ranks have counts as zeros on the others.
  void finish();

  size_t bucket_count() const { return buckets_.size(); }
  // Of the last step's buckets, how many started while backward was still running (the others: in finish()).
  size_t started_during_backward() const { return started_during_backward_; }
  // Seconds spent in the hook and in finish() so far: the copies, the starts and the wait for the last sums.
  double communication_seconds() const { return communication_seconds_; }

 private:
  struct Bucket {
    std::vector<size_t> parameters;    // indices into parameters_, last-used first
    std::vector<real> flat;            // their gradients end to end, then one "has a gradient" per parameter
    size_t waiting = 0;                // parameters whose gradient is not yet complete in this backward
    collective::SumInFlight sum;
  };

  void start(Bucket& bucket);          // copy the gradients in, start the sum
  void start_ready_buckets();          // every bucket, in order, that has nothing left to wait for
  void progress();                     // MPI_Test on the oldest sum in flight

  std::vector<NamedParameter> parameters_;
  std::unordered_map<const TensorNode*, size_t> index_of_;   // a parameter's node → its index in parameters_
  std::vector<size_t> bucket_of_;                            // parameter index → its bucket
  std::vector<bool> final_;                                  // parameter index → complete in this backward
  std::vector<Bucket> buckets_;                              // in the order they are started
  size_t next_to_start_ = 0, oldest_in_flight_ = 0;
  size_t started_during_backward_ = 0;
  double communication_seconds_ = 0;
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
