#include "config/config_schema.h"

#include <string_view>
#include <utility>
#include <vector>

#include "common/duration.h"
#include "config/config_fields.h"

namespace dagadvisor::config {
namespace {

// Patterns restate in regex form what validate() checks in code; editors can only use regexes.
constexpr std::string_view kDurationPattern = "^([0-9]+(ms|s|m|h|d|w|y))+$";
constexpr std::string_view kMetricNamePattern = "^[a-zA-Z_:][a-zA-Z0-9_:]*$";
constexpr std::string_view kHeaderNamePattern = "^[-!#$%&'*+.^_`|~0-9A-Za-z]+$";
constexpr std::string_view kUrlPattern = "^(https?://[^/?#@\\s]+(/[^?#@\\s]*)?)?$";
constexpr std::string_view kHostPortPattern = "^[^\\s]+:[0-9]{1,5}$";

using Members = std::vector<std::pair<std::string, std::string>>;  // key → JSON text

std::string jsonString(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out += kHex[(c >> 4) & 0xf];
      out += kHex[c & 0xf];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string jsonObject(const Members& members, int depth) {
  if (members.empty()) {
    return "{}";
  }
  const std::string inner(static_cast<std::size_t>(depth + 1) * 2, ' ');
  std::string out = "{";
  for (std::size_t i = 0; i < members.size(); ++i) {
    out +=
        (i == 0 ? "\n" : ",\n") + inner + jsonString(members[i].first) + ": " + members[i].second;
  }
  return out + "\n" + std::string(static_cast<std::size_t>(depth) * 2, ' ') + "}";
}

// On one line, for small values nested in a field's schema.
std::string jsonInline(const Members& members) {
  std::string out = "{";
  for (std::size_t i = 0; i < members.size(); ++i) {
    out += (i == 0 ? "" : ", ") + jsonString(members[i].first) + ": " + members[i].second;
  }
  return out + "}";
}

std::string jsonArray(const StringList& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : ", ") + jsonString(items[i]);
  }
  return out + "]";
}

std::string jsonValue(const FieldRef& ref) {
  struct Writer {
    std::string operator()(const std::string* v) const { return jsonString(*v); }
    std::string operator()(const int* v) const { return std::to_string(*v); }
    std::string operator()(const double* v) const { return formatNumber(*v); }
    std::string operator()(const bool* v) const { return *v ? "true" : "false"; }
    std::string operator()(const Seconds* v) const {
      return jsonString(formatDuration(std::chrono::round<Duration>(*v)));
    }
    std::string operator()(const StringList* v) const { return jsonArray(*v); }
    std::string operator()(const StringMap* v) const {
      Members members;
      for (const auto& [key, value] : *v) {
        members.emplace_back(key, jsonString(value));
      }
      return jsonInline(members);
    }
  };
  return std::visit(Writer{}, ref);
}

Members typeOf(const FieldRef& ref, Rule rule) {
  struct Typer {
    bool metric;
    Members operator()(const std::string*) const { return {{"type", "\"string\""}}; }
    Members operator()(const int*) const { return {{"type", "\"integer\""}}; }
    Members operator()(const double*) const { return {{"type", "\"number\""}}; }
    Members operator()(const bool*) const { return {{"type", "\"boolean\""}}; }
    Members operator()(const Seconds*) const {
      return {{"type", "\"string\""}, {"pattern", jsonString(kDurationPattern)}};
    }
    Members operator()(const StringList*) const {
      Members items = {{"type", "\"string\""}};
      if (!metric) {
        return {{"type", "\"array\""}, {"items", jsonInline(items)}};
      }
      items.emplace_back("pattern", jsonString(kMetricNamePattern));
      return {{"type", "\"array\""}, {"items", jsonInline(items)}, {"minItems", "1"}};
    }
    Members operator()(const StringMap*) const {
      return {{"type", "\"object\""}, {"additionalProperties", "{\"type\": \"string\"}"}};
    }
  };
  return std::visit(Typer{rule == Rule::kMetricName}, ref);
}

std::string enumOf(const auto& words) {
  StringList list(std::begin(words), std::end(words));
  return jsonArray(list);
}

Members limitsOf(const FieldRef& ref, Rule rule) {
  switch (rule) {
    case Rule::kNonEmpty:
      return {{"minLength", "1"}};
    case Rule::kUrl:
      return {{"pattern", jsonString(kUrlPattern)}};
    case Rule::kHostPort:
      return {{"pattern", jsonString(kHostPortPattern)}};
    case Rule::kThreads:
      return {{"minimum", std::to_string(kMinThreads)}, {"maximum", std::to_string(kMaxThreads)}};
    case Rule::kNonNegative:
      return std::holds_alternative<int*>(ref) ? Members{{"minimum", "0"}} : Members{};
    case Rule::kAtLeastOne:
      return {{"minimum", "1"}};
    case Rule::kAtLeastTwo:
      return {{"minimum", "2"}};
    case Rule::kShare:
      return {{"minimum", "0"}, {"maximum", "1"}};
    case Rule::kLogLevel:
      return {{"enum", enumOf(kLogLevels)}};
    case Rule::kLogFormat:
      return {{"enum", enumOf(kLogFormats)}};
    case Rule::kAirflowApi:
      return {{"enum", enumOf(kAirflowApiVersions)}};
    case Rule::kMetricName:
      return std::holds_alternative<std::string*>(ref)
                 ? Members{{"pattern", jsonString(kMetricNamePattern)}}
                 : Members{};
    case Rule::kHeaders:
      return {{"propertyNames", "{\"pattern\": " + jsonString(kHeaderNamePattern) + "}"}};
    default:
      return {};
  }
}

std::string schemaOf(const FieldNode& node, int depth) {
  if (node.field != nullptr) {
    Members members = typeOf(node.field->ref, node.field->rule);
    const Members limits = limitsOf(node.field->ref, node.field->rule);
    members.insert(members.end(), limits.begin(), limits.end());
    members.emplace_back("default", jsonValue(node.field->ref));
    return jsonObject(members, depth);
  }
  Members properties;
  for (const FieldNode& child : node.children) {
    properties.emplace_back(std::string(child.name), schemaOf(child, depth + 2));
  }
  return jsonObject({{"type", "\"object\""},
                     {"additionalProperties", "false"},
                     {"properties", jsonObject(properties, depth + 1)}},
                    depth);
}

}  // namespace

std::string renderConfigSchema(Config defaults) {
  const std::vector<Field> fields = configFields(defaults);
  const std::string body = schemaOf(fieldTree(fields), 0);
  // The header members go first, so the object's opening brace is replaced.
  return "{\n  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n"
         "  \"title\": \"dagadvisor configuration\"," +
         body.substr(1) + "\n";
}

}  // namespace dagadvisor::config
