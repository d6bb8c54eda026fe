// start_attempt.h — a run that fails to start leaves its folder as it found it.
//
// A start that fails — a missing corpus, a model too large, a damaged checkpoint — must leave the folder as it
// found it, or the next attempt would find a half-made run. So what the folder holds is noted first, and unless
// keep() is called (the run has started), whatever appeared in it since is removed on the way out, and the folder
// itself if it did not exist. Nothing that was there before is touched. train() (trainer.cpp) makes one before
// it creates anything and calls keep() once config.yaml is written.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "run/trainer.h"
#include "tensor/real.h"  // ATTNLAB_PRECISION: the namespace of this build's precision

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class StartAttempt {
 public:
  explicit StartAttempt(std::string run_dir);
  StartAttempt(const StartAttempt&) = delete;
  StartAttempt& operator=(const StartAttempt&) = delete;

  void keep() { keep_ = true; }
  ~StartAttempt();

 private:
  // What the folder holds now, without throwing a filesystem error (the range-for's ++ on a directory_iterator
  // would), so that the destructor, which runs while an error is on its way out, cannot end the program.
  std::vector<std::filesystem::path> entries() const;

  std::string run_dir_;
  bool existed_ = false;
  std::set<std::string> before_;               // the names the folder held before the attempt
  bool keep_ = false;
};

// What the short runs' loops (the cloze readers, language models) cannot do, refused before anything is written:
// --resume (their checkpoints do not keep the shuffle's state and the place in the epoch, so a resumed run would
// not see the batches an unstopped one sees; a run takes minutes), mpirun (one process: no sharding of batches
// nor summing of gradients across ranks), a folder that already holds a run. `what`: "a cloze run", `plural`:
// "cloze readers", for the messages.
void refuse_short_run_request(const TrainRequest& request, const std::string& what, const std::string& plural);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
