// fuzz_safetensors.cpp — the safetensors reader (src/tensor/safetensors.h) on arbitrary bytes.
//
// Feeds: the input as the whole file, to parse_safetensors: the 8-byte header length, the JSON header, the data.
// Asserts: it is accepted or refused with a short attnlab::Error (fuzz_support.h), never a crash, a read
// outside the buffer or an overflow; an accepted file keeps the format's promises — every tensor has a
// non-empty unique name other than "__metadata__", 1 to 4 axes, no negative size, and exactly numel numbers
// (all of which are read here, so ASan sees a tensor whose storage is too short).
#include <set>

#include "fuzz_support.h"
#include "tensor/safetensors.h"

using namespace attnlab;
using attnlab::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = fuzz::bytes_of(data, size);
  SafetensorsContents contents;
  if (!fuzz::refused_cleanly([&] { contents = parse_safetensors(bytes, "fuzz.safetensors"); })) return 0;
  std::set<std::string> names;
  for (const NamedTensor& named : contents.tensors) {
    check(!named.name.empty() && named.name != "__metadata__", "an accepted tensor named '" + named.name + "'");
    check(names.insert(named.name).second, "two accepted tensors named '" + named.name + "'");
    const Shape& shape = named.tensor.shape();
    check(shape.rank() >= 1 && shape.rank() <= 4, "an accepted tensor of rank " + std::to_string(shape.rank()));
    for (int axis = 0; axis < shape.rank(); ++axis) check(shape[axis] >= 0, "a negative size accepted");
    check(static_cast<int64_t>(named.tensor.values().size()) == shape.numel(),
          named.name + " holds " + std::to_string(named.tensor.values().size()) + " numbers for shape " + shape.str());
    fuzz::read_every_number(named.tensor);
  }
  return 0;
}
