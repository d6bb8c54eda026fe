// shape.cpp — constructing and printing shapes, with the checks that keep every later index in bounds.
#include "tensor/shape.h"

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

Shape::Shape(std::initializer_list<int64_t> sizes) : Shape(std::vector<int64_t>(sizes)) {}

Shape::Shape(const std::vector<int64_t>& sizes) {
  if (sizes.empty() || sizes.size() > max_rank) {
    throw Error("a tensor has 1 to 4 axes, but the shape " + std::to_string(sizes.size()) +
                " axes long was asked for");
  }
  for (int64_t size : sizes) {
    if (size < 0) throw Error("a tensor size cannot be negative (asked for " + std::to_string(size) + ")");
  }
  rank_ = static_cast<int>(sizes.size());
  for (int axis = 0; axis < rank_; ++axis) sizes_[axis] = sizes[axis];
}

int64_t Shape::numel() const {
  if (rank_ == 0) return 0;
  int64_t count = 1;
  for (int axis = 0; axis < rank_; ++axis) count *= sizes_[axis];
  return count;
}

int64_t Shape::rows() const {
  if (rank_ == 0) return 0;
  int64_t count = 1;  // product of all sizes but the last (not numel / last, which divides by zero on size 0)
  for (int axis = 0; axis + 1 < rank_; ++axis) count *= sizes_[axis];
  return count;
}

int Shape::normalize_axis(int axis) const {
  int positive = axis < 0 ? axis + rank_ : axis;
  if (positive < 0 || positive >= rank_) {
    throw Error("axis " + std::to_string(axis) + " is out of range for a tensor of shape " + str());
  }
  return positive;
}

std::string Shape::str() const {
  std::string text = "[";
  for (int axis = 0; axis < rank_; ++axis) {
    if (axis > 0) text += ", ";
    text += std::to_string(sizes_[axis]);
  }
  return text + "]";
}

std::string Shape::index_of(int64_t offset) const {
  std::vector<int64_t> index(static_cast<size_t>(rank_));
  for (int axis = rank_ - 1; axis >= 0; --axis) {
    index[static_cast<size_t>(axis)] = offset % sizes_[axis];
    offset /= sizes_[axis];
  }
  std::string text = "[";
  for (size_t a = 0; a < index.size(); ++a) text += (a ? ", " : "") + std::to_string(index[a]);
  return text + "]";
}

bool Shape::operator==(const Shape& other) const {
  if (rank_ != other.rank_) return false;
  for (int axis = 0; axis < rank_; ++axis) {
    if (sizes_[axis] != other.sizes_[axis]) return false;
  }
  return true;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
