// answer_budget.cpp — the bytes of answers held at once, against one budget (answer_budget.h).
#include "cli/serve/answer_budget.h"

namespace attnlab {

bool AnswerBudget::try_reserve(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > small_answer && held_ + bytes > limit_) return false;
  held_ += bytes;
  ++answers_;
  return true;
}

void AnswerBudget::resize(int64_t from, int64_t to) {
  std::lock_guard<std::mutex> lock(mutex_);
  held_ += to - from;
}

void AnswerBudget::release(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  held_ -= bytes;
  --answers_;
}

int64_t AnswerBudget::held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_;
}

size_t AnswerBudget::answers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return answers_;
}

}  // namespace attnlab
