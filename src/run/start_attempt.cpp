// start_attempt.cpp — note what the run folder holds, and on failure remove only what came since (start_attempt.h).
#include "run/start_attempt.h"

#include <system_error>

#include "distributed/data_parallel.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

StartAttempt::StartAttempt(std::string run_dir) : run_dir_(std::move(run_dir)) {
  std::error_code error;   // the name itself, not what a link points to; when in doubt, it existed
  existed_ = std::filesystem::symlink_status(run_dir_, error).type() != std::filesystem::file_type::not_found;
  if (existed_) {
    for (const std::filesystem::path& entry : entries()) before_.insert(entry.filename().string());
  }
}

StartAttempt::~StartAttempt() {
  if (keep_) return;
  std::error_code error;                       // a destructor must not throw: what cannot go, stays
  if (!existed_) {
    std::filesystem::remove_all(run_dir_, error);
    return;
  }
  for (const std::filesystem::path& entry : entries()) {
    if (!before_.count(entry.filename().string())) std::filesystem::remove_all(entry, error);
  }
}

std::vector<std::filesystem::path> StartAttempt::entries() const {
  std::vector<std::filesystem::path> found;
  std::error_code error;
  std::filesystem::directory_iterator entry(run_dir_, error), end;
  for (; !error && entry != end; entry.increment(error)) found.push_back(entry->path());
  return found;
}

void refuse_short_run_request(const TrainRequest& request, const std::string& what, const std::string& plural) {
  if (request.resume) {
    throw Error("'" + request.run_dir + "' is " + what + ", and --resume is not supported for " + plural + " (their "
                "checkpoints do not keep the shuffle's state and the place in the epoch, so a resumed run would not "
                "see the batches an unstopped one sees; a run takes minutes); start a new run with attnlab train "
                "--config FILE --run NEW_DIR");
  }
  if (collective::ranks() > 1) {
    throw Error(plural + " train in one process (their training loop does not split batches across ranks); run "
                "attnlab train without mpirun");
  }
  if (path_exists(request.run_dir + "/config.yaml")) {
    throw Error("'" + request.run_dir + "' already holds a run; choose another --run folder");
  }
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
