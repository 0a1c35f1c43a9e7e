#pragma once

#include <string>
#include <string_view>

namespace dagadvisor {

/// `text` with every byte but the ASCII letters, digits and `kept` written as %XX (RFC 3986;
/// its unreserved characters are the default), with upper-case hex digits, or lower-case ones
/// when `lower_hex` (both are valid, and encoders differ).
std::string percentEncode(std::string_view text, std::string_view kept = "-._~",
                          bool lower_hex = false);

}  // namespace dagadvisor
