// safetensors_write.cpp — writing a safetensors file (the format is described in safetensors.h; reading it back,
// with every check a file from elsewhere needs, is safetensors.cpp).
//
//   [8 bytes: the header's length N, little-endian] [N bytes: the JSON header, padded with spaces to a multiple
//   of 8] [the tensors' numbers, back to back, in the order the header lists them]
//
// Everything is checked before the disk is touched, and the write is atomic (util/files.h: a temporary file next
// to the destination, flushed and renamed over it): someone opening the checkpoint sees either the old file or
// the complete new one, never half of it.
#include <bit>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "tensor/safetensors.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_teardown.h"
#include "util/quote.h"
#include "util/utf8.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// nlohmann::ordered_json keeps an object's keys in the order they were written (nlohmann::json sorts them), which
// puts the header's entries in the same order as the data.
using OrderedJson = nlohmann::ordered_json;

// The dtype attnlab writes: the type its `real` is in this build.
static_assert(std::is_same_v<real, float> || std::is_same_v<real, double>);
constexpr const char* written_dtype = std::is_same_v<real, float> ? "F32" : "F64";

// Little-endian: the least significant byte comes first in the file.
void append_little_endian(std::string& out, uint64_t value, int count) {
  for (int i = 0; i < count; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// A number's bytes are its IEEE-754 bit pattern (std::bit_cast), written least significant byte first.
// Because the bytes are built explicitly, the file comes out the same on a big-endian machine.
using RealBits = std::conditional_t<std::is_same_v<real, float>, uint32_t, uint64_t>;  // as many bits as `real`

void append_values(std::string& out, const std::vector<real>& values) {
  for (real value : values) append_little_endian(out, std::bit_cast<RealBits>(value), sizeof(real));
}

// Every refusal reads "<file>: <what is wrong>".
[[noreturn]] void refuse(const std::string& file, const std::string& problem) {
  throw Error(file + ": " + problem);
}

}  // namespace

void save_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  // Check everything before touching the disk.
  std::set<std::string> names;
  for (const NamedTensor& named : tensors) {
    const std::string tensor = "tensor " + quote(named.name) + ": ";
    if (named.name.empty()) refuse(path, "cannot save a tensor with an empty name");
    if (named.name == "__metadata__") refuse(path, "\"__metadata__\" is reserved and cannot name a tensor");
    if (first_invalid_utf8(named.name) != std::string::npos) refuse(path, tensor + "the name is not valid UTF-8");
    if (!names.insert(named.name).second) refuse(path, "two tensors are named " + quote(named.name));
    if (!named.tensor.defined()) refuse(path, tensor + "the Tensor is empty (default-constructed)");
    if (named.tensor.rank() == 0) refuse(path, tensor + "the Tensor has no shape");
  }
  for (const auto& [key, value] : metadata) {
    if (first_invalid_utf8(key) != std::string::npos || first_invalid_utf8(value) != std::string::npos) {
      refuse(path, "metadata " + quote(key) + " is not valid UTF-8");  // found by fuzzing: a long key came back whole
    }
  }

  // The header: metadata first (as the reference implementation writes it), then the tensors in order, their
  // bytes back to back.
  // Built in place, each object's room reserved first, and freed by FreedWithoutAllocating: out of memory here
  // ends in std::bad_alloc, never in std::terminate (util/json_teardown.h).
  OrderedJson header = OrderedJson::object();
  FreedWithoutAllocating<OrderedJson> freed(header);
  header.get_ref<OrderedJson::object_t&>().reserve(tensors.size() + 1);
  if (!metadata.empty()) {
    OrderedJson& notes = header["__metadata__"] = OrderedJson::object();
    notes.get_ref<OrderedJson::object_t&>().reserve(metadata.size());
    for (const auto& [key, value] : metadata) notes[key] = value;
  }
  uint64_t offset = 0;
  for (const NamedTensor& named : tensors) {
    uint64_t byte_count = static_cast<uint64_t>(named.tensor.numel()) * sizeof(real);
    OrderedJson& entry = header[named.name] = OrderedJson::object();
    entry.get_ref<OrderedJson::object_t&>().reserve(3);
    entry["dtype"] = written_dtype;
    OrderedJson& shape = entry["shape"] = OrderedJson::array();
    for (int64_t size : named.tensor.shape().sizes()) shape.push_back(size);
    OrderedJson& offsets = entry["data_offsets"] = OrderedJson::array();
    offsets.push_back(offset);
    offsets.push_back(offset + byte_count);
    offset += byte_count;
  }
  std::string header_text = header.dump();
  header_text.append((8 - header_text.size() % 8) % 8, ' ');  // pad to a multiple of 8 bytes

  std::string header_length;
  append_little_endian(header_length, header_text.size(), 8);

  AtomicFile file(path);  // util/files.h: a temporary file, renamed when complete
  file.write(header_length + header_text);
  for (const NamedTensor& named : tensors) {
    std::string bytes;  // one tensor at a time: memory for a copy of the largest tensor, not the whole model
    append_values(bytes, named.tensor.values());
    file.write(bytes);
  }
  file.commit();
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
