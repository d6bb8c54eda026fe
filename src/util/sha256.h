// sha256.h — SHA-256 (FIPS 180-4): a 32-byte fingerprint of any bytes, which no one can match with other bytes.
//
// `attnlab serve` names the explorer's one inline script in its Content-Security-Policy by this fingerprint
// ("script-src 'sha256-<base64 of it>'"): the browser runs an inline script only if its text hashes to that, so a
// script slipped into the page by anyone else would not run.
//
// The idea: the message is padded to a multiple of 64 bytes (a 1 bit, zeros, then its length in bits as a 64-bit
// big-endian number) and read 64 bytes at a time. Each block is stretched into 64 words W_t,
//     W_t = σ1(W_{t−2}) + W_{t−7} + σ0(W_{t−15}) + W_{t−16}          (t ≥ 16; the first 16 are the block)
// and mixed into eight 32-bit words a … h by 64 rounds of
//     T1 = h + Σ1(e) + Ch(e, f, g) + K_t + W_t      T2 = Σ0(a) + Maj(a, b, c)
//     h = g, g = f, f = e, e = d + T1, d = c, c = b, b = a, a = T1 + T2
// with Ch(e, f, g) = (e ∧ f) ⊕ (¬e ∧ g), Maj(a, b, c) = (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c), and Σ, σ rotations and
// shifts (sha256.cpp). The block's result is added to the running state H; the hash is H at the end, big-endian.
// tests/inspect/test_page_hash.cpp checks FIPS 180-4's examples ("abc", the 448-bit message, a million 'a's).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace attnlab {

std::array<uint8_t, 32> sha256(std::string_view bytes);

}  // namespace attnlab
