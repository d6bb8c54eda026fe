// gradient_buckets.cpp — buckets of gradients summed while backward runs (the idea and the step: gradient_buckets.h).
#include "distributed/gradient_buckets.h"

#include <algorithm>
#include <limits>
#include <string>

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

GradientBuckets::GradientBuckets(const std::vector<NamedParameter>& parameters, double bucket_mb)
    : parameters_(parameters), bucket_of_(parameters.size()), final_(parameters.size(), false) {
  const double bucket_numbers = bucket_mb * 1024 * 1024 / sizeof(real);   // MB = 2²⁰ bytes, as PyTorch DDP counts
  // Reverse order of use: backward finishes the last parameters first.
  for (size_t i = parameters.size(); i-- > 0;) {
    index_of_.emplace(&parameters[i].tensor.node(), i);   // a parameter listed twice: its first place
    const int64_t numel = parameters[i].tensor.numel();
    const double filled = buckets_.empty() ? 0.0 : static_cast<double>(buckets_.back().flat.size());
    if (buckets_.empty() || filled + static_cast<double>(numel) > bucket_numbers) buckets_.emplace_back();
    Bucket& bucket = buckets_.back();
    bucket.parameters.push_back(i);
    bucket.flat.resize(bucket.flat.size() + static_cast<size_t>(numel));   // the flags are appended below
    bucket_of_[i] = buckets_.size() - 1;
  }
  for (Bucket& bucket : buckets_) {
    bucket.flat.resize(bucket.flat.size() + bucket.parameters.size());    // + one "has a gradient" each
    if (bucket.flat.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
      throw Error("train.allreduce_bucket_mb: a bucket of " + std::to_string(bucket.flat.size()) +
                  " numbers is more than one MPI message can count; choose a smaller train.allreduce_bucket_mb");
    }
  }
  expect_backward();
}

void GradientBuckets::expect_backward() {
  std::fill(final_.begin(), final_.end(), false);
  for (Bucket& bucket : buckets_) {
    bucket.sum.wait();                          // (the last step's finish() has waited already)
    bucket.waiting = bucket.parameters.size();
  }
  next_to_start_ = oldest_in_flight_ = 0;
  started_during_backward_ = 0;
}

void GradientBuckets::gradient_final(const TensorNode& leaf) {
  const auto found = index_of_.find(&leaf);
  if (found == index_of_.end() || final_[found->second]) return;   // not a parameter, or told already
  Timed timed(communication_seconds_);
  final_[found->second] = true;
  --buckets_[bucket_of_[found->second]].waiting;
  const size_t before = next_to_start_;
  start_ready_buckets();
  started_during_backward_ += next_to_start_ - before;
  progress();
}

void GradientBuckets::start_ready_buckets() {
  while (next_to_start_ < buckets_.size() && buckets_[next_to_start_].waiting == 0) start(buckets_[next_to_start_++]);
}

void GradientBuckets::start(Bucket& bucket) {
  // Layout: the bucket's gradients end to end (zeros where this rank has none), then one number per parameter,
  // 1 where this rank has a gradient for it; after the sum it counts the ranks that had one.
  real* at = bucket.flat.data();
  real* has_gradient = bucket.flat.data() + bucket.flat.size() - bucket.parameters.size();
  for (size_t k = 0; k < bucket.parameters.size(); ++k) {
    const Tensor& tensor = parameters_[bucket.parameters[k]].tensor;
    if (tensor.has_grad()) std::copy_n(tensor.grad_values().data(), tensor.numel(), at);
    else std::fill_n(at, tensor.numel(), real(0));
    has_gradient[k] = tensor.has_grad() ? 1 : 0;
    at += tensor.numel();
  }
  bucket.sum.start(bucket.flat.data(), static_cast<int64_t>(bucket.flat.size()));   // Σ over the ranks, in flight
}

void GradientBuckets::progress() {
  while (oldest_in_flight_ < next_to_start_ && buckets_[oldest_in_flight_].sum.done()) ++oldest_in_flight_;
}

void GradientBuckets::finish() {
  Timed timed(communication_seconds_);
  for (Bucket& bucket : buckets_) bucket.waiting = 0;   // what backward did not reach is as complete as it gets
  start_ready_buckets();
  for (Bucket& bucket : buckets_) {
    bucket.sum.wait();
    const real* at = bucket.flat.data();
    const real* has_gradient = bucket.flat.data() + bucket.flat.size() - bucket.parameters.size();
    for (size_t k = 0; k < bucket.parameters.size(); ++k) {
      const Tensor& tensor = parameters_[bucket.parameters[k]].tensor;
      if (has_gradient[k] > 0) std::copy_n(at, tensor.numel(), tensor.grad());   // grad() allocates if needed
      at += tensor.numel();
    }
  }
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
