// failing_allocator.cpp — every global operator new and delete, replaced by a counting version (failing_allocator.h).
#include "failing_allocator.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace attnlab::testing {
namespace {

std::atomic<bool> counting{false};
std::atomic<int64_t> asked{0};
std::atomic<int64_t> fail_from{0};          // 0: none fails
std::atomic<bool> fail_every_later{false};  // persistent: the fail_from-th and every one after it
std::atomic<bool> failed{false};

// Counts one allocation; true when it is the one (or one of those) to fail.
bool this_one_fails() {
  if (!counting.load(std::memory_order_relaxed)) return false;
  const int64_t n = asked.fetch_add(1) + 1;
  const int64_t from = fail_from.load();
  const bool fails = from > 0 && (n == from || (n > from && fail_every_later.load()));
  if (fails) failed = true;
  return fails;
}

}  // namespace

void start_counting(int64_t fail_at, bool persistent) {
  asked = 0;
  failed = false;
  fail_from = fail_at;
  fail_every_later = persistent;
  counting = true;
}

int64_t stop_counting() {
  counting = false;
  return asked.load();
}

bool failure_made() {
  return failed.load();
}

CountingPaused::CountingPaused() : was_counting_(counting.exchange(false)) {}

CountingPaused::~CountingPaused() {
  counting = was_counting_;
}

}  // namespace attnlab::testing

namespace {

// The block, or nullptr when this allocation is made to fail (or malloc has nothing).
void* allocate(std::size_t size, std::size_t alignment) {
  if (attnlab::testing::this_one_fails()) return nullptr;
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  void* block = nullptr;
  return posix_memalign(&block, alignment, size) == 0 ? block : nullptr;
}

void* allocate_or_throw(std::size_t size, std::size_t alignment) {
  void* block = allocate(size, alignment);
  if (block == nullptr) throw std::bad_alloc();
  return block;
}

constexpr std::size_t plain = alignof(std::max_align_t);

}  // namespace

void* operator new(std::size_t size) {
  return allocate_or_throw(size, plain);
}
void* operator new[](std::size_t size) {
  return allocate_or_throw(size, plain);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return allocate_or_throw(size, static_cast<std::size_t>(alignment));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return allocate(size, plain);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return allocate(size, plain);
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return allocate(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return allocate(size, static_cast<std::size_t>(alignment));
}

void operator delete(void* block) noexcept {
  std::free(block);
}
void operator delete[](void* block) noexcept {
  std::free(block);
}
void operator delete(void* block, std::size_t) noexcept {
  std::free(block);
}
void operator delete[](void* block, std::size_t) noexcept {
  std::free(block);
}
void operator delete(void* block, std::align_val_t) noexcept {
  std::free(block);
}
void operator delete[](void* block, std::align_val_t) noexcept {
  std::free(block);
}
void operator delete(void* block, std::size_t, std::align_val_t) noexcept {
  std::free(block);
}
void operator delete[](void* block, std::size_t, std::align_val_t) noexcept {
  std::free(block);
}
void operator delete(void* block, const std::nothrow_t&) noexcept {
  std::free(block);
}
void operator delete[](void* block, const std::nothrow_t&) noexcept {
  std::free(block);
}
void operator delete(void* block, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(block);
}
void operator delete[](void* block, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(block);
}
