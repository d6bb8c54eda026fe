// page_template.h — a page's template filled in: the explorer (explorer_page.cpp) and the live explorer
// (live_page.cpp) are HTML files with marked places, read into the binary at build time (cmake/embed_text.cmake).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tensor/real.h"  // ATTNLAB_PRECISION

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Puts each text where the template has its marker, in the order the markers stand in the template; the search
// for a marker starts after the text put before it, so a marker inside data (a sentence may hold anything) is
// never mistaken for the template's own. Throws attnlab::Error naming `what` if the template lost a marker.
std::string fill_template(std::string page, const std::vector<std::pair<std::string, std::string>>& parts,
                          const std::string& what);

// One of the generated arrays as text (its last byte is the 0 the generator appends).
template <size_t N>
std::string text_of(const unsigned char (&bytes)[N]) {
  return std::string(reinterpret_cast<const char*>(bytes), N - 1);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
