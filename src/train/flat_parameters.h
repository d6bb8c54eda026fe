// flat_parameters.h — all parameters laid end to end as one vector of Ψ numbers, and a stretch of it.
//
// attnlab keeps every parameter in a tensor of its own, named as PyTorch names it. Where one vector of all of
// them is wanted — a single all-reduce over every gradient, or ZeRO's shards (sharded_optimizer.h) — the
// numbers are counted as if laid end to end in parameter order (Marian keeps them that way in memory):
//     flat = [ parameter 0's numbers | parameter 1's numbers | … ]      Ψ = Σ numel = flat_size()
// A FlatRange [begin, end) is a stretch of that vector; parts_in() says which numbers of which parameters it
// covers, so code can work on the stretch without copying the parameters into one buffer:
//     Ψ = 10, parameters of 4, 3 and 3 numbers, range [3, 8)  →  parts {0: [3, 4)}, {1: [0, 3)}, {2: [0, 1)}
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "nn/module.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct FlatRange {
  int64_t begin = 0;
  int64_t end = std::numeric_limits<int64_t>::max();   // the default range is everything
};

// Numbers [from, to) of parameters[parameter], which sit at flat positions [flat_begin, flat_begin + to − from).
struct ParameterPart {
  size_t parameter;
  int64_t from, to;
  int64_t flat_begin;
};

int64_t flat_size(const std::vector<NamedParameter>& parameters);   // Ψ

// The parts of the parameters inside `range`, in flat order; parameters outside it, or with no numbers, have none.
std::vector<ParameterPart> parts_in(const std::vector<NamedParameter>& parameters, FlatRange range);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
