// safetensors.h — saving and loading named tensors in the safetensors format, so Python can open checkpoints.
//
// safetensors (https://github.com/huggingface/safetensors) is the format PyTorch users share weights in. It is
// simple enough to read with a dozen lines of Python (see tools/read_safetensors.py). A file is three parts:
//
//   bytes 0..7     N, the length of the header, as an unsigned 64-bit little-endian integer;
//   bytes 8..8+N   the header: UTF-8 JSON text, one object
//                    { "encoder.layers.0.norm.weight": { "dtype": "F32", "shape": [512],
//                                                        "data_offsets": [0, 2048] },
//                      ...,
//                      "__metadata__": { "step": "1200", ... } }          (optional; string values only)
//                  padded at the end with spaces (attnlab pads so that N is a multiple of 8);
//   bytes 8+N..    the data buffer: every tensor's numbers, row-major, little-endian, back to back.
//                  data_offsets [begin, end) count bytes from the start of the data buffer, not of the file.
//
// A tensor's byte range must be exactly numel × (bytes per number): an F32 tensor of shape [2, 3] spans 24 bytes.
// The ranges tile the buffer: no two overlap, and no byte is left over.
//
// attnlab writes F32 from its float32 build and F64 from its float64 build, and reads either into `real`.
// Other dtypes (BF16, F16, I64, …) are refused with a message saying so; convert them in Python first.
// A file is a checkpoint someone may have truncated, corrupted or made by hand, so the reader trusts nothing:
// every inconsistency ends in an attnlab::Error that starts with the file's name and says what is wrong.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tensor/real.h"
#include "tensor/tensor.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct NamedTensor {
  std::string name;  // PyTorch state-dict style: "encoder.layers.0.self_attn.q_proj.weight"
  Tensor tensor;
};

struct SafetensorsContents {
  std::vector<NamedTensor> tensors;             // in the order their bytes appear in the file
  std::map<std::string, std::string> metadata;  // the "__metadata__" object (empty if there is none)
};

// Writes `tensors` (in the order given) and `metadata` to `path`, atomically: the bytes go to
// "<path>.tmp-<pid>", which is flushed to disk (fsync) and only then renamed over `path`. A crash or an error
// part-way leaves the old file untouched and no temporary file behind.
// Names must be non-empty, unique and not "__metadata__"; otherwise attnlab::Error.
void save_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

// Reads the whole file at `path` and parses it (a missing file is an attnlab::Error naming path and reason).
SafetensorsContents load_safetensors(const std::string& path);

// Parses the bytes of a safetensors file. `source_name` is used only in error messages.
// A rank-0 tensor (shape []) is read as shape [1], attnlab's scalar; more than 4 axes is refused.
SafetensorsContents parse_safetensors(const std::string& bytes, const std::string& source_name);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
