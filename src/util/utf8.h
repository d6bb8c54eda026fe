// utf8.h — reading and writing UTF-8, the encoding every text attnlab reads must be in.
//
// UTF-8 in one paragraph: a character (code point) is 1 to 4 bytes. Its first byte says how many:
//     0xxxxxxx                              1 byte,  U+0000 … U+007F (ASCII)
//     110xxxxx 10xxxxxx                     2 bytes, U+0080 … U+07FF
//     1110xxxx 10xxxxxx 10xxxxxx            3 bytes, U+0800 … U+FFFF
//     11110xxx 10xxxxxx 10xxxxxx 10xxxxxx   4 bytes, U+10000 … U+10FFFF
// and the x bits, read left to right, are the code point. Anything else is invalid: a byte 10xxxxxx where a
// character should start, a sequence cut short, a code point written with more bytes than it needs ("overlong"),
// a UTF-16 surrogate (U+D800 … U+DFFF) or a value above U+10FFFF. A file in Latin-1 or Windows-1252 trips the
// first or second rule at its first accented letter, which is where first_invalid_utf8() stops.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab {

struct DecodedCharacter {
  char32_t code_point = 0;
  size_t length = 0;  // bytes; 0 means "not valid UTF-8 here"
};

// The character that starts at text[at] (length 0 if the bytes there are not valid UTF-8).
DecodedCharacter decode_utf8(std::string_view text, size_t at);
// Appends the UTF-8 bytes of one code point.
void append_utf8(std::string& out, char32_t code_point);
// Offset of the first byte at or after `from` that is not valid UTF-8, or std::string_view::npos.
size_t first_invalid_utf8(std::string_view text, size_t from = 0);
// The text with every byte that is not valid UTF-8 written as \xHH, so that a message quoting a file's bytes
// prints as readable text on any terminal ("got '\xFF\xFE'" rather than two replacement marks).
std::string escape_invalid_utf8(std::string_view text);

}  // namespace attnlab
