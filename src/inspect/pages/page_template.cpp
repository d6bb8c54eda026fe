// page_template.cpp — a page's template filled in (page_template.h).
#include "inspect/pages/page_template.h"

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::string fill_template(std::string page, const std::vector<std::pair<std::string, std::string>>& parts,
                          const std::string& what) {
  size_t cursor = 0;
  for (const auto& [marker, text] : parts) {
    const size_t at = page.find(marker, cursor);
    if (at == std::string::npos) throw Error(what + " has no " + marker + " (in this order)");
    page.replace(at, marker.size(), text);
    cursor = at + text.size();
  }
  return page;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
