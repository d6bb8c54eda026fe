// model_copies.h — one copy of a run's model for each translation `attnlab serve` computes at once.
//
// Translating is not read-only, so two translations cannot share one model:
//   trace_sentence()        switches the model to the paper's compute path for the recorded pass, and back after
//                           (a translation decoding on the other worker at that moment would take the wrong path)
//   attribute_to_source()   runs backward passes: the gradients land in the parameters' .grad tensors, and
//                           model.zero_grad() clears them after each target position (integrated gradients on two
//                           workers would add into, and wipe, each other's)
//   interventions           are installed on the model for one picture (src/model/intervention.h)
// Making those per-call (a path and a gradient buffer carried in the ForwardContext) would touch every chapter
// from autograd up. A copy of the weights is cheap beside what a translation holds (a toy-en-fr model: 4 MiB;
// its answers: tens of MiB), so each run is loaded --max-in-flight times, and a translation leases a copy
// (ServedRun::copies) for its whole computation; what the copies share — the tensor pool, the product
// kernels' buffers (one per thread), OpenBLAS's calls (taken in turn) — is safe to share.
#pragma once

#include <cstddef>
#include <string>

#include "cli/serve/explorer_api.h"

namespace attnlab {

// Loads `count` more copies of `served`'s model (from its folder, the same `checkpoint`) into served.copies.
void add_model_copies(ServedRun& served, size_t count, const std::string& checkpoint);

// A copy of a run's model held for one translation: the first free one of `served` and its copies (each has its
// own in_use); when every copy is busy, it waits for the first.
class ModelLease {
 public:
  explicit ModelLease(ServedRun& served);
  ModelLease(const ModelLease&) = delete;
  ModelLease& operator=(const ModelLease&) = delete;
  ~ModelLease() { copy_->in_use.unlock(); }

  ServedRun& run() { return *copy_; }

 private:
  ServedRun* copy_;
};

}  // namespace attnlab
