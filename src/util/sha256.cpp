// sha256.cpp — SHA-256 block by block, in the order and with the names of FIPS 180-4, section 6.2 (sha256.h).
#include "util/sha256.h"

#include <string>

namespace attnlab {

namespace {

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4, 4.2.2).
constexpr std::array<uint32_t, 64> K = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
uint32_t Sigma0(uint32_t a) { return rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22); }
uint32_t Sigma1(uint32_t e) { return rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25); }
uint32_t sigma0(uint32_t w) { return rotr(w, 7) ^ rotr(w, 18) ^ (w >> 3); }
uint32_t sigma1(uint32_t w) { return rotr(w, 17) ^ rotr(w, 19) ^ (w >> 10); }
uint32_t Ch(uint32_t e, uint32_t f, uint32_t g) { return (e & f) ^ (~e & g); }
uint32_t Maj(uint32_t a, uint32_t b, uint32_t c) { return (a & b) ^ (a & c) ^ (b & c); }

// One 64-byte block mixed into the state H.
void compress(std::array<uint32_t, 8>& H, const unsigned char* block) {
  std::array<uint32_t, 64> W{};
  for (int t = 0; t < 16; ++t) {
    W[t] = uint32_t{block[4 * t]} << 24 | uint32_t{block[4 * t + 1]} << 16 | uint32_t{block[4 * t + 2]} << 8 |
           uint32_t{block[4 * t + 3]};
  }
  for (int t = 16; t < 64; ++t) W[t] = sigma1(W[t - 2]) + W[t - 7] + sigma0(W[t - 15]) + W[t - 16];
  auto [a, b, c, d, e, f, g, h] = H;
  for (int t = 0; t < 64; ++t) {
    const uint32_t T1 = h + Sigma1(e) + Ch(e, f, g) + K[t] + W[t];
    const uint32_t T2 = Sigma0(a) + Maj(a, b, c);
    h = g, g = f, f = e, e = d + T1, d = c, c = b, b = a, a = T1 + T2;
  }
  const std::array<uint32_t, 8> mixed = {a, b, c, d, e, f, g, h};
  for (int i = 0; i < 8; ++i) H[i] += mixed[i];
}

}  // namespace

std::array<uint8_t, 32> sha256(std::string_view bytes) {
  // The first 32 bits of the fractional parts of the square roots of the first 8 primes (FIPS 180-4, 5.3.3).
  std::array<uint32_t, 8> H = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const size_t whole = bytes.size() / 64 * 64;
  for (size_t at = 0; at < whole; at += 64) compress(H, reinterpret_cast<const unsigned char*>(bytes.data()) + at);
  // The padding: the rest of the message, a 1 bit, zeros, the length in bits; one or two blocks.
  std::string tail(bytes.substr(whole));
  tail += static_cast<char>(0x80);
  while (tail.size() % 64 != 56) tail += '\0';
  const uint64_t bits = static_cast<uint64_t>(bytes.size()) * 8;
  for (int shift = 56; shift >= 0; shift -= 8) tail += static_cast<char>((bits >> shift) & 0xff);
  for (size_t at = 0; at < tail.size(); at += 64) compress(H, reinterpret_cast<const unsigned char*>(tail.data()) + at);
  std::array<uint8_t, 32> digest{};
  for (int i = 0; i < 32; ++i) digest[i] = static_cast<uint8_t>(H[i / 4] >> (24 - 8 * (i % 4)));
  return digest;
}

}  // namespace attnlab
