// sentencepiece_unfailed.cpp — sentencepiece's model loading, run with the allocation failures paused.
//
// Why: the bpe and unigram tokenizers are loaded by SentencePieceProcessor::Load (Debian's libsentencepiece0
// 0.1.97), and an allocation that fails inside it crashes the process instead of throwing std::bad_alloc. Not for
// want of exceptions — the library is built with them (.eh_frame, .gcc_except_table), and the first 48 failures
// of a bpe load unwind through it cleanly. The library carries its own copy of protobuf-lite
// (third_party/protobuf-lite, not Debian's libprotobuf-lite32), whose RepeatedPtrFieldBase::Add counts a new
// element (++allocated_size) *before* allocating it (Arena::CreateMaybeMessage). When that allocation throws, the
// model's list of pieces counts a slot never written, and ~ModelProto deletes what that slot happens to hold: a
// SEGV under AddressSanitizer at the 49th allocation of a bpe load (gdb: `catch throw`, then the crash in
// ~ModelProto_SentencePiece from Load's unwinding; the disassembly of ModelProto::_InternalParse shows the
// increment before the call). attnlab cannot fix that code, and sentencepiece's allocations are not attnlab's to
// fail: so this file takes the place of Load in the test program (the dynamic linker lets the program's definition
// of a symbol go before a library's) and calls the library's own Load with counting paused. What attnlab's reader
// does before Load (tokenizers.json, the file checks) and after it (the special ids, the tokenizer built around
// the processor) is still counted and failed at every n. The test checks that this Load was used (loads()).
#include <dlfcn.h>
#include <sentencepiece_processor.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "failing_allocator.h"

namespace attnlab::testing {

std::atomic<int64_t> sentencepiece_loads{0};   // how often the Load below ran (alloc_failure_test.cpp checks it)

}  // namespace attnlab::testing

namespace sentencepiece {

util::Status SentencePieceProcessor::Load(absl::string_view filename) {
  using LibraryLoad = util::Status (*)(SentencePieceProcessor*, absl::string_view);
  // The library's definition: the next one after this program's, by the mangled name of Load(std::string_view).
  static const auto library_load = reinterpret_cast<LibraryLoad>(
      dlsym(RTLD_NEXT, "_ZN13sentencepiece22SentencePieceProcessor4LoadESt17basic_string_viewIcSt11char_traitsIcEE"));
  if (library_load == nullptr) {
    std::fprintf(stderr, "sentencepiece_unfailed.cpp: libsentencepiece's Load(string_view) was not found\n");
    std::abort();
  }
  ++attnlab::testing::sentencepiece_loads;
  const attnlab::testing::CountingPaused paused;
  return library_load(this, filename);
}

}  // namespace sentencepiece
