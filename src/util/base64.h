// base64.h — bytes as text (RFC 4648): every 3 bytes as 4 characters of a 64-letter alphabet, '=' filling the last
// group. The live page carries a run's files in it this way (live_page.cpp), and serve names the explorer's script
// in its Content-Security-Policy by the base64 of its SHA-256 (sha256.h).
//     base64("Man") → "TWFu"      base64("Ma") → "TWE="      base64("M") → "TQ=="
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

std::string base64(std::string_view bytes);

}  // namespace attnlab
