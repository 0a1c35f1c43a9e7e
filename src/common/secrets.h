#pragma once

#include <string>
#include <string_view>

namespace dagadvisor {

/// What a scrubbed secret is replaced with.
inline constexpr std::string_view kRedacted = "<redacted>";

/// Secrets shorter than this are not registered: scrubbing "ab" from every message would make
/// them unreadable and protect nothing.
inline constexpr std::size_t kMinSecretChars = 4;

/// Remembers `secret` (a token, password, key read from a file or the environment) for the
/// life of the process, so that scrubSecrets() removes it from every message. The one place
/// that reads a secret registers it. Thread-safe.
void registerSecret(std::string_view secret);

/// `text` with every registered secret and every credential-looking value replaced by
/// kRedacted: the value of an Authorization header (also when a proxy or backend echoes it in
/// a body), "Bearer <token>", "Basic <base64>", and X-Amz-Security-Token values. Applied to
/// every error a source returns, every log line and every failure /readyz shows.
std::string scrubSecrets(std::string_view text);

}  // namespace dagadvisor
