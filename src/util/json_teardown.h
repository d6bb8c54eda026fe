// json_teardown.h — freeing a JSON value without allocating, so that running out of memory while reading one ends
// in std::bad_alloc and never in std::terminate.
//
// nlohmann::json's destructor (3.11) first moves the children of a non-empty array or object onto a std::vector it
// allocates, to free deep nesting without recursion. When memory has run out, that allocation throws inside the
// destructor, which is noexcept, and the process ends in std::terminate (nlohmann/json issues 4653 and 5135; open
// in 3.11.2). An empty array or object frees without allocating, so take_apart() empties the containers bottom-up
// first. It recurses as deep as the value nests, up to `depth` levels (below that the library's destructor does the
// rest: no file attnlab writes nests that deep, and a hostile one cannot overflow the stack here).
//
//   nlohmann::json index;
//   FreedWithoutAllocating<nlohmann::json> freed(index);   // declared after it: runs first, on every way out
#pragma once

namespace attnlab {

template <typename Json>
void take_apart(Json& value, int depth = 64) noexcept {
  if (depth == 0) return;
  if (value.is_array()) {
    auto& array = value.template get_ref<typename Json::array_t&>();
    for (Json& child : array) take_apart(child, depth - 1);
    array.clear();  // every element is now a scalar or an empty container: nothing allocates
  } else if (value.is_object()) {
    auto& object = value.template get_ref<typename Json::object_t&>();
    for (auto& member : object) take_apart(member.second, depth - 1);
    object.clear();
  }
}

template <typename Json>
class FreedWithoutAllocating {
 public:
  explicit FreedWithoutAllocating(Json& value) : value_(value) {}
  FreedWithoutAllocating(const FreedWithoutAllocating&) = delete;
  FreedWithoutAllocating& operator=(const FreedWithoutAllocating&) = delete;
  ~FreedWithoutAllocating() { take_apart(value_); }

 private:
  Json& value_;
};

}  // namespace attnlab
