// fuzz_config.cpp — the config reader (src/run/config_io.h) with `--set` overrides, on arbitrary text.
//
// Feeds: the input split at NUL bytes — the first part is the YAML file, each further part one `--set key=value`
//   override (the seeds are configs/*.yaml with a few overrides).
// Asserts: parse_config accepts or refuses with a short attnlab::Error (fuzz_support.h), never a raw yaml-cpp
//   exception, a crash or an overflow; an accepted config round-trips — parse_config(to_yaml(c)) is accepted and
//   writes the same YAML again (config_io.h promises it gives c back) — and the model it describes, with a
//   100-token vocabulary, is accepted or refused by check_model_config and check_model_fits_memory cleanly,
//   before anything is allocated.
#include "fuzz_support.h"
#include "model/transformer.h"
#include "run/config_io.h"

using namespace attnlab;
using attnlab::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = fuzz::bytes_of(data, size);
  std::vector<std::string> parts;
  size_t at = 0;
  while (true) {
    const size_t end = bytes.find('\0', at);
    parts.push_back(bytes.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  const std::vector<std::string> overrides(parts.begin() + 1, parts.end());

  RunConfig config;
  if (!fuzz::refused_cleanly([&] { config = parse_config(parts[0], "fuzz.yaml", overrides); })) return 0;

  const std::string written = to_yaml(config);
  RunConfig again;
  check(fuzz::refused_cleanly([&] { again = parse_config(written, "to_yaml"); }),
        "to_yaml wrote a config parse_config refuses:\n" + written);
  check(to_yaml(again) == written, "parse_config(to_yaml(c)) is not c:\n" + written + "\nbecame\n" + to_yaml(again));

  ModelConfig model = config.model;
  model.src_vocab = model.tgt_vocab = 100;
  fuzz::refused_cleanly([&] {
    check_model_config(model);
    check_model_fits_memory(model, 4, "training");
  });
  return 0;
}
