// config.cpp — the words a config file uses for the model's fixed choices (model/config.h, util/choice.h).
#include "model/config.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

const std::vector<std::string>& choice_names(Task) {
  static const std::vector<std::string> names{"translation", "cloze", "language_model"};
  return names;
}

const std::vector<std::string>& choice_names(ReaderKind) {
  static const std::vector<std::string> names{"aoa", "as_reader"};
  return names;
}

const std::vector<std::string>& choice_names(NormPlacement) {
  static const std::vector<std::string> names{"post", "pre"};
  return names;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
