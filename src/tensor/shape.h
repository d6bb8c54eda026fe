// shape.h — the shape of a tensor: 1 to 4 sizes, outermost first (row-major, like PyTorch).
//
// attnlab's tensors are always contiguous and row-major, so a shape is all we need to find an element:
// the element at index (i0, i1, i2, i3) of a [d0, d1, d2, d3] tensor lives at
//     offset = ((i0 * d1 + i1) * d2 + i2) * d3 + i3.
// Axes may be given negatively, as in PyTorch: axis -1 is the last one.
// A scalar (a loss, say) is the shape [1].
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class Shape {
 public:
  static constexpr int max_rank = 4;

  Shape() = default;                        // rank 0: only as "not set yet"
  Shape(std::initializer_list<int64_t> sizes);
  explicit Shape(const std::vector<int64_t>& sizes);

  int rank() const { return rank_; }
  int64_t operator[](int axis) const { return sizes_[normalize_axis(axis)]; }
  int64_t numel() const;                    // product of the sizes
  std::vector<int64_t> sizes() const { return {sizes_.begin(), sizes_.begin() + rank_}; }

  // Number of rows when the tensor is seen as a matrix [rows, last axis] — how most kernels walk it.
  int64_t rows() const;
  int64_t cols() const { return rank_ == 0 ? 0 : sizes_[rank_ - 1]; }

  // Maps a possibly negative axis into [0, rank); throws attnlab::Error naming the axis and the shape otherwise.
  int normalize_axis(int axis) const;

  std::string str() const;                  // "[2, 3, 4]"
  // "[1, 2]": the index of the element at row-major `offset` (the inverse of the offset formula above) — for
  // messages that say where a bad value sits.
  std::string index_of(int64_t offset) const;
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  std::array<int64_t, max_rank> sizes_{};
  int rank_ = 0;
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
