// profile.cpp — the op profile's bookkeeping (profile.h): one table of (op, pass) → calls and seconds.
// It holds no real numbers, so it lives in util, compiled once, and the float32 and float64 engines share it.
#include "util/profile.h"

#include <map>
#include <utility>

namespace attnlab::profile {

namespace {

using Clock = std::chrono::steady_clock;

bool collecting = false;
Clock::time_point last_boundary;                          // the end of the previous op, or the last mark()
std::vector<Row> table;                                   // in order of first appearance
std::map<std::pair<std::string, Pass>, size_t> where;     // (op, pass) → its row in table

void account(const char* op, Pass pass, double seconds) {
  auto [it, added] = where.try_emplace({op, pass}, table.size());
  if (added) table.push_back(Row{op, pass, 0, 0});
  Row& row = table[it->second];
  row.calls += 1;
  row.seconds += seconds;
}

}  // namespace

const char* pass_name(Pass pass) {
  switch (pass) {
    case Pass::forward: return "forward";
    case Pass::backward: return "backward";
    case Pass::other: return "other";
  }
  return "?";
}

void start() {
  table.clear();
  where.clear();
  collecting = true;
  last_boundary = Clock::now();
}
void stop() { collecting = false; }
bool running() { return collecting; }
void mark() { last_boundary = Clock::now(); }
std::vector<Row> rows() { return table; }

Clock::time_point now() { return Clock::now(); }

void forward_done(const char* op) {
  if (!collecting) return;
  const Clock::time_point t = Clock::now();
  account(op, Pass::forward, std::chrono::duration<double>(t - last_boundary).count());
  last_boundary = t;
}

void add(const char* op, Pass pass, Clock::time_point since) {
  if (!collecting) return;
  const Clock::time_point t = Clock::now();
  account(op, pass, std::chrono::duration<double>(t - since).count());
  last_boundary = t;
}

Scope::Scope(const char* name) : name_(name), timing_(collecting), start_(timing_ ? Clock::now() : Clock::time_point()) {}
Scope::~Scope() {
  if (timing_) add(name_, Pass::other, start_);
}

}  // namespace attnlab::profile
