#pragma once

#include <string>
#include <string_view>

namespace dagadvisor::testing {

/// Absolute path of a file under tests/fixtures/.
std::string fixturePath(std::string_view relative);

/// The whole content of a file; fails the current test when it cannot be read.
std::string readFile(const std::string& path);

}  // namespace dagadvisor::testing
