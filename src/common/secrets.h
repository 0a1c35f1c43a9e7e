#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dagadvisor {

/// What a scrubbed secret is replaced with.
inline constexpr std::string_view kRedacted = "<redacted>";

/// Secrets shorter than this are not registered: scrubbing "ab" from every message would make
/// them unreadable and protect nothing.
inline constexpr std::size_t kMinSecretChars = 4;

/// Remembers `secret` (a token, password, key read from a file or the environment) for the
/// life of the process, so that scrubSecrets() removes it from every message, raw and
/// URL-encoded (a proxy may echo it in a query string or a Location). "Bearer <secret>" contains
/// the raw form. The one place that reads a secret registers it. Thread-safe.
void registerSecret(std::string_view secret);

/// The registered secrets in every registered form, as they stood when taken: for checking
/// many strings (every label value of an answer) without taking a lock for each.
struct SecretForms {
  std::vector<std::string> forms;  // longest first
  std::size_t shortest = 0;        // 0 when there is none

  /// Whether `text` holds one of the forms.
  bool foundIn(std::string_view text) const;
};

/// The current registry; empty until a secret is registered. Thread-safe.
std::shared_ptr<const SecretForms> registeredSecretForms();

/// Registers what HTTP basic auth sends: the password and base64("user:password") (padded and
/// not), each also URL-encoded, so that an echo of the header in any of those forms is scrubbed.
void registerBasicCredentials(std::string_view user, std::string_view password);

/// `text` with every registered secret replaced by kRedacted and nothing else changed: for the
/// data an API answers (Kubernetes objects, Airflow's task lists), where scrubSecrets' rules for
/// credential-looking text could change values that are none. A proxy echoing the request's
/// credentials into an answer then carries them into no object, run or task.
std::string redactRegisteredSecrets(std::string_view text);

/// Whether a header with this name carries a credential ("X-Api-Key", "Cookie",
/// "X-Auth-Token"…): its value is a secret, registered when the configuration is read.
bool isCredentialHeader(std::string_view name);

/// Registers the value of every credential header in `headers`, and the credential of a value
/// with a scheme ("Bearer <token>": the token too, which a proxy may echo alone).
void registerCredentialHeaders(const std::map<std::string, std::string>& headers);

/// `text` with every registered secret (in every registered encoding) and every
/// credential-looking value replaced by
/// kRedacted: the value of an Authorization header (also when a proxy or backend echoes it in
/// a body), "Bearer <token>", "Basic <base64>", and X-Amz-Security-Token values. Applied to
/// every error a source returns, every log line and every failure /readyz shows.
std::string scrubSecrets(std::string_view text);

}  // namespace dagadvisor
