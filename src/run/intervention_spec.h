// intervention_spec.h — the words that ask for an intervention (src/model/intervention.h), as
// `attnlab translate --intervene SPEC` and serve's "interventions" take them, one SPEC each:
//   ablate:USE:L.H          switch off head H of layer L of USE's attention (its output zeroed):
//                           USE = cross (cross-attention), encoder or decoder (that side's self-attention), the
//                           words of model.attention.USE; L and H count from 0, as the maps and parameter names do;
//                           * stands for every layer or every head: ablate:cross:1.*, ablate:cross:*.0, and
//                           ablate:cross:* for every head of every layer
//   mask:source:S           source token S (from 0) read as <unk>
//   swap:SIDE.L=CHECKPOINT  every weight of layer L of SIDE = encoder | decoder taken from CHECKPOINT: best,
//                           latest, average, a step number N (the run's checkpoints/step-N.safetensors, 8 digits)
//                           or — where paths are allowed — the path of a checkpoint of a model of the same shape
// Every error names the SPEC and what is wrong with it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/intervention.h"
#include "run/run.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Checkpoints read for swaps, kept so that the next experiment with the same file does not read it again (reading
// a toy-en-fr checkpoint, Adam's moments and all, and checking it costs about 0.2 s on a 2-core machine: most of an
// experiment's time under serve). Each holds one model's parameters (4 MB for toy-en-fr); at most `most` are kept,
// the oldest dropped first; a file written again since (a newer best.safetensors) is read again.
class SwapCheckpoints {
 public:
  explicit SwapCheckpoints(size_t most = 2) : most_(most) {}
  struct Read {
    std::string path;
    std::string written;                        // the file's size and modification time when it was read
    std::vector<NamedParameter> parameters;     // every parameter of the model, from the file
    int64_t step = 0;
  };
  // The parameters of the checkpoint file `path` for a model of `config` (load_checkpoint: of the same shape).
  const Read& read(const std::string& path, const ModelConfig& config);

 private:
  size_t most_;
  std::vector<Read> kept_;                      // oldest first
};

// The specs read for `run` (loaded from `run_dir`), checked against its model: layers and heads in range,
// swapped-in checkpoints loaded (load_checkpoint: of the same shape). `where` starts every error message
// ("--intervene", "\"interventions\""); allow_paths false refuses a checkpoint path (serve: a visitor names only
// the run's own checkpoints). The source positions of mask: are checked per sentence, by masked_source_ids().
// Fills Intervention::described with one line per spec. With `kept`, swapped-in checkpoints are read through it.
Intervention read_interventions(const std::vector<std::string>& specs, const LoadedRun& run, const std::string& run_dir,
                                const std::string& where, bool allow_paths, SwapCheckpoints* kept = nullptr);

// mask_source (model/intervention.h) of one sentence's ids, an error naming the spec and `where` ("--text",
// "input line 3") when a position is not in the sentence. An empty sentence (a blank line) stays empty.
std::vector<int32_t> masked_source_ids(const Intervention& intervention, const std::vector<int32_t>& source_ids,
                                       const std::string& where);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
