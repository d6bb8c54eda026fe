// test_safetensors.cpp — facts about reading and writing safetensors checkpoints (src/tensor/safetensors.h).
//
// The first tests save and load real files: the round trip is bit-exact, the bytes are the ones the format
// describes, and the write is atomic. Then comes one test for each way a file can be malformed. Each of these
// starts from a small valid file, written by hand below, corrupts one thing, and checks that the message starts
// with the file name and names the problem. Last, every truncation of a valid file, and thousands of random byte
// mutations, must end either in a parsed file or in an attnlab::Error, never in a crash. The sanitize preset
// runs these under AddressSanitizer and UBSan.
#include <doctest/doctest.h>
#include <unistd.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "tensor/safetensors.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;
using attnlab::testing::read_bytes;
namespace fs = std::filesystem;

namespace {

fs::path fresh_directory(const std::string& test_name) { return testing::fresh_directory("test_safetensors", test_name); }

std::vector<std::string> files_in(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
  return names;
}

// The bytes of a safetensors file: the header length (8 bytes, little-endian), the header, the data buffer.
std::string file_bytes(const std::string& header, const std::string& data) {
  std::string bytes;
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  return bytes + header + data;
}

// A small valid file, by hand: "a" is F32 [2] = {1, -2} in data bytes 0..8; "b" is F64 [1, 2] = {0.5, 3} in
// data bytes 8..24; the metadata says epoch = "3".
const std::string valid_header = R"({"__metadata__":{"epoch":"3"},)"
                                 R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                 R"("b":{"dtype":"F64","shape":[1,2],"data_offsets":[8,24]}})";
const std::string valid_data(
    "\x00\x00\x80\x3F"                   // 1.0f  = 0x3F800000, least significant byte first
    "\x00\x00\x00\xC0"                   // -2.0f = 0xC0000000
    "\x00\x00\x00\x00\x00\x00\xE0\x3F"   // 0.5   = 0x3FE0000000000000
    "\x00\x00\x00\x00\x00\x00\x08\x40",  // 3.0   = 0x4008000000000000
    24);

// The valid file with one piece of its header replaced: the corruption under test.
std::string valid_file_with(const std::string& original, const std::string& corrupted) {
  size_t at = valid_header.find(original);
  REQUIRE_MESSAGE(at != std::string::npos, "the valid header has no \"" << original << "\" to corrupt");
  std::string header = valid_header;
  header.replace(at, original.size(), corrupted);
  return file_bytes(header, valid_data);
}

// Every corrupt file below is parsed under this name, and every message must start with it.
SafetensorsContents parse(const std::string& bytes) {
  return parse_safetensors(bytes, "corrupt.safetensors");
}

uint32_t bits(float value) {
  return std::bit_cast<uint32_t>(value);
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Writing and reading real files
// ---------------------------------------------------------------------------------------------------------------

TEST_CASE("safetensors: a saved file loads back with the same names, order, shapes, bit-exact values and metadata") {
  fs::path directory = fresh_directory("round_trip");
  Generator gen(5);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float tiny = std::numeric_limits<float>::denorm_min();
  std::vector<NamedTensor> saved = {
      // Deliberately not in alphabetical order: the file keeps the order given.
      {"z.weight", Tensor::randn({3, 4}, gen)},
      {"a.special_values", Tensor::from_values({6}, {0.0f, -0.0f, inf, -inf, nan, tiny})},
      {"m.scores", Tensor::randn({2, 1, 3, 2}, gen)},
      {"empty", Tensor::zeros({2, 0})},
      {"loss", Tensor::full({1}, 7.25f)},
      {"decoder.layers.0.self_attn.q_proj.weight", Tensor::randn({5, 2, 3}, gen)},
  };
  std::map<std::string, std::string> metadata = {{"step", "1200"}, {"note", "héllo ✓"}, {"empty", ""}};
  std::string path = (directory / "model.safetensors").string();
  save_safetensors(path, saved, metadata);

  SafetensorsContents loaded = load_safetensors(path);
  REQUIRE(loaded.tensors.size() == saved.size());
  for (size_t k = 0; k < saved.size(); ++k) {
    CAPTURE(saved[k].name);
    CHECK(loaded.tensors[k].name == saved[k].name);
    CHECK(loaded.tensors[k].tensor.shape() == saved[k].tensor.shape());
    REQUIRE(loaded.tensors[k].tensor.numel() == saved[k].tensor.numel());
    for (int64_t i = 0; i < saved[k].tensor.numel(); ++i) {
      CHECK(bits(loaded.tensors[k].tensor.data()[i]) == bits(saved[k].tensor.data()[i]));
    }
  }
  CHECK(loaded.metadata == metadata);
}

TEST_CASE("safetensors: a tiny file is byte for byte what the format says, with the header padded to 8 bytes") {
  fs::path directory = fresh_directory("exact_bytes");
  std::string path = (directory / "tiny.safetensors").string();
  save_safetensors(path, {{"x", Tensor::from_values({2}, {1, -2})}}, {{"k", "v"}});

  // The header is 79 characters: {"__metadata__":{"k":"v"}, is 26 and
  // "x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}} is 53. One space pads it to 80 = 0x50.
  // (Built with +=, not a + b + c: GCC 12's -Warray-bounds misreads the inlined copies of operator+ here.)
  std::string expected("\x50\x00\x00\x00\x00\x00\x00\x00", 8);
  expected += R"({"__metadata__":{"k":"v"},"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}} )";
  expected += std::string("\x00\x00\x80\x3F\x00\x00\x00\xC0", 8);  // 1.0f, -2.0f
  CHECK(read_bytes(path) == expected);

  // Whatever the names' lengths, the header length is a multiple of 8 and the padding is spaces.
  std::string name;
  for (int length = 1; length <= 16; ++length) {
    name += 'n';
    save_safetensors(path, {{name, Tensor::zeros({3})}});
    std::string bytes = read_bytes(path);
    uint64_t header_length = 0;
    for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | static_cast<unsigned char>(bytes[i]);
    CAPTURE(length);
    CHECK(header_length % 8 == 0);
    CHECK(bytes.size() == 8 + header_length + 3 * 4);
    std::string header = bytes.substr(8, header_length);
    CHECK(header.substr(header.find_last_of('}') + 1).find_first_not_of(' ') == std::string::npos);
  }
}

TEST_CASE("safetensors: saving replaces an existing file and leaves no temporary file behind") {
  fs::path directory = fresh_directory("replace");
  std::string path = (directory / "model.safetensors").string();
  save_safetensors(path, {{"old", Tensor::full({2}, 1)}});
  save_safetensors(path, {{"new", Tensor::full({3}, 2)}}, {{"version", "2"}});

  CHECK(files_in(directory) == std::vector<std::string>{"model.safetensors"});
  SafetensorsContents loaded = load_safetensors(path);
  REQUIRE(loaded.tensors.size() == 1);
  CHECK(loaded.tensors[0].name == "new");
  CHECK(loaded.tensors[0].tensor.shape() == Shape{3});
  CHECK(loaded.metadata.at("version") == "2");
}

TEST_CASE("safetensors: a save that fails leaves the existing file untouched and no temporary file behind") {
  fs::path directory = fresh_directory("failed_save");
  std::string path = (directory / "model.safetensors").string();
  save_safetensors(path, {{"old", Tensor::full({2}, 1)}});
  const std::string old_bytes = read_bytes(path);

  // Refused before writing: a name given twice.
  CHECK_THROWS_AS(save_safetensors(path, {{"w", Tensor::zeros({1})}, {"w", Tensor::zeros({1})}}), Error);
  CHECK(read_bytes(path) == old_bytes);

  // Refused while writing: a directory squats on the temporary file's name, so it cannot be created.
  fs::path temporary = path + ".tmp-" + std::to_string(::getpid());
  fs::create_directory(temporary);
  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"new", Tensor::full({3}, 2)}}),
                       doctest::Contains((path + ": cannot create " + temporary.string()).c_str()), Error);
  CHECK(read_bytes(path) == old_bytes);
  fs::remove(temporary);
  CHECK(files_in(directory) == std::vector<std::string>{"model.safetensors"});
}

TEST_CASE("safetensors: saving into a missing directory throws, naming the path and the reason, and creates nothing") {
  fs::path directory = fresh_directory("missing_directory");
  std::string path = (directory / "no_such_directory" / "model.safetensors").string();
  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"w", Tensor::zeros({2})}}),
                       doctest::Contains((path + ": cannot create").c_str()), Error);
  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"w", Tensor::zeros({2})}}),
                       doctest::Contains("No such file or directory"), Error);
  CHECK(files_in(directory).empty());
}

TEST_CASE("safetensors: save refuses empty, duplicate and reserved tensor names, and empty Tensor handles") {
  fs::path directory = fresh_directory("bad_names");
  std::string path = (directory / "model.safetensors").string();
  Tensor w = Tensor::zeros({2});
  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"", w}}), doctest::Contains("an empty name"), Error);
  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"w", w}, {"v", w}, {"w", w}}),
                       doctest::Contains((path + ": two tensors are named \"w\"").c_str()), Error);
  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"__metadata__", w}}), doctest::Contains("reserved"), Error);
  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"w", Tensor()}}), doctest::Contains("empty (default-constructed)"),
                       Error);
  CHECK(files_in(directory).empty());
}

TEST_CASE("safetensors: loading a missing file names the path and the reason") {
  std::string path = (fresh_directory("missing_file") / "absent.safetensors").string();
  CHECK_THROWS_WITH_AS(load_safetensors(path),
                       doctest::Contains((path + ": cannot open the file: No such file").c_str()), Error);
}

TEST_CASE("safetensors: the hand-made example file reads F32 and F64 into float32, in the order of the data") {
  SafetensorsContents contents = parse(file_bytes(valid_header, valid_data));
  REQUIRE(contents.tensors.size() == 2);
  CHECK(contents.tensors[0].name == "a");
  CHECK(contents.tensors[0].tensor.shape() == Shape{2});
  CHECK(contents.tensors[0].tensor.values() == std::vector<real>{1, -2});
  CHECK(contents.tensors[1].name == "b");
  CHECK(contents.tensors[1].tensor.shape() == Shape{1, 2});
  CHECK(contents.tensors[1].tensor.values() == std::vector<real>{0.5, 3});
  CHECK(contents.metadata == std::map<std::string, std::string>{{"epoch", "3"}});

  // The order comes from the offsets, not from the header: list "b" first and "a" is still first.
  std::string b_first_header =
      R"({"b":{"dtype":"F64","shape":[1,2],"data_offsets":[8,24]},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  SafetensorsContents reordered = parse(file_bytes(b_first_header, valid_data));
  REQUIRE(reordered.tensors.size() == 2);
  CHECK(reordered.tensors[0].name == "a");
  CHECK(reordered.metadata.empty());
}

TEST_CASE("safetensors: a rank-0 tensor (shape []) is read as attnlab's scalar shape [1]") {
  std::string header = R"({"loss":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})";
  SafetensorsContents contents = parse(file_bytes(header, std::string("\x00\x00\x80\x3F", 4)));
  REQUIRE(contents.tensors.size() == 1);
  CHECK(contents.tensors[0].tensor.shape() == Shape{1});
  CHECK(contents.tensors[0].tensor.item() == 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Malformed files: one test per problem, each a valid file with one thing broken
// ---------------------------------------------------------------------------------------------------------------

TEST_CASE("safetensors: a file shorter than 8 bytes is refused") {
  std::string bytes = file_bytes(valid_header, valid_data).substr(0, 5);
  CHECK_THROWS_WITH_AS(parse(bytes), doctest::Contains("corrupt.safetensors: the file is 5 bytes long, too short"),
                       Error);
  CHECK_THROWS_WITH_AS(parse(""), doctest::Contains("corrupt.safetensors: the file is 0 bytes long"), Error);
}

TEST_CASE("safetensors: a header length running past the end of the file is refused") {
  std::string bytes = file_bytes(valid_header, valid_data);
  bytes[0] = static_cast<char>(bytes.size() - 8 + 1);  // one byte more than the file holds after the length
  bytes[1] = static_cast<char>((bytes.size() - 8 + 1) >> 8);
  CHECK_THROWS_WITH_AS(parse(bytes), doctest::Contains("corrupt.safetensors: the header length"), Error);
  CHECK_THROWS_WITH_AS(parse(bytes), doctest::Contains("runs past the end of the file"), Error);
}

TEST_CASE("safetensors: an absurdly large header length is refused before anything is allocated for it") {
  std::string bytes = file_bytes(valid_header, valid_data);
  for (int i = 0; i < 8; ++i) bytes[i] = '\xFF';  // 2^64 - 1
  CHECK_THROWS_WITH_AS(
      parse(bytes), doctest::Contains("corrupt.safetensors: the header length 18446744073709551615 is absurdly large"),
      Error);
}

TEST_CASE("safetensors: a header that is not valid UTF-8 is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with("epoch",
                                             "ep\xFF"
                                             "ch")),
                       doctest::Contains("corrupt.safetensors: the header is not valid UTF-8 (byte 20"), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("epoch", "\xC0\xAF")),  // "/" spelt with two bytes (overlong)
                       doctest::Contains("not valid UTF-8"), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("epoch", "\xED\xA0\x80")),  // a UTF-16 surrogate half
                       doctest::Contains("not valid UTF-8"), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("epoch", "\xE2\x9C")),  // "✓" missing its last byte
                       doctest::Contains("not valid UTF-8"), Error);
  // Valid UTF-8 beyond ASCII is fine.
  CHECK(parse(valid_file_with("epoch", "\xE2\x9C\x93")).metadata.count("\xE2\x9C\x93") == 1);
}

TEST_CASE("safetensors: a header that is not valid JSON is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("epoch":"3")", R"("epoch" "3")")),
                       doctest::Contains("corrupt.safetensors: the header is not valid JSON: parse error"), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[8,24]}}", "[8,24]}")), doctest::Contains("not valid JSON"), Error);
  CHECK_THROWS_WITH_AS(parse(file_bytes("", valid_data)), doctest::Contains("not valid JSON"), Error);
}

TEST_CASE("safetensors: a header that is not valid JSON is refused in a short message, not with the whole bad token") {
  // Found by fuzzing: the JSON library's message quotes the token it stopped at whole ("last read: '…'").
  const std::string long_token = "{\"" + std::string(5000, 'a') + "\n";
  std::string message;
  try {
    parse(file_bytes(long_token, valid_data));
  } catch (const Error& error) {
    message = error.what();
  }
  CHECK_MESSAGE(message.find("corrupt.safetensors: the header is not valid JSON: parse error") == 0, message);
  CHECK_MESSAGE(message.size() < 300, message);
}

TEST_CASE("safetensors: save refuses a metadata key that is not UTF-8 in a short message, not with the whole key") {
  // Found by fuzzing (tests/fuzz/fuzz_checkpoint.cpp): a 1,000-byte key came back whole.
  const std::string path = (fresh_directory("long_key") / "x.safetensors").string();
  std::string message;
  try {
    std::string key(3000, 'k');                                // += for GCC 12, as in "a tiny file is byte for byte"
    key += "\xff";
    save_safetensors(path, {}, {{key, "v"}});
  } catch (const Error& error) {
    message = error.what();
  }
  CHECK_MESSAGE(message.find("is not valid UTF-8") != std::string::npos, message);
  CHECK_MESSAGE(message.size() < 400, message);
}

TEST_CASE("safetensors: overlapping tensors with long names are named by a short prefix") {
  const std::string a(3000, 'a'), b(3000, 'b');
  std::string message;
  try {
    parse(file_bytes("{\"" + a + "\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"" + b +
                         "\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
                     std::string(8, '\0')));
  } catch (const Error& error) {
    message = error.what();
  }
  CHECK_MESSAGE(message.find("overlap") != std::string::npos, message);
  CHECK_MESSAGE(message.size() < 400, message);
}

TEST_CASE("safetensors: a header that is not a JSON object is refused") {
  CHECK_THROWS_WITH_AS(parse(file_bytes("[" + valid_header + "]", valid_data)),
                       doctest::Contains("corrupt.safetensors: the header must be a JSON object"), Error);
  CHECK_THROWS_WITH_AS(parse(file_bytes("42", valid_data)), doctest::Contains("but it is 42"), Error);
}

TEST_CASE("safetensors: a tensor entry that is not an object is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})", "[0,8]")),
                       doctest::Contains("corrupt.safetensors: tensor \"a\": the entry must be an object"), Error);
}

TEST_CASE("safetensors: a tensor entry without a dtype is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("dtype":"F32",)", "")),
                       doctest::Contains("corrupt.safetensors: tensor \"a\": the entry has no \"dtype\""), Error);
}

TEST_CASE("safetensors: a tensor entry without a shape is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("shape":[2],)", "")),
                       doctest::Contains("corrupt.safetensors: tensor \"a\": the entry has no \"shape\""), Error);
}

TEST_CASE("safetensors: a tensor entry without data_offsets is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"(,"data_offsets":[0,8])", "")),
                       doctest::Contains("corrupt.safetensors: tensor \"a\": the entry has no \"data_offsets\""),
                       Error);
}

TEST_CASE("safetensors: entry fields of the wrong JSON type are refused, saying what was found") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("dtype":"F32")", R"("dtype":32)")),
                       doctest::Contains("tensor \"a\": \"dtype\" must be a string such as \"F32\", but it is 32"),
                       Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("shape":[2])", R"("shape":"2")")),
                       doctest::Contains("tensor \"a\": \"shape\" must be a list of sizes such as [2, 3], but it is "
                                         "the string \"2\""),
                       Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[0,8]", "[0,8,16]")),
                       doctest::Contains("tensor \"a\": \"data_offsets\" must be [begin, end], two whole numbers ≥ 0, "
                                         "but it is a list of 3 items"),
                       Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[0,8]", R"("0-8")")),
                       doctest::Contains("\"data_offsets\" must be [begin, end]"), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[0,8]", "[0,8.0]")), doctest::Contains("but it is [0, 8.0]"), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[0,8]", "[-1,8]")), doctest::Contains("but it is [-1, 8]"), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[0,8]", "[null,8]")), doctest::Contains("but it is [null, 8]"), Error);
}

TEST_CASE("safetensors: a dtype attnlab does not read is refused, naming it and the dtypes it reads") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("dtype":"F32")", R"("dtype":"BF16")")),
                       doctest::Contains("corrupt.safetensors: tensor \"a\": the dtype is \"BF16\", but attnlab reads "
                                         "only F32 and F64"),
                       Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("dtype":"F32")", R"("dtype":"F16")")),
                       doctest::Contains("the dtype is \"F16\""), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("dtype":"F64")", R"("dtype":"I64")")),
                       doctest::Contains("tensor \"b\": the dtype is \"I64\""), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("dtype":"F32")", R"("dtype":"f32")")),
                       doctest::Contains("the dtype is \"f32\""), Error);
}

TEST_CASE("safetensors: a negative shape entry is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", "[1,-2]")),
                       doctest::Contains("corrupt.safetensors: tensor \"b\": shape entry 1 is -2, but a size cannot "
                                         "be negative"),
                       Error);
}

TEST_CASE("safetensors: a shape entry that is not a whole number is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", "[1,2.5]")),
                       doctest::Contains("corrupt.safetensors: tensor \"b\": shape entry 1 is 2.5, but a size must be "
                                         "a whole number"),
                       Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", "[1,2.0]")), doctest::Contains("shape entry 1 is 2.0"), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", "[1e0,2]")), doctest::Contains("shape entry 0 is 1.0"), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", R"([1,"2"])")),
                       doctest::Contains("shape entry 1 is the string \"2\""), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", "[1,[2]]")), doctest::Contains("shape entry 1 is an array"),
                       Error);
}

TEST_CASE("safetensors: a shape with more than 4 axes is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", "[1,1,1,1,2]")),
                       doctest::Contains("corrupt.safetensors: tensor \"b\": the shape has 5 axes, but attnlab's "
                                         "tensors have at most 4"),
                       Error);
}

TEST_CASE("safetensors: a shape whose byte count disagrees with data_offsets is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("shape":[2])", R"("shape":[3])")),
                       doctest::Contains("corrupt.safetensors: tensor \"a\": shape [3] of F32 needs 12 bytes, but "
                                         "data_offsets [0, 8] span 8"),
                       Error);
  // The same 16 bytes hold two F64 numbers or four F32 numbers: the dtype counts.
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("dtype":"F64")", R"("dtype":"F32")")),
                       doctest::Contains("tensor \"b\": shape [1, 2] of F32 needs 8 bytes, but data_offsets [8, 24] "
                                         "span 16"),
                       Error);
}

TEST_CASE("safetensors: a shape whose element or byte count overflows 64 bits is refused, not wrapped around") {
  // 2^62 × 4 elements = 2^64: wraps to 0 in unchecked 64-bit arithmetic.
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", "[4611686018427387904,4]")),
                       doctest::Contains("corrupt.safetensors: tensor \"b\": the shape is too large (its element "
                                         "count overflows"),
                       Error);
  // 2^61 elements fit, but 2^61 × 8 bytes = 2^64 does not.
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", "[2305843009213693952,1]")),
                       doctest::Contains("tensor \"b\": the shape is too large (its byte count overflows"), Error);
  // 2^63 does not fit attnlab's int64_t sizes at all.
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", "[9223372036854775808,2]")),
                       doctest::Contains("shape entry 0 is 9223372036854775808, which is too large"), Error);
  // A zero size makes the tensor empty, but the other sizes still must not overflow when multiplied.
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[1,2]", "[4294967296,4294967296,0]")),
                       doctest::Contains("the shape is too large"), Error);
}

TEST_CASE("safetensors: data_offsets that begin after they end are refused") {
  CHECK_THROWS_WITH_AS(
      parse(valid_file_with("[8,24]", "[24,8]")),
      doctest::Contains("corrupt.safetensors: tensor \"b\": data_offsets [24, 8] begin after they end"), Error);
}

TEST_CASE("safetensors: data_offsets running past the end of the data buffer are refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[8,24]", "[16,32]")),
                       doctest::Contains("corrupt.safetensors: tensor \"b\": data_offsets [16, 32] run past the end "
                                         "of the data buffer, which has 24 bytes"),
                       Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[8,24]", "[18446744073709551600,18446744073709551615]")),
                       doctest::Contains("run past the end of the data buffer"), Error);
}

TEST_CASE("safetensors: two tensors whose bytes overlap are refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with("[8,24]", "[4,20]")),
                       doctest::Contains("corrupt.safetensors: tensors \"a\" (bytes 0 to 8) and \"b\" (bytes 4 to 20) "
                                         "overlap"),
                       Error);
  // Two names for the very same bytes overlap too.
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("b":{"dtype":"F64","shape":[1,2],"data_offsets":[8,24]})",
                                             R"("b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})")),
                       doctest::Contains("overlap"), Error);
}

TEST_CASE("safetensors: bytes of the data buffer that belong to no tensor (a hole) are refused") {
  CHECK_THROWS_WITH_AS(
      parse(valid_file_with(R"("shape":[2],"data_offsets":[0,8])", R"("shape":[1],"data_offsets":[0,4])")),
      doctest::Contains("corrupt.safetensors: bytes 4 to 8 of the data buffer belong to no tensor "
                        "(a hole between \"a\" and \"b\")"),
      Error);
  CHECK_THROWS_WITH_AS(
      parse(valid_file_with(R"("shape":[2],"data_offsets":[0,8])", R"("shape":[1],"data_offsets":[4,8])")),
      doctest::Contains("bytes 0 to 4 of the data buffer belong to no tensor (a hole before \"a\")"), Error);
}

TEST_CASE("safetensors: trailing bytes after the last tensor are refused") {
  CHECK_THROWS_WITH_AS(parse(file_bytes(valid_header, valid_data + "junk")),
                       doctest::Contains("corrupt.safetensors: the data buffer has 4 trailing bytes that belong to no "
                                         "tensor (after the last tensor, \"b\")"),
                       Error);
  CHECK_THROWS_WITH_AS(parse(file_bytes("{}", "junk")), doctest::Contains("but the header lists no tensors"), Error);
}

TEST_CASE("safetensors: __metadata__ that is not an object is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"({"epoch":"3"})", R"(["epoch","3"])")),
                       doctest::Contains("corrupt.safetensors: \"__metadata__\" must be an object of strings"), Error);
}

TEST_CASE("safetensors: a __metadata__ value that is not a string is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("epoch":"3")", R"("epoch":3)")),
                       doctest::Contains("corrupt.safetensors: \"__metadata__\" value for \"epoch\" must be a string, "
                                         "but it is 3"),
                       Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("epoch":"3")", R"("epoch":{"value":"3"})")),
                       doctest::Contains("but it is an object"), Error);
}

TEST_CASE("safetensors: a tensor name given twice is refused, though JSON parsers keep only the last") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("b":{)", R"("a":{)")),
                       doctest::Contains("corrupt.safetensors: the header names the tensor \"a\" twice"), Error);
}

TEST_CASE("safetensors: a key given twice inside an entry or the metadata is refused") {
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("dtype":"F32",)", R"("dtype":"F32","dtype":"F64",)")),
                       doctest::Contains("corrupt.safetensors: the header has the key \"dtype\" twice in one object"),
                       Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"({"epoch":"3"})", R"({"epoch":"3","epoch":"4"})")),
                       doctest::Contains("the key \"epoch\" twice"), Error);
  CHECK_THROWS_WITH_AS(parse(valid_file_with(R"("a":{)", R"("__metadata__":{},"a":{)")),
                       doctest::Contains("the key \"__metadata__\" twice"), Error);
}

TEST_CASE("safetensors: an F64 number beyond float32's range is refused rather than turned into infinity") {
  std::string header = R"({"big":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})";
  std::string data(16, '\0');
  double values[2] = {1.0, 1e300};
  for (int k = 0; k < 2; ++k) {
    uint64_t pattern = std::bit_cast<uint64_t>(values[k]);
    for (int i = 0; i < 8; ++i) data[8 * k + i] = static_cast<char>((pattern >> (8 * i)) & 0xFF);
  }
  CHECK_THROWS_WITH_AS(parse(file_bytes(header, data)),
                       doctest::Contains("corrupt.safetensors: tensor \"big\": element 1 is 1e+300, too large for "
                                         "float32"),
                       Error);
}

// ---------------------------------------------------------------------------------------------------------------
// Robustness: damaged files end in attnlab::Error, never in a crash or an out-of-bounds read
// ---------------------------------------------------------------------------------------------------------------

TEST_CASE("safetensors: a valid file cut short at any length is refused, and only the whole file parses") {
  fs::path directory = fresh_directory("truncated");
  std::string path = (directory / "model.safetensors").string();
  save_safetensors(path, {{"w", Tensor::full({2, 3}, 0.5)}, {"b", Tensor::full({3}, -1)}}, {{"step", "7"}});
  std::string bytes = read_bytes(path);
  for (size_t length = 0; length <= bytes.size(); ++length) {
    CAPTURE(length);
    if (length == bytes.size()) {
      CHECK(parse(bytes).tensors.size() == 2);
    } else {
      CHECK_THROWS_AS(parse(bytes.substr(0, length)), Error);
    }
  }
}

TEST_CASE("safetensors: thousands of randomly mutated files each parse or throw attnlab::Error, never crash") {
  const std::string valid = file_bytes(valid_header, valid_data);
  const std::string json_characters = "{}[]\",:0123456789-.eE \\ux";
  Generator gen(2024);
  int parsed = 0, refused = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string bytes = valid;
    int mutations = static_cast<int>(gen.integer(1, 4));
    for (int m = 0; m < mutations; ++m) {
      size_t at = static_cast<size_t>(gen.integer(0, static_cast<int64_t>(bytes.size())));
      switch (gen.integer(0, 4)) {
        case 0:  // any byte
          bytes[at] = static_cast<char>(gen.integer(0, 256));
          break;
        case 1:  // a character that means something in JSON
          bytes[at] =
              json_characters[static_cast<size_t>(gen.integer(0, static_cast<int64_t>(json_characters.size())))];
          break;
        case 2:  // delete a byte
          bytes.erase(at, 1);
          break;
        default:  // insert a digit
          bytes.insert(at, 1, static_cast<char>('0' + gen.integer(0, 10)));
          break;
      }
      if (bytes.empty()) break;
    }
    try {
      parse(bytes);
      ++parsed;
    } catch (const Error& error) {
      ++refused;
      CHECK(std::string(error.what()).starts_with("corrupt.safetensors: "));
    }
  }
  CHECK(parsed + refused == 20000);
  CHECK(refused > 0);
  MESSAGE(parsed << " mutated files still parsed, " << refused << " were refused");
}
