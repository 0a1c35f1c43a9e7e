#include "advice/kind_list.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "analysis/detectors/gpu_node_hoarding.h"
#include "config/config_fields.h"
#include "support/test_support.h"

using namespace dagadvisor;

namespace {

std::string configSection(std::string_view kind) {
  std::string section(kind);
  std::replace(section.begin(), section.end(), '-', '_');
  return "detectors." + section + ".";
}

bool hasConfigField(const std::string& prefix) {
  config::Config config = advice::defaultConfig();
  const auto fields = config::configFields(config);
  return std::any_of(fields.begin(), fields.end(),
                     [&](const config::Field& f) { return f.path.starts_with(prefix); });
}

}  // namespace

TEST_CASE("every kind has a unique name, a detector, an adviser, docs and settings", "[kinds]") {
  const std::string docs =
      testing::readFile(std::string(DAGADVISOR_SOURCE_DIR) + "/docs/findings.md");
  const std::string example =
      testing::readFile(std::string(DAGADVISOR_SOURCE_DIR) + "/config/dagadvisor.example.yaml");
  std::set<std::string_view> kinds;
  REQUIRE_FALSE(advice::kindList().empty());
  for (const advice::KindSpec& spec : advice::kindList()) {
    INFO(spec.kind);
    CHECK(kinds.insert(spec.kind).second);
    REQUIRE(spec.advise != nullptr);
    const analysis::DetectorPtr detector = spec.make_detector();
    CHECK(detector->info().kind == spec.kind);
    CHECK_FALSE(detector->info().summary.empty());
    CHECK(docs.find("\n## " + std::string(spec.kind) + "\n") != std::string::npos);
    const std::string section = configSection(spec.kind);
    CHECK(hasConfigField(section + "enabled"));
    const std::string yaml_key = section.substr(std::string("detectors.").size());
    CHECK(example.find("\n  " + yaml_key.substr(0, yaml_key.size() - 1) + ":\n") !=
          std::string::npos);
    CHECK(spec.advise({}, config::Config{}, model::ClusterSnapshot(0, {}, {}))
              .empty());  // no finding, no advice
  }
}

TEST_CASE("disabling a detector in config removes it from the enabled list", "[kinds]") {
  config::DetectorSettings settings;
  CHECK(advice::enabledDetectors(settings).size() == advice::kindList().size());
  settings.get<analysis::GpuNodeHoardingSettings>().enabled = false;
  const auto enabled = advice::enabledDetectors(settings);
  CHECK(enabled.size() == advice::kindList().size() - 1);
  for (const auto& detector : enabled) {
    CHECK(detector->info().kind != "gpu-node-hoarding");
  }
}

TEST_CASE("no adviser or exporter code reads evidence by key", "[kinds]") {
  // Advisers and the exporter read the kinds' evidence structs; a JSON key read back would
  // silently become a default when a detector renames it (the seam typed evidence closed).
  const std::vector<std::string> kForbidden = {".value(\"", "evidence[", "evidence.find(",
                                               "evidence.at(", "evidence.contains("};
  std::size_t files = 0;
  for (const char* folder : {"/src/advice", "/src/exporter"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(
             std::string(DAGADVISOR_SOURCE_DIR) + folder)) {
      if (!entry.is_regular_file()) {
        continue;
      }
      ++files;
      const std::string text = testing::readFile(entry.path().string());
      for (const std::string& pattern : kForbidden) {
        INFO(entry.path().string() << " contains " << pattern);
        CHECK(text.find(pattern) == std::string::npos);
      }
    }
  }
  CHECK(files > 20);  // the folders were found
}
