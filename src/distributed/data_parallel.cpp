// data_parallel.cpp — the shard of a batch, its weight, and the gradients laid end to end for one all-reduce.
// The equation and the step are in data_parallel.h; the MPI calls in data_parallel_mpi.cpp.
#include "distributed/data_parallel.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "tensor/random.h"
#include "tensor/token_ids.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// Rows [begin, end) of ids [B, L] → [end − begin, L]; and how many of them are not padding.
int64_t copy_rows(const TokenIds& ids, int64_t begin, int64_t end, TokenIds& rows) {
  const int64_t L = ids.shape[1];
  rows.shape = Shape{end - begin, L};
  rows.values.assign(ids.values.begin() + begin * L, ids.values.begin() + end * L);   // [end − begin, L]
  return static_cast<int64_t>(std::count_if(rows.values.begin(), rows.values.end(),
                                            [](int32_t id) { return id != pad_id; }));
}

}  // namespace

DataParallel::DataParallel() : rank_(collective::rank()), ranks_(collective::ranks()) {}
DataParallel::DataParallel(int rank, int ranks) : rank_(rank), ranks_(ranks) {}

const Batch& DataParallel::shard(const Batch& global) {
  if (ranks_ == 1) return global;
  const int64_t B = global.src.shape[0];
  const int64_t begin = B * rank_ / ranks_, end = B * (rank_ + 1) / ranks_;   // rows of this rank
  shard_.src_tokens = copy_rows(global.src, begin, end, shard_.src);          // [b, S]
  copy_rows(global.tgt_in, begin, end, shard_.tgt_in);                        // [b, T]
  shard_.tgt_tokens = copy_rows(global.targets, begin, end, shard_.targets);  // [b, T]
  shard_.indices.assign(global.indices.begin() + begin, global.indices.begin() + end);
  return shard_;
}

double DataParallel::shard_weight(const Batch& shard, const Batch& global) {
  if (&shard == &global) return 1;                                            // one process: the whole batch
  return static_cast<double>(shard.tgt_tokens) / static_cast<double>(global.tgt_tokens);   // w_r = n_r / n
}

void DataParallel::sum_gradients(const std::vector<NamedParameter>& parameters) {
  if (ranks_ == 1) return;
  const auto started = std::chrono::steady_clock::now();
  // Layout: every parameter's gradient in parameter order, then one number per parameter, 1 where this rank
  // has a gradient for it; after the sum that number counts the ranks that had one.
  int64_t total = 0;
  for (const NamedParameter& p : parameters) total += p.tensor.numel();
  flat_.resize(static_cast<size_t>(total) + parameters.size());
  real* at = flat_.data();
  real* has_gradient = flat_.data() + total;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const Tensor& tensor = parameters[i].tensor;
    if (tensor.has_grad()) std::copy_n(tensor.grad_values().data(), tensor.numel(), at);
    else std::fill_n(at, tensor.numel(), real(0));                            // no gradient: zeros
    has_gradient[i] = tensor.has_grad() ? 1 : 0;
    at += tensor.numel();
  }
  collective::sum_in_place(flat_.data(), static_cast<int64_t>(flat_.size()));   // Σ over the ranks
  at = flat_.data();
  for (size_t i = 0; i < parameters.size(); ++i) {
    const Tensor& tensor = parameters[i].tensor;
    if (has_gradient[i] > 0) std::copy_n(at, tensor.numel(), tensor.grad());  // grad() allocates if needed
    at += tensor.numel();
  }
  communication_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

int64_t threads_per_rank(int64_t requested) {
  if (requested > 0 || collective::ranks() == 1) return requested;
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max<int64_t>(1, cores / std::max(1, collective::ranks_on_this_machine()));
}

uint64_t dropout_seed_for_rank(const std::string& root_generator_state, int rank) {
  Generator root;
  root.set_state(root_generator_state);
  return root.next_u64() ^ (0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(rank));   // golden-ratio spread
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
