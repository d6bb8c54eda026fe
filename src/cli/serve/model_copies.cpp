// model_copies.cpp — a copy of the model per translation at once (model_copies.h).
#include "cli/serve/model_copies.h"

#include <memory>

namespace attnlab {

void add_model_copies(ServedRun& served, size_t count, const std::string& checkpoint) {
  for (size_t c = 0; c < count; ++c) {
    auto copy = std::make_unique<ServedRun>();
    copy->dir = served.dir;
    copy->name = served.name;
    if (served.cloze) {
      copy->cloze = std::make_unique<LoadedClozeRun>(load_cloze_run(served.dir, checkpoint));
    } else if (served.language_model) {
      copy->language_model = std::make_unique<LoadedLanguageModel>(load_language_model(served.dir, checkpoint));
    } else {
      copy->run = load_run(served.dir, checkpoint);
    }
    served.copies.push_back(std::move(copy));
  }
}

ModelLease::ModelLease(ServedRun& served) : copy_(&served) {
  if (served.in_use.try_lock()) return;
  for (auto& copy : served.copies) {
    if (copy->in_use.try_lock()) {
      copy_ = copy.get();
      return;
    }
  }
  served.in_use.lock();   // more translations than copies (not with serve's workers): wait for the first
}

}  // namespace attnlab
