#include "config/config_fields.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <set>

#include "advice/kind_list.h"

using dagadvisor::config::Config;
using dagadvisor::config::configFields;
using dagadvisor::config::Field;
using dagadvisor::config::FieldNode;
using dagadvisor::config::fieldTree;
using dagadvisor::config::formatNumber;
using dagadvisor::config::kindName;

namespace {

// Checks one level of the tree and returns how many settings lie below it.
std::size_t checkNode(const FieldNode& node) {
  if (node.field != nullptr) {
    CHECK(node.children.empty());
    CHECK(node.path == node.field->path);
    return 1;
  }
  REQUIRE_FALSE(node.children.empty());
  std::set<std::string_view> names;
  std::size_t settings = 0;
  for (const FieldNode& child : node.children) {
    INFO(child.path);
    // A repeated name means the table split a section in two.
    CHECK(names.insert(child.name).second);
    CHECK(child.path == (node.path.empty()
                             ? std::string(child.name)
                             : std::string(node.path) + "." + std::string(child.name)));
    settings += checkNode(child);
  }
  return settings;
}

}  // namespace

TEST_CASE("every setting is listed once, at its own address", "[config][fields]") {
  Config config = dagadvisor::advice::defaultConfig();
  const std::vector<Field> fields = configFields(config);
  std::set<std::string_view> paths;
  std::set<const void*> addresses;
  for (const Field& field : fields) {
    INFO(field.path);
    CHECK(paths.insert(field.path).second);
    CHECK(addresses.insert(std::visit([](auto* p) -> const void* { return p; }, field.ref)).second);
    const auto* base = reinterpret_cast<const char*>(&config);
    const auto* at =
        static_cast<const char*>(std::visit([](auto* p) -> const void* { return p; }, field.ref));
    if (!field.path.starts_with("detectors.")) {  // those live in their kinds' section objects
      CHECK((at >= base && at < base + sizeof(Config)));
    }
  }
  // A tripwire for a member added to config.h without its row: count config.h's settings
  // again when this fails (each detector's rows sit beside its members, in its own file).
  const auto detector_rows = std::count_if(fields.begin(), fields.end(), [](const Field& f) {
    return f.path.starts_with("detectors.");
  });
  CHECK(fields.size() - static_cast<std::size_t>(detector_rows) == 120);
}

TEST_CASE("the field tree groups each section in one place", "[config][fields]") {
  Config config = dagadvisor::advice::defaultConfig();
  const std::vector<Field> fields = configFields(config);
  const FieldNode root = fieldTree(fields);
  CHECK(root.path.empty());
  CHECK(checkNode(root) == fields.size());
  std::vector<std::string_view> top;
  for (const FieldNode& child : root.children) {
    top.push_back(child.name);
  }
  CHECK(top == std::vector<std::string_view>{"sources", "server", "analysis", "cluster_labels",
                                             "workflow_labels", "detectors", "logging"});
  REQUIRE(root.child("server") != nullptr);
  CHECK(root.child("server")->child("threads")->field->path == "server.threads");
  CHECK(root.child("nope") == nullptr);
}

TEST_CASE("kinds and numbers are spelled for people and for YAML", "[config][fields]") {
  Config config = dagadvisor::advice::defaultConfig();
  CHECK(kindName(&config.server.threads) == "an integer");
  CHECK(kindName(&config.analysis.interval) == "a duration");
  CHECK(kindName(&config.sources.prometheus.headers) == "a map of strings");
  CHECK(formatNumber(0.5) == "0.5");
  CHECK(formatNumber(0.1) == "0.1");
  CHECK(formatNumber(1e-7) == "1e-07");
  CHECK(formatNumber(std::numeric_limits<double>::infinity()) == ".inf");
}
