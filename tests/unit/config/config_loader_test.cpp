#include "config/config_loader.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "advice/kind_list.h"
#include "analysis/detectors/gpu_node_hoarding.h"
#include "config/config_fields.h"
#include "support/test_support.h"

using dagadvisor::config::Config;
using dagadvisor::config::ConfigErrors;
using dagadvisor::config::loadConfigFile;
using dagadvisor::config::loadConfigText;
using dagadvisor::config::renderConfigYaml;
using dagadvisor::config::Seconds;
using dagadvisor::testing::fixturePath;
using dagadvisor::testing::readFile;
namespace advice = dagadvisor::advice;
namespace analysis = dagadvisor::analysis;

namespace {

using Loaded = std::variant<Config, ConfigErrors>;

Config configOf(const Loaded& loaded) {
  if (const auto* errors = std::get_if<ConfigErrors>(&loaded)) {
    FAIL("unexpected errors:\n" << errors->describe());
  }
  return std::get<Config>(loaded);
}

// Each error as "path: message", in reporting order.
std::vector<std::string> errorLines(const Loaded& loaded) {
  REQUIRE(std::holds_alternative<ConfigErrors>(loaded));
  std::vector<std::string> lines;
  for (const auto& error : std::get<ConfigErrors>(loaded).errors) {
    lines.push_back(error.describe());
  }
  return lines;
}

std::vector<std::string> fixtureErrors(const std::string& name) {
  const std::string path = fixturePath("config/" + name);
  std::vector<std::string> lines;
  for (const std::string& line : errorLines(loadConfigFile(path, advice::defaultConfig()))) {
    lines.push_back(line.starts_with(path) ? "<file>" + line.substr(path.size()) : line);
  }
  return lines;
}

// Every setting away from its default, with strings that YAML would misread if unquoted.
Config unusualConfig() {
  Config c = advice::defaultConfig();
  auto& prom = c.sources.prometheus;
  prom.url = "http://[::1]:9090/prom";
  prom.timeout = Seconds(0.25);
  prom.bearer_token_file = "# not a comment";
  prom.headers = {{"X-Scope-OrgID", "true"}, {"X-Empty", ""}};
  prom.selector = "cluster=\"prod\",env=~'a: b'";
  prom.lookback = Seconds(0);
  prom.metrics.node_labels = "a_node_labels";
  prom.metrics.node_allocatable = "a_alloc";
  prom.metrics.node_taint = "a_taint";
  prom.metrics.pod_info = "a:pod_info";
  prom.metrics.pod_labels = "a_pod_labels";
  prom.metrics.pod_annotations = "a_pod_annotations";
  prom.metrics.pod_owner = "a_owner";
  prom.metrics.pod_requests = "a_requests";
  prom.metrics.pod_phase = "a_phase";
  prom.metrics.pod_created = "a_created";
  prom.metrics.pod_scheduled_time = "a_scheduled";
  prom.metrics.pod_start_time = "a_start";
  prom.metrics.pod_completion_time = "a_completion";
  prom.metrics.scheduling_latency = {"only_one"};
  c.sources.scrape.tls.ca_file = "[ca].pem";
  c.sources.airflow.basic_auth.password_file = "{pw}";
  c.sources.snapshot_dir = " spaced dir ";
  c.server.listen = "[::1]:0";
  c.server.threads = 64;
  c.server.stale_after = Seconds(90061.5);  // 1d1h1m1s500ms
  c.analysis.cluster = "null";
  c.analysis.interval = Seconds(3600);
  c.workflow_labels.dag_label = "123";
  c.workflow_labels.run_label = "- run";
  c.workflow_labels.task_label = "tâche";
  c.workflow_labels.dependencies_annotation = "deps\nwith newline";
  auto& hoarding = c.detectors.get<analysis::GpuNodeHoardingSettings>();
  hoarding.enabled = false;
  hoarding.min_non_gpu_share = 0.1;
  hoarding.min_free_gpus = 0;
  hoarding.require_pending_gpu_pods = false;
  hoarding.taint_key = "example.com/accelerator";
  c.cluster_labels.workload = "~";
  c.cluster_labels.zone = "example.com/zone: a";
  c.analysis.transfer.cross_zone = Seconds(0.5);
  c.logging.level = "error";
  c.logging.format = "json";
  return c;
}

}  // namespace

TEST_CASE("an empty or comment-only text gives the defaults", "[config][loader]") {
  for (const char* text : {"", "\n", "# nothing set\n# at all\n", "---\n", "server:\n"}) {
    INFO(text);
    CHECK(configOf(loadConfigText(text, advice::defaultConfig())) == Config{});
  }
}

TEST_CASE("the example file loads without errors and holds exactly the defaults",
          "[config][loader]") {
  const std::string path = std::string(DAGADVISOR_SOURCE_DIR) + "/config/dagadvisor.example.yaml";
  const Config example = configOf(loadConfigFile(path, advice::defaultConfig()));
  CHECK(example == Config{});
  CHECK(renderConfigYaml(example) == renderConfigYaml(advice::defaultConfig()));
}

TEST_CASE("the rendered defaults are the example without its comments", "[config][render]") {
  const std::string rendered = renderConfigYaml(advice::defaultConfig());
  for (const char* line :
       {"    url: \"\"\n", "    timeout: 30s\n", "    lookback: 6h\n", "    headers: {}\n",
        "      pod_info: kube_pod_info\n", "  listen: 127.0.0.1:9731\n", "  threads: 4\n",
        "  stale_after: 5m\n", "  interval: 1m\n", "    min_non_gpu_share: 0.5\n",
        "    enabled: true\n", "  level: info\n"}) {
    INFO(line);
    CHECK(rendered.find(line) != std::string::npos);
  }
}

TEST_CASE("a rendered configuration loads back to an equal configuration", "[config][render]") {
  const Config original = unusualConfig();
  REQUIRE_FALSE(original == Config{});
  const std::string rendered = renderConfigYaml(original);
  INFO(rendered);
  const Config loaded = configOf(loadConfigText(rendered, advice::defaultConfig()));
  CHECK(loaded == original);
  CHECK(renderConfigYaml(loaded) == rendered);
}

TEST_CASE("a file overrides only the settings it names", "[config][loader]") {
  const Config c =
      configOf(loadConfigFile(fixturePath("config/valid-custom.yaml"), advice::defaultConfig()));
  const auto& prom = c.sources.prometheus;
  CHECK(prom.url == "https://mimir.monitoring.svc:8080/prometheus");
  CHECK(prom.timeout == Seconds(90));
  CHECK(prom.headers == std::map<std::string, std::string>{{"X-Scope-OrgID", "team-a"}});
  CHECK(prom.selector == "cluster=\"prod\",env=~\"eu-.*\"");
  CHECK(prom.lookback == Seconds(86400));
  CHECK(prom.metrics.pod_info == "ksm_kube_pod_info");
  CHECK(prom.metrics.scheduling_latency ==
        std::vector<std::string>{"scheduler_pod_scheduling_duration_seconds"});
  CHECK(c.server.threads == 8);
  CHECK(c.analysis.interval == Seconds(30));
  CHECK(c.workflow_labels.dag_label == "pipeline");
  CHECK_FALSE(c.detectors.get<analysis::GpuNodeHoardingSettings>().enabled);
  CHECK(c.detectors.get<analysis::GpuNodeHoardingSettings>().min_non_gpu_share == 0.25);
  CHECK(c.logging.format == "json");
  // Untouched settings keep their defaults.
  const Config defaults;
  CHECK(prom.metrics.pod_labels == defaults.sources.prometheus.metrics.pod_labels);
  CHECK(c.server.stale_after == defaults.server.stale_after);
  CHECK(c.workflow_labels.run_label == defaults.workflow_labels.run_label);
  CHECK(c.detectors.get<analysis::GpuNodeHoardingSettings>().min_free_gpus == 1);
}

TEST_CASE("several mistakes are all reported at once, each with its field path",
          "[config][errors]") {
  CHECK(fixtureErrors("invalid-several.yaml") ==
        std::vector<std::string>{
            "analysis.interval: not a duration (\"5 minutes\"); write a number and a unit, "
            "e.g. \"30s\", \"5m\" or \"1h30m\"",
            "server.stale_afte: unknown key; did you mean 'stale_after'?",
            "logging.level: expected a string, got a list",
            "sources.prometheus.url: not a URL (\"prometheus:9090\"): expected http:// or "
            "https:// followed by a host",
            "server.listen: expected host:port (got \"localhost\"), with a port from 0 to 65535",
            "server.threads: must be between 1 and 64 (got 100)",
            "detectors.gpu_node_hoarding.min_non_gpu_share: must be between 0 and 1 (got 1.5)",
        });
}

TEST_CASE("unknown keys suggest the closest known key", "[config][errors]") {
  CHECK(fixtureErrors("invalid-unknown-keys.yaml") ==
        std::vector<std::string>{
            "sever: unknown key; did you mean 'server'?",
            "interval: unknown key; did you mean 'analysis.interval'?",
            "sources.prometheus.colour: unknown key",
            "sources.prometheus.metrics.pod_infos: unknown key; did you mean 'pod_info'?",
        });
}

TEST_CASE("values of the wrong type name what was expected and what was found",
          "[config][errors]") {
  CHECK(fixtureErrors("invalid-types.yaml") ==
        std::vector<std::string>{
            "server.threads: expected an integer, got \"four\"",
            "server.stale_after: expected a duration, got a map",
            "analysis: expected a map, got \"production\"",
            "detectors.gpu_node_hoarding.enabled: expected a boolean, got \"maybe\"",
            "detectors.gpu_node_hoarding.min_non_gpu_share: expected a number, got \"half\"",
            "detectors.gpu_node_hoarding.min_free_gpus: expected an integer, got nothing",
            "sources.prometheus.headers: expected a map of strings, got a list",
            "sources.prometheus.metrics.pod_info: expected a string, got a map",
            "sources.prometheus.metrics.scheduling_latency: expected a list of strings, got "
            "\"scheduler_pod_scheduling_duration_seconds\"",
        });
}

TEST_CASE("list items, map values and repeated keys are checked one by one", "[config][errors]") {
  CHECK(fixtureErrors("invalid-elements.yaml") ==
        std::vector<std::string>{
            "sources.prometheus.headers.X-Scope-OrgID: expected a string, got a list",
            "sources.prometheus.metrics.scheduling_latency[1]: expected a string, got a list",
            "server.threads: duplicate key",
        });
}

TEST_CASE("a YAML syntax error names the file, line and column", "[config][errors]") {
  CHECK(fixtureErrors("invalid-syntax.yaml") ==
        std::vector<std::string>{"<file>:5:11: illegal map value"});
  CHECK(errorLines(loadConfigText("a: [1, 2\n", advice::defaultConfig(), "inline")) ==
        std::vector<std::string>{"inline:2:1: end of sequence flow not found"});
}

TEST_CASE("a document that is not a map of settings is refused", "[config][errors]") {
  CHECK(
      fixtureErrors("invalid-top-level.yaml") ==
      std::vector<std::string>{"<file>: expected a map of settings at the top level, got a list"});
  CHECK(errorLines(loadConfigText("just words", advice::defaultConfig())) ==
        std::vector<std::string>{
            "<text>: expected a map of settings at the top level, got \"just words\""});
}

TEST_CASE("a missing file is one error naming its path", "[config][errors]") {
  const std::string path = fixturePath("config/does-not-exist.yaml");
  CHECK(errorLines(loadConfigFile(path, advice::defaultConfig())) ==
        std::vector<std::string>{
            path + ": cannot read the configuration file (No such file or directory)"});
  const std::string dir = fixturePath("config");
  CHECK(errorLines(loadConfigFile(dir, advice::defaultConfig())) ==
        std::vector<std::string>{dir + ": cannot read the configuration file (it is a directory)"});
}

TEST_CASE("describe() prints one error per line", "[config][errors]") {
  const Loaded loaded =
      loadConfigText("server:\n  threads: 0\nlogging:\n  format: text\n", advice::defaultConfig());
  REQUIRE(std::holds_alternative<ConfigErrors>(loaded));
  CHECK(std::get<ConfigErrors>(loaded).describe() ==
        "server.threads: must be between 1 and 64 (got 0)\n"
        "logging.format: must be one of logfmt, json (got \"text\")\n");
}

TEST_CASE("damaged files never throw and always explain themselves", "[config][robustness]") {
  const std::string example =
      readFile(std::string(DAGADVISOR_SOURCE_DIR) + "/config/dagadvisor.example.yaml");
  std::vector<std::string> inputs = {std::string(5000, '['),
                                     "a: " + std::string(5000, '{'),
                                     std::string("server:\0\n  threads: 4\n", 22),
                                     "\xff\xfe: x",
                                     "*undefined_alias",
                                     "&a [*a]"};
  for (std::size_t i = 0; i < example.size(); i += 37) {
    inputs.push_back(example.substr(0, i));  // truncated anywhere
    for (char damage : {':', '[', '"', '\t', '-'}) {
      std::string damaged = example;
      damaged[i] = damage;
      inputs.push_back(damaged);
    }
  }
  for (const std::string& input : inputs) {
    Loaded loaded;
    REQUIRE_NOTHROW(loaded = loadConfigText(input, advice::defaultConfig()));
    if (const auto* errors = std::get_if<ConfigErrors>(&loaded)) {
      REQUIRE_FALSE(errors->errors.empty());
      for (const auto& error : errors->errors) {
        REQUIRE_FALSE(error.message.empty());
      }
    }
  }
}

TEST_CASE("a retired setting says where it went instead of \"unknown key\"", "[config][errors]") {
  CHECK(
      errorLines(loadConfigText("detectors:\n  dag_stacking:\n    pool_label: pool\n",
                                advice::defaultConfig())) ==
      std::vector<std::string>{
          "detectors.dag_stacking.pool_label: no longer a setting: moved to cluster_labels.pool"});
  CHECK(
      errorLines(loadConfigText("detectors:\n  split_dependencies:\n    cross_zone_transfer: 10s\n",
                                advice::defaultConfig())) ==
      std::vector<std::string>{"detectors.split_dependencies.cross_zone_transfer: no longer a "
                               "setting: moved to analysis.transfer.cross_zone"});
  CHECK(errorLines(loadConfigText(
            "sources:\n  prometheus:\n    metrics:\n      node_info: kube_node_info\n",
            advice::defaultConfig())) ==
        std::vector<std::string>{"sources.prometheus.metrics.node_info: no longer a setting (it "
                                 "was never read): remove it"});
  // Every retired path is really gone from the settings, and its replacement exists.
  Config config = advice::defaultConfig();
  const auto fields = dagadvisor::config::configFields(config);
  for (const auto& retired : dagadvisor::config::kRetiredSettings) {
    INFO(retired.path);
    const auto named = [&](std::string_view path) {
      return std::any_of(fields.begin(), fields.end(),
                         [&](const auto& field) { return field.path == path; });
    };
    CHECK_FALSE(named(retired.path));
    CHECK((retired.replaced_by.empty() || named(retired.replaced_by)));
  }
}
