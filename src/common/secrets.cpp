#include "common/secrets.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <set>

#include "common/base64.h"
#include "common/percent_encoding.h"

namespace dagadvisor {
namespace {

// Longest first, so that a secret containing another one is replaced whole.
struct LongestFirst {
  bool operator()(const std::string& a, const std::string& b) const {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  }
};

std::mutex g_mutex;
std::set<std::string, LongestFirst>& registry() {
  static std::set<std::string, LongestFirst> secrets;
  return secrets;
}

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Case-insensitive find of the lower-case `needle` in `text`, from `from`.
std::size_t findNoCase(std::string_view text, std::string_view needle, std::size_t from) {
  if (needle.size() > text.size()) {
    return std::string_view::npos;
  }
  for (std::size_t i = from; i + needle.size() <= text.size(); ++i) {
    bool match = true;
    for (std::size_t j = 0; j < needle.size() && match; ++j) {
      match = lower(text[i + j]) == needle[j];
    }
    if (match) {
      return i;
    }
  }
  return std::string_view::npos;
}

// A credential ends at whitespace, a quote, a separator of JSON, headers or query strings.
bool endsToken(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0 ||
         std::string_view("\"'`,;&<>{}[]\\").find(c) != std::string_view::npos;
}

std::size_t skip(std::string_view text, std::size_t at, std::string_view chars) {
  while (at < text.size() && chars.find(text[at]) != std::string_view::npos) {
    ++at;
  }
  return at;
}

// Replaces the token starting at `at` (if any) with kRedacted; returns where to go on.
std::size_t redactToken(std::string& text, std::size_t at, std::size_t min_chars) {
  std::size_t end = at;
  while (end < text.size() && !endsToken(text[end])) {
    ++end;
  }
  if (end - at < min_chars) {
    return end;
  }
  text.replace(at, end - at, kRedacted);
  return at + kRedacted.size();
}

// After each `key` ("authorization", "x-amz-security-token"): separators, an optional scheme
// word, then the credential.
void redactAfterKeys(std::string& text) {
  for (const std::string_view key : {"authorization", "x-amz-security-token"}) {
    for (std::size_t at = findNoCase(text, key, 0); at != std::string::npos;
         at = findNoCase(text, key, at)) {
      const std::size_t after = at + key.size();
      std::size_t value = skip(text, after, "\"': =\t");
      const std::string_view separators = std::string_view(text).substr(after, value - after);
      if (separators.find_first_of(":=") == std::string_view::npos) {
        at = after;  // "authorization required": the word in prose, no value follows
        continue;
      }
      for (const std::string_view scheme : {"bearer ", "basic ", "aws4-hmac-sha256 "}) {
        if (findNoCase(text, scheme, value) == value) {
          value += scheme.size();
          break;
        }
      }
      at = redactToken(text, value, 1);
    }
  }
}

// "Bearer <token>" and "Basic <base64>" wherever they appear; a short word after "basic"
// ("basic auth") is prose, not a credential.
void redactSchemes(std::string& text) {
  for (const std::string_view scheme : {"bearer ", "basic "}) {
    for (std::size_t at = findNoCase(text, scheme, 0); at != std::string::npos;
         at = findNoCase(text, scheme, at)) {
      at = redactToken(text, at + scheme.size(), 8);
    }
  }
}

void redactRegistered(std::string& text) {
  std::lock_guard lock(g_mutex);
  for (const std::string& secret : registry()) {
    for (std::size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + kRedacted.size())) {
      text.replace(at, secret.size(), kRedacted);
    }
  }
}

std::shared_ptr<const SecretForms>& snapshot() {
  static std::shared_ptr<const SecretForms> forms = std::make_shared<SecretForms>();
  return forms;
}

void remember(std::string_view secret) {
  std::lock_guard lock(g_mutex);
  if (!registry().emplace(secret).second) {
    return;
  }
  auto forms = std::make_shared<SecretForms>();
  forms->forms.assign(registry().begin(), registry().end());
  forms->shortest = forms->forms.back().size();
  snapshot() = std::move(forms);
}

}  // namespace

std::string redactRegisteredSecrets(std::string_view text) {
  std::string out(text);
  if (registeredSecretForms()->foundIn(text)) {
    redactRegistered(out);
  }
  return out;
}

bool SecretForms::foundIn(std::string_view text) const {
  if (text.size() < shortest) {
    return false;
  }
  return std::any_of(forms.begin(), forms.end(), [text](const std::string& form) {
    return text.find(form) != std::string_view::npos;
  });
}

std::shared_ptr<const SecretForms> registeredSecretForms() {
  std::lock_guard lock(g_mutex);
  return snapshot();
}

void registerSecret(std::string_view secret) {
  if (secret.size() < kMinSecretChars) {
    return;
  }
  remember(secret);
  remember(percentEncode(secret));  // upper- and lower-case hex: encoders differ
  remember(percentEncode(secret, "-._~", true));
}

void registerBasicCredentials(std::string_view user, std::string_view password) {
  registerSecret(password);
  std::string encoded = encodeBase64(std::string(user) + ":" + std::string(password));
  registerSecret(encoded);
  while (!encoded.empty() && encoded.back() == '=') {
    encoded.pop_back();
  }
  registerSecret(encoded);
}

bool isCredentialHeader(std::string_view name) {
  std::string lowered;
  for (const char c : name) {
    lowered += lower(c);
  }
  for (const std::string_view word : {"auth", "token", "key", "secret", "cookie", "password"}) {
    if (lowered.find(word) != std::string::npos) {
      return true;
    }
  }
  return false;
}

void registerCredentialHeaders(const std::map<std::string, std::string>& headers) {
  for (const auto& [name, value] : headers) {
    if (!isCredentialHeader(name)) {
      continue;
    }
    registerSecret(value);
    if (const auto space = value.find(' '); space != std::string::npos) {
      registerSecret(std::string_view(value).substr(space + 1));  // "Bearer <token>"'s token
    }
  }
}

std::string scrubSecrets(std::string_view text) {
  std::string out(text);
  redactRegistered(out);
  redactAfterKeys(out);
  redactSchemes(out);
  return out;
}

}  // namespace dagadvisor
