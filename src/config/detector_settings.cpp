#include "config/detector_settings.h"

namespace dagadvisor::config {

DetectorSettings::DetectorSettings(const DetectorSettings& other) {
  *this = other;
}

DetectorSettings& DetectorSettings::operator=(const DetectorSettings& other) {
  if (this != &other) {
    std::vector<std::unique_ptr<Section>> copies;
    for (const auto& section : other.sections_) {
      copies.push_back(section->clone());
    }
    sections_ = std::move(copies);
  }
  return *this;
}

std::vector<Field> DetectorSettings::fields() {
  std::vector<Field> out;
  for (const auto& section : sections_) {
    const std::string prefix = "detectors." + std::string(section->name()) + ".";
    for (Field& field : section->fields()) {
      field.path = prefix + field.path;
      out.push_back(std::move(field));
    }
  }
  return out;
}

const DetectorSettings::Section* DetectorSettings::byName(std::string_view name) const {
  for (const auto& section : sections_) {
    if (section->name() == name) {
      return section.get();
    }
  }
  return nullptr;
}

bool DetectorSettings::operator==(const DetectorSettings& other) const {
  for (const auto& section : sections_) {
    if (!section->equals(other.byName(section->name()))) {
      return false;
    }
  }
  for (const auto& section : other.sections_) {
    if (byName(section->name()) == nullptr && !section->equals(nullptr)) {
      return false;
    }
  }
  return true;
}

}  // namespace dagadvisor::config
