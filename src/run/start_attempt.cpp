// start_attempt.cpp — note what the run folder holds, and on failure remove only what came since (start_attempt.h).
#include "run/start_attempt.h"

#include <system_error>

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

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
