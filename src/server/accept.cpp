#include "server/accept.h"

#include <cctype>
#include <cstdlib>
#include <string>

namespace dagadvisor::server {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())) != 0) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) {
    text.remove_suffix(1);
  }
  return text;
}

bool sameNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// The q of one element's parameters ("q=0.5;level=1"); 1 without one, 0 when unreadable.
double quality(std::string_view parameters) {
  while (!parameters.empty()) {
    const std::size_t end = parameters.find(';');
    const std::string_view parameter = trimmed(parameters.substr(0, end));
    if (parameter.size() > 2 && sameNoCase(parameter.substr(0, 2), "q=")) {
      const std::string value(parameter.substr(2));
      char* rest = nullptr;
      const double q = std::strtod(value.c_str(), &rest);
      return rest != nullptr && *rest == '\0' && q >= 0 && q <= 1 ? q : 0;
    }
    parameters = end == std::string_view::npos ? std::string_view() : parameters.substr(end + 1);
  }
  return 1;
}

}  // namespace

double acceptQuality(std::string_view header, std::string_view token) {
  while (!header.empty()) {
    const std::size_t end = header.find(',');
    const std::string_view element = header.substr(0, end);
    const std::size_t semicolon = element.find(';');
    if (sameNoCase(trimmed(element.substr(0, semicolon)), token)) {
      return semicolon == std::string_view::npos ? 1 : quality(element.substr(semicolon + 1));
    }
    header = end == std::string_view::npos ? std::string_view() : header.substr(end + 1);
  }
  return 0;
}

}  // namespace dagadvisor::server
