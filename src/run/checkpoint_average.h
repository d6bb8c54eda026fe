// checkpoint_average.h — checkpoint averaging: one model whose every weight is the mean of the same weight in the
// last (or the best) N checkpoints of a run.
//
//   θ̄ = (1/N) · Σ_{i=1..N} θ_i          for every parameter tensor, number by number
//
// Late in training the weights wander around a good region, pushed about by the noise of each batch; the
// checkpoints written a few hundred steps apart sit at different points of that wandering, and their mean sits
// nearer its middle. Vaswani et al. 2017 (§6.1) average the last 5 checkpoints of the base model (20 of the
// big one); fairseq's scripts/average_checkpoints.py is the same mean, and its small-data recipes (IWSLT,
// Multi30k) average the last 5–10. It costs no training: the checkpoints are written anyway.
//
// Each stretch of training counts once. A run that stops on train.max_minutes (or a signal) writes a stop
// checkpoint at the step it reached, often a few steps after the last regular one (step-5600, then step-5605):
// two nearly equal sets of weights, which a plain "last 5" would count twice. So the average takes the newest N
// checkpoints that lie at least half a save interval (train.checkpoint_every / 2) apart: of two closer than that
// it takes the newer, the weights the run ended with (the one `latest` and a resumed run use), and reaches one
// checkpoint further back instead. The regular ones are a whole interval apart, so only a stop checkpoint is
// ever merged; a stop checkpoint half an interval or more after the last regular one is a stretch of its own.
// The rule is count_as_one (train/checkpoint.h); the run's checkpoint directory keeps such a pair as one of its
// train.keep_last, before and after a resume, so the files kept always hold train.keep_last distinct stretches.
//
// Only checkpoints of the same model can be averaged: the same parameter names and shapes, and the same model:
// and tokenizer: sections of the config each file carries (a weight means something only beside the others
// of its model and the vocabulary its rows stand for). Anything else is refused with a message naming the file.
//
// The averaged file is a checkpoint (checkpoint.h) that every command loading one reads: translate, eval,
// trace, attention (`--checkpoint average`, or its path). It has the weights alone, no optimizer moments (a
// mean of Adam's moments would be no optimizer's state), so it is not a place to resume training from; its
// metadata is the newest source file's, with extra.averaged_from listing the files averaged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/real.h"  // ATTNLAB_PRECISION: the namespace of this build's precision

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// RUN/checkpoints/average.safetensors: where `attnlab average` and train.average_last write by default, and the
// checkpoint the name "average" stands for (run.h, checkpoint_to_load).
std::string average_checkpoint_path(const std::string& run_dir);

// The newest step checkpoints of a run, up to n, oldest first, every two at least half of checkpoint_every apart
// (train/checkpoint.h's count_as_one: of two closer, the newer); fewer than n only when the run keeps no
// older ones. Throws attnlab::Error naming the run when it has fewer than n step checkpoints (train.keep_last
// says how many a run keeps).
std::vector<std::string> last_checkpoints(const std::string& run_dir, int64_t n, int64_t checkpoint_every);

// The n step checkpoints of a run with the lowest validation loss, as metrics.jsonl records it at their steps
// (a checkpoint whose step was not validated cannot be ranked and is left out), oldest first. Throws
// attnlab::Error when fewer than n step checkpoints were validated.
std::vector<std::string> best_checkpoints(const std::string& run_dir, int64_t n);

// Writes to `out`, atomically, the checkpoint whose parameters are the mean of those of `paths` (at least one),
// computed in double and rounded once. Throws attnlab::Error, naming the file, for a file that is not an
// attnlab checkpoint or is of a differently shaped model or another model:/tokenizer: config than the first.
void average_checkpoints(const std::vector<std::string>& paths, const std::string& out);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
