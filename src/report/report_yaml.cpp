#include "report/report_yaml.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>

#include "report/report_json.h"

namespace dagadvisor::report {
namespace {

// yaml-cpp leaves "2026-11-28" and "0042" plain, which YAML 1.1 readers (PyYAML, Go) turn into
// dates and numbers. Quoting every string that starts like a number keeps them strings.
bool looksLikeNumberOrDate(const std::string& text) {
  const char first = text.empty() ? 'x' : text.front();
  return std::isdigit(static_cast<unsigned char>(first)) || first == '-' || first == '+' ||
         first == '.';
}

void emit(YAML::Emitter& out, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object:
      out << (value.empty() ? YAML::Flow : YAML::Block) << YAML::BeginMap;
      for (const auto& [key, item] : value.items()) {
        out << YAML::Key << key << YAML::Value;
        emit(out, item);
      }
      out << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      out << (value.empty() ? YAML::Flow : YAML::Block) << YAML::BeginSeq;
      for (const auto& item : value) {
        emit(out, item);
      }
      out << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string: {
      const auto& text = value.get_ref<const std::string&>();
      if (text.find('\n') != std::string::npos) {
        out << YAML::Literal;
      } else if (looksLikeNumberOrDate(text)) {
        out << YAML::DoubleQuoted;
      }
      out << text;
      break;
    }
    case nlohmann::json::value_t::boolean:
      out << value.get<bool>();
      break;
    case nlohmann::json::value_t::number_integer:
      out << value.get<std::int64_t>();
      break;
    case nlohmann::json::value_t::number_unsigned:
      out << value.get<std::uint64_t>();
      break;
    case nlohmann::json::value_t::number_float:
      // nlohmann prints the shortest spelling that reads back exactly (0.42, not yaml-cpp's
      // 0.41999999999999998); non-finite values are null in JSON and stay null here.
      if (std::isfinite(value.get<double>())) {
        out << value.dump();
      } else {
        out << YAML::Null;
      }
      break;
    default:  // null, binary and discarded have no better spelling than null
      out << YAML::Null;
      break;
  }
}

}  // namespace

std::string jsonToYaml(const nlohmann::json& value) {
  YAML::Emitter out;
  emit(out, value);
  std::string text = out.c_str();
  text += '\n';
  return text;
}

std::string renderYaml(const report::AnalysisReport& report, UnixSeconds now, bool stale) {
  return jsonToYaml(reportJson(report, now, stale));
}

}  // namespace dagadvisor::report
