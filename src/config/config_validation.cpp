#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>

#include "common/secrets.h"
#include "config/config_fields.h"
#include "config/config_loader.h"

namespace dagadvisor::config {
namespace {

using Problem = std::optional<std::string>;

bool isAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isAlnum(char c) {
  return isAlpha(c) || isDigit(c);
}

bool isMetricName(std::string_view name) {
  auto valid = [](char c, bool first) {
    return isAlpha(c) || c == '_' || c == ':' || (!first && isDigit(c));
  };
  return !name.empty() && valid(name[0], true) &&
         std::all_of(name.begin() + 1, name.end(), [&](char c) { return valid(c, false); });
}

bool isLabelName(std::string_view name) {
  return !name.empty() && (isAlpha(name[0]) || name[0] == '_') &&
         std::all_of(name.begin(), name.end(), [](char c) { return isAlnum(c) || c == '_'; });
}

// An HTTP token (RFC 9110 tchar), so that a header name cannot smuggle a separator.
bool isToken(std::string_view name) {
  static constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return isAlnum(c) || kExtra.find(c) != std::string_view::npos;
  });
}

// 1 to 5 digits, at most 65535.
bool parsePort(std::string_view text, int& port) {
  if (text.empty() || text.size() > 5 || !std::all_of(text.begin(), text.end(), isDigit)) {
    return false;
  }
  port = std::stoi(std::string(text));
  return port <= 65535;
}

// A DNS name, an IPv4 address or a bracketed IPv6 address.
bool isHost(std::string_view host) {
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    return std::all_of(host.begin() + 1, host.end() - 1, [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
    });
  }
  return !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
    return isAlnum(c) || c == '.' || c == '-' || c == '_';
  });
}

// host:port, where the last colon separates the port (so "[::1]:80" works).
bool isHostPort(std::string_view text, bool port_required) {
  const std::size_t colon = text.rfind(':');
  const bool has_port = colon != std::string_view::npos && text.find(']', colon) == text.npos;
  if (!has_port) {
    return !port_required && isHost(text);
  }
  int port = 0;
  return isHost(text.substr(0, colon)) && parsePort(text.substr(colon + 1), port) &&
         (port_required || port > 0);
}

// Credentials, queries and fragments are refused: the URL is logged, and the API paths are
// appended to it.
bool isUrl(std::string_view url) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (url.substr(0, scheme.size()) == scheme) {
      const std::string_view rest = url.substr(scheme.size());
      const std::size_t slash = rest.find('/');
      const std::string_view path = slash == rest.npos ? "" : rest.substr(slash);
      return isHostPort(rest.substr(0, slash), false) &&
             path.find_first_of(" \t\r\n?#@") == path.npos;
    }
  }
  return false;
}

// What precedes a URL's last '@' may be a password, even one holding a '/' (which ends the
// authority for a URL parser): messages show neither.
std::string withoutUserinfo(std::string_view url) {
  const std::size_t scheme_end = url.find("://");
  const std::size_t at = url.rfind('@');
  if (scheme_end == url.npos || at == url.npos || at < scheme_end) {
    return std::string(url);
  }
  return std::string(url.substr(0, scheme_end + 3)) + std::string(kRedacted) +
         std::string(url.substr(at));
}

// The message never repeats a password the URL carries: errors reach logs and terminals.
Problem urlProblem(const std::string& value) {
  const std::string shown = withoutUserinfo(value);
  if (shown != value) {
    return Problem("credentials in a URL are refused (" + inQuotes(shown) +
                   "): use basic_auth.password_file or bearer_token_file");
  }
  return Problem("not a URL (" + inQuotes(value) +
                 "): expected http:// or https:// followed by a host");
}

// Light PromQL syntax: name op 'quoted value', separated by commas; the regexes themselves are
// left to Prometheus.
bool isSelector(std::string_view text) {
  std::size_t pos = 0;
  auto skipSpace = [&] {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) {
      ++pos;
    }
  };
  auto readValue = [&] {
    if (pos >= text.size() || (text[pos] != '"' && text[pos] != '\'' && text[pos] != '`')) {
      return false;
    }
    const char quote = text[pos++];
    for (; pos < text.size() && text[pos] != quote; ++pos) {
      if (text[pos] == '\\' && quote != '`') {
        ++pos;
      }
    }
    return pos++ < text.size();
  };
  while (true) {
    skipSpace();
    const std::size_t name_start = pos;
    while (pos < text.size() && (isAlnum(text[pos]) || text[pos] == '_')) {
      ++pos;
    }
    if (!isLabelName(text.substr(name_start, pos - name_start))) {
      return false;
    }
    skipSpace();
    const std::string_view rest = text.substr(pos);
    const bool two = rest.starts_with("=~") || rest.starts_with("!~") || rest.starts_with("!=");
    if (!two && !rest.starts_with("=")) {
      return false;
    }
    pos += two ? 2 : 1;
    skipSpace();
    if (!readValue()) {
      return false;
    }
    skipSpace();
    if (pos == text.size()) {
      return true;
    }
    if (text[pos++] != ',') {
      return false;
    }
  }
}

template <std::size_t N>
Problem oneOf(const std::string& value, const std::string_view (&allowed)[N]) {
  if (std::find(std::begin(allowed), std::end(allowed), value) != std::end(allowed)) {
    return std::nullopt;
  }
  std::string list;
  for (std::string_view word : allowed) {
    list += (list.empty() ? "" : ", ") + std::string(word);
  }
  return "must be one of " + list + " (got " + inQuotes(value) + ")";
}

Problem checkString(Rule rule, const std::string& value) {
  switch (rule) {
    case Rule::kNonEmpty:
      return value.empty() ? Problem("must not be empty") : std::nullopt;
    case Rule::kUrl:
      return value.empty() || isUrl(value) ? std::nullopt : urlProblem(value);
    case Rule::kHostPort:
      return isHostPort(value, true) ? std::nullopt
                                     : Problem("expected host:port (got " + inQuotes(value) +
                                               "), with a port from 0 to 65535");
    case Rule::kLogLevel:
      return oneOf(value, kLogLevels);
    case Rule::kLogFormat:
      return oneOf(value, kLogFormats);
    case Rule::kAirflowApi:
      return oneOf(value, kAirflowApiVersions);
    case Rule::kMetricName:
      return isMetricName(value) ? std::nullopt
                                 : Problem("not a valid metric name (" + inQuotes(value) + ")");
    case Rule::kLabelName:
      return isLabelName(value) ? std::nullopt
                                : Problem("not a valid label name (" + inQuotes(value) + ")");
    case Rule::kSelector:
      return value.empty() || isSelector(value)
                 ? std::nullopt
                 : Problem("not a list of label matchers (" + inQuotes(value) +
                           "): expected e.g. cluster=\"prod\",env=~\"x.*\"");
    default:
      return std::nullopt;
  }
}

Problem checkSeconds(Rule rule, Seconds value) {
  const std::string text = formatNumber(value.count()) + "s";
  if (rule == Rule::kPositive && !(value.count() > 0)) {
    return "must be greater than 0 (got " + text + ")";
  }
  if (rule == Rule::kNonNegative && !(value.count() >= 0)) {
    return "must not be negative (got " + text + ")";
  }
  return std::nullopt;
}

Problem checkInt(Rule rule, int value) {
  if (rule == Rule::kThreads && (value < kMinThreads || value > kMaxThreads)) {
    return "must be between " + std::to_string(kMinThreads) + " and " +
           std::to_string(kMaxThreads) + " (got " + std::to_string(value) + ")";
  }
  if (rule == Rule::kNonNegative && value < 0) {
    return "must not be negative (got " + std::to_string(value) + ")";
  }
  const int minimum = rule == Rule::kAtLeastOne ? 1 : rule == Rule::kAtLeastTwo ? 2 : 0;
  if (minimum > 0 && value < minimum) {
    return "must be at least " + std::to_string(minimum) + " (got " + std::to_string(value) + ")";
  }
  return std::nullopt;
}

Problem checkDouble(Rule rule, double value) {
  if (rule == Rule::kShare && !(value >= 0 && value <= 1)) {
    return "must be between 0 and 1 (got " + formatNumber(value) + ")";
  }
  return std::nullopt;
}

Problem checkList(Rule rule, const StringList& values) {
  if (rule == Rule::kMetricName && values.empty()) {
    return std::string("must name at least one metric");
  }
  for (const std::string& value : values) {
    if (Problem problem = checkString(rule, value)) {
      return problem;
    }
  }
  return std::nullopt;
}

Problem checkMap(Rule rule, const StringMap& values) {
  if (rule != Rule::kHeaders) {
    return std::nullopt;
  }
  for (const auto& [name, value] : values) {
    if (!isToken(name)) {
      return "not a valid header name (" + inQuotes(name) + ")";
    }
    if (value.find_first_of("\r\n") != std::string::npos) {
      return "the value of header " + inQuotes(name) + " contains a line break";
    }
  }
  return std::nullopt;
}

Problem check(Rule rule, const FieldRef& ref) {
  if (rule == Rule::kNone) {
    return std::nullopt;
  }
  struct Checker {
    Rule wanted;
    Problem operator()(const std::string* v) const { return checkString(wanted, *v); }
    Problem operator()(const int* v) const { return checkInt(wanted, *v); }
    Problem operator()(const double* v) const { return checkDouble(wanted, *v); }
    Problem operator()(const bool*) const { return std::nullopt; }
    Problem operator()(const Seconds* v) const { return checkSeconds(wanted, *v); }
    Problem operator()(const StringList* v) const { return checkList(wanted, *v); }
    Problem operator()(const StringMap* v) const { return checkMap(wanted, *v); }
  };
  return std::visit(Checker{rule}, ref);
}

// Scrape targets are URLs or file paths; a scrape source beside another data source would leave
// the user guessing which one the analysis read.
void checkScrape(const Sources& sources, ConfigErrors& result) {
  const std::string_view field = "sources.scrape.targets";
  for (const std::string& target : sources.scrape.targets) {
    const bool url = target.starts_with("http://") || target.starts_with("https://");
    if (target.empty() || (url && !isUrl(target))) {
      result.errors.push_back(makeError(
          "not a URL or a file (" + inQuotes(withoutUserinfo(target)) + ")", std::string(field)));
    }
  }
  if (!sources.scrape.targets.empty() &&
      (!sources.prometheus.url.empty() || !sources.snapshot_dir.empty())) {
    result.errors.push_back(makeError(
        "only one data source may be set: sources.prometheus.url, sources.scrape.targets or "
        "sources.snapshot_dir",
        std::string(field)));
  }
}

// Object files stand in for the API server, and a snapshot replays the LISTs it recorded: two
// answers to one LIST would leave the user guessing which one the analysis read.
void checkObjectFiles(const Sources& sources, ConfigErrors& result) {
  const KubernetesSource& kube = sources.kubernetes;
  const std::string field = "sources.kubernetes.object_files";
  for (const std::string& file : kube.object_files) {
    if (file.empty()) {
      result.errors.push_back(makeError("an empty file name", field));
    }
  }
  if (kube.object_files.empty()) {
    return;
  }
  if (kube.enabled) {
    result.errors.push_back(makeError(
        "set either sources.kubernetes.enabled (the API server) or object files, not both", field));
  }
  if (!sources.snapshot_dir.empty()) {
    result.errors.push_back(makeError(
        "a snapshot replays the Kubernetes LISTs it recorded: no object files with it", field));
  }
}

}  // namespace

ConfigErrors validate(const Config& config) {
  Config copy = config;  // the field table hands out mutable references
  ConfigErrors result;
  for (const Field& field : configFields(copy)) {
    if (Problem problem = check(field.rule, field.ref)) {
      result.errors.push_back(makeError(std::move(*problem), std::string(field.path)));
    }
  }
  checkScrape(config.sources, result);
  checkObjectFiles(config.sources, result);
  if (config.sources.airflow.enabled && config.sources.airflow.url.empty()) {
    result.errors.push_back(
        makeError("must be set when sources.airflow.enabled is true", "sources.airflow.url"));
  }
  return result;
}

}  // namespace dagadvisor::config
