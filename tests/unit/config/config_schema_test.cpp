#include "config/config_schema.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "advice/kind_list.h"
#include "config/config_fields.h"

using dagadvisor::config::Config;
using dagadvisor::config::configFields;
using dagadvisor::config::renderConfigSchema;
using nlohmann::json;

namespace {

// Leaf settings under `node`, as dotted paths; sections are objects with "properties".
void collectLeaves(const json& node, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& [key, child] : node.at("properties").items()) {
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (child.contains("properties")) {
      CHECK(child.at("additionalProperties") == false);
      collectLeaves(child, path, out);
    } else {
      out.push_back(path);
    }
  }
}

}  // namespace

TEST_CASE("the schema is JSON that refuses unknown keys at every level", "[config][schema]") {
  const json schema = json::parse(renderConfigSchema(dagadvisor::advice::defaultConfig()));
  CHECK(schema.at("$schema") == "https://json-schema.org/draft/2020-12/schema");
  CHECK(schema.at("additionalProperties") == false);
  std::vector<std::string> leaves;
  collectLeaves(schema, "", leaves);
  // One leaf per setting: the count itself is checked against config.h in config_fields_test.
  Config config = dagadvisor::advice::defaultConfig();
  CHECK(leaves.size() == configFields(config).size());
  for (const char* path : {"sources.prometheus.url", "sources.prometheus.metrics.pod_info",
                           "detectors.gpu_node_hoarding.taint_key", "logging.format"}) {
    CHECK(std::find(leaves.begin(), leaves.end(), path) != leaves.end());
  }
}

TEST_CASE("each setting carries its type, limits and default", "[config][schema]") {
  const json props =
      json::parse(renderConfigSchema(dagadvisor::advice::defaultConfig())).at("properties");
  CHECK(props.at("server").at("properties").at("threads") ==
        json{{"type", "integer"}, {"minimum", 1}, {"maximum", 64}, {"default", 4}});
  const json& interval = props.at("analysis").at("properties").at("interval");
  CHECK(interval.at("type") == "string");
  CHECK(interval.at("default") == "1m");
  const json& hoarding = props.at("detectors").at("properties").at("gpu_node_hoarding");
  CHECK(hoarding.at("properties").at("min_non_gpu_share") ==
        json{{"type", "number"}, {"minimum", 0}, {"maximum", 1}, {"default", 0.5}});
  CHECK(hoarding.at("properties").at("enabled") == json{{"type", "boolean"}, {"default", true}});
  CHECK(props.at("logging").at("properties").at("level").at("enum") ==
        json{"debug", "info", "warn", "error"});
  const json& prom = props.at("sources").at("properties").at("prometheus").at("properties");
  CHECK(prom.at("headers").at("type") == "object");
  CHECK(prom.at("headers").at("default") == json::object());
  const json& latency = prom.at("metrics").at("properties").at("scheduling_latency");
  CHECK(latency.at("type") == "array");
  CHECK(latency.at("minItems") == 1);
  CHECK(latency.at("default").size() == 3);
  CHECK(latency.at("default")[0] == "scheduler_pod_scheduling_sli_duration_seconds");
}
