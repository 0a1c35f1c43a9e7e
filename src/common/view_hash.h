#pragma once

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string_view>
#include <tuple>

namespace dagadvisor {

/// One hash over several names (boost::hash_combine's mixing), for hash-map keys made of string
/// views: a lookup by views copies no string.
inline std::size_t hashViews(std::initializer_list<std::string_view> parts) {
  const std::hash<std::string_view> hash;
  std::size_t h = 0;
  for (const std::string_view part : parts) {
    h ^= hash(part) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  }
  return h;
}

/// A key of three names, such as a workload's namespace, kind and name.
using ViewTriple = std::tuple<std::string_view, std::string_view, std::string_view>;

struct ViewTripleHash {
  std::size_t operator()(const ViewTriple& key) const {
    return hashViews({std::get<0>(key), std::get<1>(key), std::get<2>(key)});
  }
};

}  // namespace dagadvisor
