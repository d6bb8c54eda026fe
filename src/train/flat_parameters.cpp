// flat_parameters.cpp — which numbers of which parameters a stretch of the flat vector covers (flat_parameters.h).
#include "train/flat_parameters.h"

#include <algorithm>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

int64_t flat_size(const std::vector<NamedParameter>& parameters) {
  int64_t total = 0;
  for (const NamedParameter& p : parameters) total += p.tensor.numel();
  return total;
}

std::vector<ParameterPart> parts_in(const std::vector<NamedParameter>& parameters, FlatRange range) {
  std::vector<ParameterPart> parts;
  int64_t offset = 0;   // where parameter i starts in the flat vector
  for (size_t i = 0; i < parameters.size(); ++i) {
    const int64_t n = parameters[i].tensor.numel();
    const int64_t begin = std::max(range.begin, offset), end = std::min(range.end, offset + n);
    if (begin < end) parts.push_back({i, begin - offset, end - offset, begin});
    offset += n;
  }
  return parts;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
