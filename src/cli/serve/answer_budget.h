// answer_budget.h — the memory `attnlab serve`'s answers may hold at once, across every connection.
//
// An answer lives in memory from the moment its request is admitted until libmicrohttpd has handed its last byte
// to the kernel, or its client has gone (a client that stops reading is closed after --timeout of no progress).
// A client that reads slowly therefore holds its answer for as long as it reads; two hundred of them would hold two
// hundred answers. So every answer is counted against one budget:
//   reserved at admission     a translation: the upper estimate of its answer (answer_estimate_bytes, before
//                             anything is computed); any other answer: its size
//   made                      the reservation becomes the answer's real size (answer_estimate_bytes is an upper
//                             bound: 3 to 4 times the real answer, or more)
//   freed                     when libmicrohttpd destroys the response (sent, or its client gone)
//   held = Σ reservations ≤ budget        a request that would pass it is refused at once: 503 + Retry-After
// Answers of at most small_answer bytes (refusals, the list of runs) are always let through, so that a 503 can
// be sent when the budget is spent; there are at most --max-connections of them.
// The answer is handed to libmicrohttpd without a copy (http_server.cpp), so an answer is in memory once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>

namespace attnlab {

class AnswerBudget {
 public:
  static constexpr int64_t small_answer = 4096;

  explicit AnswerBudget(int64_t bytes) : limit_(bytes) {}

  // Reserves `bytes` for one answer; false (nothing reserved) when held + bytes would pass the budget.
  bool try_reserve(int64_t bytes);
  // A reservation of `from` bytes becomes one of `to` (the answer's real size; charged even past the budget,
  // which only happens if the estimate was not an upper bound).
  void resize(int64_t from, int64_t to);
  void release(int64_t bytes);  // one answer's reservation ends

  int64_t limit() const { return limit_; }
  int64_t held() const;    // bytes reserved now
  size_t answers() const;  // answers admitted and not yet sent whole (or abandoned)

 private:
  mutable std::mutex mutex_;
  const int64_t limit_;
  int64_t held_ = 0;
  size_t answers_ = 0;
};

}  // namespace attnlab
