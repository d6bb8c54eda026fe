// base64.cpp — RFC 4648 base64 (base64.h).
#include "util/base64.h"

#include <cstdint>

namespace attnlab {

std::string base64(std::string_view bytes) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t left = bytes.size() - i;
    uint32_t group = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (left > 1) group |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    if (left > 2) group |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    out += alphabet[(group >> 18) & 63];
    out += alphabet[(group >> 12) & 63];
    out += left > 1 ? alphabet[(group >> 6) & 63] : '=';
    out += left > 2 ? alphabet[group & 63] : '=';
  }
  return out;
}

}  // namespace attnlab
