#include "config/detector_settings.h"

#include <catch2/catch.hpp>

using dagadvisor::config::DetectorSettings;
using dagadvisor::config::Field;

namespace {

// A settings type as a detector declares one, without any detector.
struct ProbeSettings {
  static constexpr std::string_view kSection = "probe";
  bool enabled = true;
  int limit = 3;

  bool operator==(const ProbeSettings&) const = default;
  std::vector<Field> fields() {
    return {{"enabled", &enabled, {}, "On or off."}, {"limit", &limit, {}, "How many."}};
  }
};

struct OtherSettings {
  static constexpr std::string_view kSection = "other";
  bool enabled = false;

  bool operator==(const OtherSettings&) const = default;
  std::vector<Field> fields() { return {{"enabled", &enabled, {}, "On or off."}}; }
};

}  // namespace

TEST_CASE("an absent section reads as its defaults and compares equal to them",
          "[config][detector-settings]") {
  DetectorSettings empty;
  const DetectorSettings& read_only = empty;
  CHECK(read_only.get<ProbeSettings>().limit == 3);
  CHECK(empty.fields().empty());  // reading did not add it

  DetectorSettings added;
  added.get<ProbeSettings>();
  CHECK(added == empty);
  added.get<ProbeSettings>().limit = 4;
  CHECK_FALSE(added == empty);
  CHECK_FALSE(empty == added);
}

TEST_CASE("sections keep their order, prefix their rows and point into their own copy",
          "[config][detector-settings]") {
  DetectorSettings settings;
  settings.get<OtherSettings>();
  settings.get<ProbeSettings>().limit = 7;
  DetectorSettings copy = settings;
  copy.get<ProbeSettings>().limit = 8;
  CHECK(settings.get<ProbeSettings>().limit == 7);  // a deep copy

  const std::vector<Field> fields = copy.fields();
  REQUIRE(fields.size() == 3);
  CHECK(fields[0].path == "detectors.other.enabled");
  CHECK(fields[1].path == "detectors.probe.enabled");
  CHECK(fields[2].path == "detectors.probe.limit");
  CHECK(fields[2].doc == "How many.");
  *std::get<int*>(fields[2].ref) = 9;
  CHECK(copy.get<ProbeSettings>().limit == 9);
  CHECK(settings.get<ProbeSettings>().limit == 7);
}
