// safetensors.cpp — reading safetensors files (the format is described in safetensors.h; writing them is
// safetensors_write.cpp).
//
// Reading is a chain of checks. Each one makes sure of what the next one relies on:
//   1. the 8-byte header length, and the header it promises, fit inside the file;
//   2. the header is UTF-8 JSON, it is an object, and no key appears twice in any object;
//   3. each entry has a dtype attnlab reads, a shape of whole numbers, and offsets inside the data buffer that
//      span exactly as many bytes as the shape needs. The byte count is computed with overflow checks, so a
//      shape that lies cannot wrap around to a small number;
//   4. sorted by offset, the tensors tile the data buffer: no overlaps, no holes, no trailing bytes.
// Numbers are copied out only after all of this. The only allocations are the file itself, the parsed header
// and the tensors, and the header has already checked that the tensors fit inside the file. A lying header
// therefore cannot make the reader allocate a huge amount of memory or read past the end of the bytes.

#include "tensor/safetensors.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "util/error.h"
#include "util/json_teardown.h"
#include "util/quote.h"
#include "util/utf8.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// Reading parses into nlohmann::json (members in a std::map; writing builds nlohmann::ordered_json, in
// safetensors_write.cpp). Not ordered_json for reading: its members sit in a std::vector, which copies them when it
// grows and frees the old ones with the library's allocating destructor — under memory pressure that ends in
// std::terminate (util/json_teardown.h). The tensors' order comes from their offsets anyway.
using Json = nlohmann::json;

// The Rust reference implementation refuses headers longer than this, and so does attnlab. A real header
// needs about 100 bytes per tensor, so this allows about a million tensors.
constexpr uint64_t max_header_bytes = 100'000'000;

// Bytes per number for the dtypes attnlab reads, 0 for every other dtype.
int bytes_per_number(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F64") return 8;
  return 0;
}

// ---- Little-endian integers: the least significant byte comes first in the file ----

uint64_t read_little_endian(const char* bytes, int count) {
  uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  return value;
}

// ---- Error messages ----

// Every refusal reads "<file>: <what is wrong>".
[[noreturn]] void refuse(const std::string& file, const std::string& problem) {
  throw Error(file + ": " + problem);
}

// How a JSON value appears in a message. Numbers, booleans and null are shown as written, and strings quoted
// (and shortened). Arrays and objects are shown only by their kind: they could be huge or deeply nested.
std::string describe_json(const Json& value) {
  if (value.is_number() || value.is_boolean() || value.is_null()) return value.dump();
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return "the string " + quote(value.get<std::string>());
}

// ---- Reading: the header ----

// Parses the header text into `header`, a JSON object, built in place: the caller frees it with
// FreedWithoutAllocating (util/json_teardown.h), so that running out of memory here ends in std::bad_alloc.
// nlohmann's parser quietly keeps the last of two equal keys ({"w": A, "w": B} becomes {"w": B}), which would hide
// a corrupt or ambiguous file. So a parser callback records the keys seen in each open object and notices the
// first key that appears twice.
void parse_header(const std::string& header_text, const std::string& file, Json& header) {
  size_t bad_byte = first_invalid_utf8(header_text);
  if (bad_byte != std::string::npos) {
    refuse(file, "the header is not valid UTF-8 (byte " + std::to_string(bad_byte) +
                     " of the header); the file is corrupt or not a safetensors file");
  }

  std::vector<std::set<std::string>> keys_of_open_objects;  // one set per object being parsed, innermost last
  bool found_duplicate = false;
  bool duplicate_is_top_level = false;
  std::string duplicate_key;
  auto notice_duplicate_keys = [&](int /*depth*/, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) {
      keys_of_open_objects.emplace_back();
    } else if (event == Json::parse_event_t::object_end) {
      keys_of_open_objects.pop_back();
    } else if (event == Json::parse_event_t::key && !found_duplicate) {
      std::string key = parsed.get<std::string>();
      if (!keys_of_open_objects.back().insert(key).second) {
        found_duplicate = true;
        duplicate_is_top_level = keys_of_open_objects.size() == 1;
        duplicate_key = key;
      }
    }
    return true;  // keep every value
  };

  try {
    auto input = nlohmann::detail::input_adapter(header_text.begin(), header_text.end());
    nlohmann::detail::parser<Json, decltype(input)>(std::move(input), notice_duplicate_keys).parse(true, header);
  } catch (const Json::exception& e) {
    refuse(file, "the header is not valid JSON: " + library_reason(e.what()));  // its tag dropped, cut short
  }

  if (!header.is_object()) {
    const std::string expected = R"({"name": {"dtype": …, "shape": …, "data_offsets": …}, …})";
    refuse(file, "the header must be a JSON object " + expected + ", but it is " + describe_json(header));
  }
  if (found_duplicate) {
    if (duplicate_is_top_level && duplicate_key != "__metadata__") {
      refuse(file, "the header names the tensor " + quote(duplicate_key) + " twice; names must be unique");
    }
    refuse(file, "the header has the key " + quote(duplicate_key) + " twice in one object; keys must be unique");
  }
}

// The "__metadata__" object: free-form notes, every value a string (the format allows nothing else).
std::map<std::string, std::string> read_metadata(const Json& metadata_json, const std::string& file) {
  if (!metadata_json.is_object()) {
    refuse(file, "\"__metadata__\" must be an object of strings {\"key\": \"value\"}, but it is " +
                     describe_json(metadata_json));
  }
  std::map<std::string, std::string> metadata;
  for (const auto& [key, value] : metadata_json.items()) {
    if (!value.is_string()) {
      refuse(file, "\"__metadata__\" value for " + quote(key) + " must be a string, but it is " + describe_json(value));
    }
    metadata[key] = value.get<std::string>();
  }
  return metadata;
}

// One tensor's header entry, checked against the size of the data buffer.
struct TensorEntry {
  std::string name;
  std::string dtype;
  int number_bytes = 0;         // 4 for F32, 8 for F64
  std::vector<int64_t> sizes;   // as written; [] for a rank-0 tensor
  uint64_t begin = 0, end = 0;  // byte range [begin, end) in the data buffer
};

// A shape size or an offset: a JSON integer ≥ 0. nlohmann stores integers ≥ 0 as "unsigned"; negative
// integers as "integer"; anything with a decimal point or exponent (2.0, 2.5, 1e3) as "float".
bool is_whole_number(const Json& value) {
  return value.is_number_unsigned();
}

// The entry is an object with the three fields every tensor needs. `tensor` opens each message: "tensor "w": ".
void check_entry_has_its_fields(const Json& entry, const std::string& tensor, const std::string& file) {
  if (!entry.is_object()) {
    refuse(file, tensor + "the entry must be an object {\"dtype\": …, \"shape\": …, \"data_offsets\": …}, but it is " +
                     describe_json(entry));
  }
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!entry.contains(field)) {
      refuse(file, tensor + "the entry has no \"" + field + "\"; every tensor needs dtype, shape and data_offsets");
    }
  }
  // Other fields are ignored, as the reference implementation does.
}

// dtype: F32 or F64. Sets result.dtype and result.number_bytes.
void read_dtype(const Json& dtype, const std::string& tensor, const std::string& file, TensorEntry& result) {
  if (!dtype.is_string()) {
    refuse(file, tensor + "\"dtype\" must be a string such as \"F32\", but it is " + describe_json(dtype));
  }
  result.dtype = dtype.get<std::string>();
  result.number_bytes = bytes_per_number(result.dtype);
  if (result.number_bytes == 0) {
    refuse(file, tensor + "the dtype is " + quote(result.dtype) + ", but attnlab reads only F32 and F64; " +
                     "convert the tensor in Python first (for example tensor.float())");
  }
}

// shape: a list of 0 to Shape::max_rank whole numbers, each at most the largest int64_t.
std::vector<int64_t> read_shape(const Json& shape, const std::string& tensor, const std::string& file) {
  if (!shape.is_array()) {
    refuse(file, tensor + "\"shape\" must be a list of sizes such as [2, 3], but it is " + describe_json(shape));
  }
  if (shape.size() > static_cast<size_t>(Shape::max_rank)) {
    refuse(file, tensor + "the shape has " + std::to_string(shape.size()) +
                     " axes, but attnlab's tensors have at most " + std::to_string(Shape::max_rank));
  }
  std::vector<int64_t> sizes;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    const Json& size = shape[axis];
    std::string where = tensor + "shape entry " + std::to_string(axis) + " is " + describe_json(size);
    if (size.is_number_integer() && !size.is_number_unsigned()) refuse(file, where + ", but a size cannot be negative");
    if (!is_whole_number(size)) refuse(file, where + ", but a size must be a whole number ≥ 0 such as 3");
    uint64_t value = size.get<uint64_t>();
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      refuse(file, where + ", which is too large");
    }
    sizes.push_back(static_cast<int64_t>(value));
  }
  return sizes;
}

// "[begin, end]": an entry's data_offsets as a message shows them.
std::string offsets_text(const TensorEntry& entry) {
  return "[" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) + "]";
}

// data_offsets: [begin, end], two whole numbers with begin ≤ end ≤ data_bytes. Sets result.begin and result.end.
void read_data_offsets(const Json& offsets, uint64_t data_bytes, const std::string& tensor, const std::string& file,
                       TensorEntry& result) {
  if (!offsets.is_array() || offsets.size() != 2 || !is_whole_number(offsets[0]) || !is_whole_number(offsets[1])) {
    std::string found = describe_json(offsets);
    if (offsets.is_array() && offsets.size() != 2) found = "a list of " + std::to_string(offsets.size()) + " items";
    if (offsets.is_array() && offsets.size() == 2) {
      found = "[" + describe_json(offsets[0]) + ", " + describe_json(offsets[1]) + "]";
    }
    refuse(file, tensor + "\"data_offsets\" must be [begin, end], two whole numbers ≥ 0, but it is " + found);
  }
  result.begin = offsets[0].get<uint64_t>();
  result.end = offsets[1].get<uint64_t>();
  if (result.begin > result.end) {
    refuse(file, tensor + "data_offsets " + offsets_text(result) + " begin after they end");
  }
  if (result.end > data_bytes) {
    refuse(file, tensor + "data_offsets " + offsets_text(result) + " run past the end of the data buffer, which has " +
                     std::to_string(data_bytes) + " bytes (is the file truncated?)");
  }
}

// The bytes the shape needs, numel × number_bytes, are the bytes data_offsets span; every multiplication is
// checked for overflow. The check is on the product of the non-zero sizes, so that Shape::numel(), which
// multiplies the sizes one by one, cannot overflow either. (A zero size makes the tensor empty, whatever the
// other sizes are.)
void check_shape_fills_offsets(const TensorEntry& entry, const std::string& tensor, const std::string& file) {
  const uint64_t largest_count = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  uint64_t nonzero_product = 1;
  bool has_zero_size = false;
  for (int64_t size : entry.sizes) {
    if (size == 0) {
      has_zero_size = true;
      continue;
    }
    if (nonzero_product > largest_count / static_cast<uint64_t>(size)) {
      refuse(file, tensor + "the shape is too large (its element count overflows 64-bit arithmetic)");
    }
    nonzero_product *= static_cast<uint64_t>(size);
  }
  uint64_t numel = has_zero_size ? 0 : nonzero_product;  // a rank-0 shape [] holds one number
  if (numel > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(entry.number_bytes)) {
    refuse(file, tensor + "the shape is too large (its byte count overflows 64-bit arithmetic)");
  }
  uint64_t needed = numel * static_cast<uint64_t>(entry.number_bytes);
  if (needed != entry.end - entry.begin) {
    std::string shape_text = "[";
    for (size_t axis = 0; axis < entry.sizes.size(); ++axis) {
      shape_text += (axis ? ", " : "") + std::to_string(entry.sizes[axis]);
    }
    refuse(file, tensor + "shape " + shape_text + "] of " + entry.dtype + " needs " + std::to_string(needed) +
                     " bytes, but data_offsets " + offsets_text(entry) + " span " +
                     std::to_string(entry.end - entry.begin));
  }
}

// Check 3 of the chain above, for one entry: its fields, each in turn, then that the shape and the offsets agree.
TensorEntry read_tensor_entry(const std::string& name, const Json& entry, uint64_t data_bytes,
                              const std::string& file) {
  const std::string tensor = "tensor " + quote(name) + ": ";
  check_entry_has_its_fields(entry, tensor, file);
  TensorEntry result;
  result.name = name;
  read_dtype(entry["dtype"], tensor, file, result);
  result.sizes = read_shape(entry["shape"], tensor, file);
  read_data_offsets(entry["data_offsets"], data_bytes, tensor, file, result);
  check_shape_fills_offsets(result, tensor, file);
  return result;
}

// Sorted by where their bytes begin, the tensors must tile the data buffer: each one starts exactly where the
// previous one ended, and the last one ends at the end of the buffer. (Zero-byte tensors, from a shape with a
// 0 in it, sit between two others.) The reference implementation checks the same thing.
void check_tensors_tile_the_data(const std::vector<TensorEntry>& sorted_entries, uint64_t data_bytes,
                                 const std::string& file) {
  uint64_t covered_up_to = 0;             // bytes [0, covered_up_to) belong to the tensors seen so far
  const TensorEntry* previous = nullptr;  // the tensor that ends at covered_up_to
  for (const TensorEntry& entry : sorted_entries) {
    if (entry.begin < covered_up_to) {
      refuse(file, "tensors " + quote(previous->name) + " (bytes " + std::to_string(previous->begin) + " to " +
                       std::to_string(previous->end) + ") and " + quote(entry.name) + " (bytes " +
                       std::to_string(entry.begin) + " to " + std::to_string(entry.end) +
                       ") overlap in the data buffer; each byte must belong to one tensor");
    }
    if (entry.begin > covered_up_to) {
      std::string where =
          previous ? "between " + quote(previous->name) + " and " + quote(entry.name) : "before " + quote(entry.name);
      refuse(file, "bytes " + std::to_string(covered_up_to) + " to " + std::to_string(entry.begin) +
                       " of the data buffer belong to no tensor (a hole " + where + ")");
    }
    covered_up_to = entry.end;
    previous = &entry;
  }
  if (covered_up_to < data_bytes) {
    std::string after =
        previous ? "after the last tensor, \"" + previous->name + "\"" : "but the header lists no tensors";
    refuse(file, "the data buffer has " + std::to_string(data_bytes - covered_up_to) +
                     " trailing bytes that belong to no tensor (" + after + ")");
  }
}

// Copies a checked entry's numbers out of the data buffer into a new tensor of `real`.
Tensor read_tensor(const TensorEntry& entry, const char* data, const std::string& file) {
  // attnlab's shapes have 1 to 4 axes, and a scalar is [1]: a rank-0 tensor becomes [1].
  Shape shape = entry.sizes.empty() ? Shape{1} : Shape(entry.sizes);
  std::vector<real> values(static_cast<size_t>(shape.numel()));
  const char* bytes = data + entry.begin;
  for (size_t k = 0; k < values.size(); ++k) {
    if (entry.number_bytes == 4) {
      auto pattern = static_cast<uint32_t>(read_little_endian(bytes + 4 * k, 4));
      values[k] = static_cast<real>(std::bit_cast<float>(pattern));
    } else {
      uint64_t pattern = read_little_endian(bytes + 8 * k, 8);
      double value = std::bit_cast<double>(pattern);
      // Narrowing a double beyond float's range is undefined behaviour in C++, and silently turning it
      // into infinity would hide a problem, so it is refused. Infinities and NaN convert as they are.
      if (std::is_same_v<real, float> && std::isfinite(value) &&
          std::abs(value) > static_cast<double>(std::numeric_limits<float>::max())) {
        refuse(file, "tensor " + quote(entry.name) + ": element " + std::to_string(k) + " is " + Json(value).dump() +
                         ", too large for float32");
      }
      values[k] = static_cast<real>(value);
    }
  }
  return Tensor::from_values(shape, std::move(values));
}

}  // namespace

SafetensorsContents parse_safetensors(const std::string& bytes, const std::string& source_name) {
  const std::string& file = source_name;

  // 1. The header length, and the header.
  if (bytes.size() < 8) {
    refuse(file, "the file is " + std::to_string(bytes.size()) +
                     " bytes long, too short for the 8-byte header length that starts every safetensors file");
  }
  uint64_t header_bytes = read_little_endian(bytes.data(), 8);
  if (header_bytes > max_header_bytes) {
    refuse(file, "the header length " + std::to_string(header_bytes) + " is absurdly large (attnlab accepts up to " +
                     std::to_string(max_header_bytes) + " bytes); the file is corrupt or not a safetensors file");
  }
  if (header_bytes > bytes.size() - 8) {
    refuse(file, "the header length " + std::to_string(header_bytes) +
                     " runs past the end of the file, which has only " + std::to_string(bytes.size() - 8) +
                     " bytes after the 8-byte length (is the file truncated?)");
  }
  const uint64_t data_begin = 8 + header_bytes;
  const uint64_t data_bytes = bytes.size() - data_begin;

  // 2. The header is UTF-8 JSON, an object, without duplicate keys.
  Json header;
  FreedWithoutAllocating<Json> freed(header);
  parse_header(bytes.substr(8, header_bytes), file, header);

  // 3. Each entry on its own.
  SafetensorsContents contents;
  std::vector<TensorEntry> entries;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      contents.metadata = read_metadata(entry, file);
    } else {
      entries.push_back(read_tensor_entry(name, entry, data_bytes, file));
    }
  }

  // 4. Together, in the order of their bytes, which is the order they were saved in. stable_sort keeps the
  //    header's order for zero-byte tensors that share an offset.
  std::stable_sort(entries.begin(), entries.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  check_tensors_tile_the_data(entries, data_bytes, file);

  for (const TensorEntry& entry : entries) {
    contents.tensors.push_back({entry.name, read_tensor(entry, bytes.data() + data_begin, file)});
  }
  return contents;
}

SafetensorsContents load_safetensors(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot open the file: " + std::strerror(errno));
  std::string bytes;
  std::vector<char> chunk(1 << 16);  // 64 KiB at a time (a fresh MiB per load was most of the fuzz target's time)
  while (true) {
    ssize_t count = ::read(fd, chunk.data(), chunk.size());
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      int read_error = errno;
      ::close(fd);
      throw Error(path + ": cannot read the file: " + std::strerror(read_error));
    }
    if (count == 0) break;  // end of file
    bytes.append(chunk.data(), static_cast<size_t>(count));
  }
  ::close(fd);
  return parse_safetensors(bytes, path);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
