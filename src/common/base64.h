#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dagadvisor {

/// Decodes standard base64 (with or without trailing padding); nullopt on any other character.
/// Used for HTTP basic credentials and kubeconfig "*-data" fields.
std::optional<std::string> decodeBase64(std::string_view text);

/// Standard base64 with padding, as an HTTP basic Authorization header carries `user:password`.
std::string encodeBase64(std::string_view bytes);

}  // namespace dagadvisor
