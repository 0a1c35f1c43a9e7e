#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "analysis/detectors/dag_stacking.h"
#include "analysis/detectors/gpu_node_hoarding.h"
#include "analysis/detectors/scheduling_latency.h"
#include "analysis/detectors/shard_candidate.h"
#include "config/config_loader.h"

using dagadvisor::config::Config;
using dagadvisor::config::Seconds;
using dagadvisor::config::validate;
namespace analysis = dagadvisor::analysis;

namespace {

using Mutator = std::function<void(Config&)>;

// The errors validate() reports for the defaults changed by `mutate`, as "path: message".
std::vector<std::string> errorsAfter(const Mutator& mutate) {
  Config config;
  mutate(config);
  std::vector<std::string> lines;
  for (const auto& error : validate(config).errors) {
    lines.push_back(error.describe());
  }
  return lines;
}

void checkAccepted(const std::vector<std::string>& values,
                   const std::function<void(Config&, const std::string&)>& set) {
  for (const std::string& value : values) {
    INFO(value);
    CHECK(errorsAfter([&](Config& c) { set(c, value); }).empty());
  }
}

void checkRefused(const std::vector<std::string>& values,
                  const std::function<void(Config&, const std::string&)>& set,
                  const std::string& expected_prefix) {
  for (const std::string& value : values) {
    INFO(value);
    const auto errors = errorsAfter([&](Config& c) { set(c, value); });
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::StartsWith(expected_prefix));
  }
}

}  // namespace

TEST_CASE("the defaults are valid", "[config][validate]") {
  CHECK(validate(Config{}).errors.empty());
}

TEST_CASE("the Prometheus URL must be http(s) with a host", "[config][validate]") {
  auto set = [](Config& c, const std::string& v) {
    c.sources.prometheus.url = v;
  };
  checkAccepted({"", "http://prometheus:9090", "https://mimir.monitoring.svc:8080/prometheus",
                 "http://127.0.0.1", "http://[::1]:9090/"},
                set);
  checkRefused({"prometheus:9090", "ftp://host", "http://", "http:///path", "http://host:0",
                "http://host:99999", "http://host/a b", "http://host/q?x=1"},
               set, "sources.prometheus.url: not a URL (");
  CHECK(errorsAfter([](Config& c) { c.sources.prometheus.url = "localhost:9090"; }) ==
        std::vector<std::string>{"sources.prometheus.url: not a URL (\"localhost:9090\"): "
                                 "expected http:// or https:// followed by a host"});
}

TEST_CASE("a URL with credentials is refused without repeating them", "[config][validate]") {
  CHECK(errorsAfter([](Config& c) {
          c.sources.prometheus.url = "http://bob:s3cr3t-pw@host:9090";
        }) == std::vector<std::string>{"sources.prometheus.url: credentials in a URL are refused "
                                       "(\"http://<redacted>@host:9090\"): use "
                                       "basic_auth.password_file or bearer_token_file"});
  // A '/' in the password ends the authority for a URL parser; the message still hides it.
  const auto slashed =
      errorsAfter([](Config& c) { c.sources.prometheus.url = "http://bob:pw/x+y=z@host:9090"; });
  REQUIRE(slashed.size() == 1);
  CHECK_THAT(slashed[0], Catch::Contains("\"http://<redacted>@host:9090\""));
  const auto errors = errorsAfter(
      [](Config& c) { c.sources.scrape.targets = {"http://bob:s3cr3t-pw@host:1/x y"}; });
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], !Catch::Contains("s3cr3t-pw"));
}

TEST_CASE("the listen address must be host:port with a port from 0 to 65535",
          "[config][validate]") {
  auto set = [](Config& c, const std::string& v) {
    c.server.listen = v;
  };
  checkAccepted({"0.0.0.0:0", "localhost:65535", "[::1]:9731", "my-host.local:80"}, set);
  checkRefused({"9731", ":9731", "host:", "host:65536", "host:-1", "host:http", "a b:80", ""}, set,
               "server.listen: expected host:port (got ");
}

TEST_CASE("numbers must lie in their ranges", "[config][validate]") {
  CHECK(errorsAfter([](Config& c) { c.server.threads = 1; }).empty());
  CHECK(errorsAfter([](Config& c) { c.server.threads = 64; }).empty());
  CHECK(errorsAfter([](Config& c) { c.server.threads = 0; }) ==
        std::vector<std::string>{"server.threads: must be between 1 and 64 (got 0)"});
  CHECK(errorsAfter([](Config& c) { c.server.threads = 65; }) ==
        std::vector<std::string>{"server.threads: must be between 1 and 64 (got 65)"});
  CHECK(errorsAfter([](Config& c) {
          c.detectors.get<analysis::GpuNodeHoardingSettings>().min_free_gpus = -1;
        }) == std::vector<std::string>{
                  "detectors.gpu_node_hoarding.min_free_gpus: must not be negative (got -1)"});
  for (double share : {0.0, 1.0, 0.75}) {
    CHECK(errorsAfter([&](Config& c) {
            c.detectors.get<analysis::GpuNodeHoardingSettings>().min_non_gpu_share = share;
          }).empty());
  }
  CHECK(errorsAfter([](Config& c) {
          c.detectors.get<analysis::GpuNodeHoardingSettings>().min_non_gpu_share = -0.1;
        }) ==
        std::vector<std::string>{
            "detectors.gpu_node_hoarding.min_non_gpu_share: must be between 0 and 1 (got -0.1)"});
  CHECK(errorsAfter([](Config& c) {
          c.detectors.get<analysis::GpuNodeHoardingSettings>().min_non_gpu_share = std::nan("");
        }).size() == 1);
}

TEST_CASE("periods must be positive and the lookback not negative", "[config][validate]") {
  CHECK(errorsAfter([](Config& c) { c.sources.prometheus.lookback = Seconds(0); }).empty());
  CHECK(errorsAfter([](Config& c) {
          c.analysis.interval = Seconds(0);
          c.sources.prometheus.timeout = Seconds(0);
          c.server.stale_after = Seconds(-5);
          c.sources.prometheus.lookback = Seconds(-1);
        }) == std::vector<std::string>{
                  "sources.prometheus.timeout: must be greater than 0 (got 0s)",
                  "sources.prometheus.lookback: must not be negative (got -1s)",
                  "server.stale_after: must be greater than 0 (got -5s)",
                  "analysis.interval: must be greater than 0 (got 0s)",
              });
}

TEST_CASE("logging accepts only the known levels and formats", "[config][validate]") {
  for (const char* level : {"debug", "info", "warn", "error"}) {
    CHECK(errorsAfter([&](Config& c) { c.logging.level = level; }).empty());
  }
  CHECK(errorsAfter([](Config& c) {
          c.logging.level = "verbose";
          c.logging.format = "text";
        }) == std::vector<std::string>{
                  "logging.level: must be one of debug, info, warn, error (got \"verbose\")",
                  "logging.format: must be one of logfmt, json (got \"text\")",
              });
}

TEST_CASE("metric names must be valid Prometheus names", "[config][validate]") {
  CHECK(errorsAfter([](Config& c) {
          c.sources.prometheus.metrics.pod_info = "ns:kube_pod_info";
        }).empty());
  CHECK(errorsAfter([](Config& c) { c.sources.prometheus.metrics.pod_info = "kube-pod-info"; }) ==
        std::vector<std::string>{
            "sources.prometheus.metrics.pod_info: not a valid metric name (\"kube-pod-info\")"});
  CHECK(errorsAfter([](Config& c) { c.sources.prometheus.metrics.node_labels = ""; }) ==
        std::vector<std::string>{"sources.prometheus.metrics.node_labels: not a valid metric name "
                                 "(\"\")"});
  CHECK(errorsAfter([](Config& c) {
          c.sources.prometheus.metrics.scheduling_latency = {"ok_name", "1bad"};
        }) == std::vector<std::string>{"sources.prometheus.metrics.scheduling_latency: not a valid "
                                       "metric name (\"1bad\")"});
  CHECK(errorsAfter([](Config& c) { c.sources.prometheus.metrics.scheduling_latency.clear(); }) ==
        std::vector<std::string>{
            "sources.prometheus.metrics.scheduling_latency: must name at least one metric"});
}

TEST_CASE("the selector must be a list of label matchers", "[config][validate]") {
  auto set = [](Config& c, const std::string& v) {
    c.sources.prometheus.selector = v;
  };
  checkAccepted({"", "cluster=\"prod\"", "cluster=\"prod\",env=~\"x.*\"",
                 " a != 'b' , c!~\"d\\\"e\" ", "_x=`raw\\`"},
                set);
  checkRefused({"cluster=prod", "{cluster=\"prod\"}", "cluster=\"prod\",", "=\"x\"",
                "cluster==\"x\"", "cluster=\"unterminated", "1abc=\"x\"", "a=\"b\" c=\"d\""},
               set, "sources.prometheus.selector: not a list of label matchers (");
}

TEST_CASE("headers need token names and single-line values", "[config][validate]") {
  CHECK(errorsAfter([](Config& c) {
          c.sources.prometheus.headers = {{"X-Scope-OrgID", "team-a|team-b"}};
        }).empty());
  CHECK(errorsAfter([](Config& c) {
          c.sources.prometheus.headers = {{"X Bad", "v"}};
        }) == std::vector<std::string>{
                  "sources.prometheus.headers: not a valid header name (\"X Bad\")"});
  CHECK(errorsAfter([](Config& c) {
          c.sources.prometheus.headers = {{"X-A", "a\r\nX-B: b"}};
        }) == std::vector<std::string>{
                  "sources.prometheus.headers: the value of header \"X-A\" contains a line break"});
}

TEST_CASE("names that label outputs and pods must not be empty", "[config][validate]") {
  CHECK(errorsAfter([](Config& c) {
          c.analysis.cluster = "";
          c.workflow_labels.dag_label = "";
          c.detectors.get<analysis::GpuNodeHoardingSettings>().taint_key = "";
        }) == std::vector<std::string>{
                  "analysis.cluster: must not be empty",
                  "workflow_labels.dag_label: must not be empty",
                  "detectors.gpu_node_hoarding.taint_key: must not be empty",
              });
}

TEST_CASE("the memory bounds of a cycle must be at least 1, naming the field",
          "[config][validate]") {
  CHECK(errorsAfter([](Config& c) {
          c.sources.prometheus.max_response_mib = 0;
          c.sources.prometheus.response_budget_mib = -1;
          c.sources.prometheus.max_series_per_query = 0;
        }) == std::vector<std::string>{
                  "sources.prometheus.max_response_mib: must be at least 1 (got 0)",
                  "sources.prometheus.response_budget_mib: must be at least 1 (got -1)",
                  "sources.prometheus.max_series_per_query: must be at least 1 (got 0)"});
  CHECK(errorsAfter([](Config& c) { c.sources.prometheus.max_series_per_query = 1; }).empty());
}

TEST_CASE("thresholds that only make sense from 1 or 2 refuse less, naming the field",
          "[config][validate]") {
  // These were clamped silently inside the detectors; a file asking for 0 now hears why not.
  CHECK(errorsAfter(
            [](Config& c) { c.detectors.get<analysis::ShardCandidateSettings>().min_runs = 0; }) ==
        std::vector<std::string>{"detectors.shard_candidate.min_runs: must be at least 1 (got 0)"});
  CHECK(errorsAfter([](Config& c) {
          c.detectors.get<analysis::ShardCandidateSettings>().max_chunks = 1;
        }) == std::vector<std::string>{
                  "detectors.shard_candidate.max_chunks: must be at least 2 (got 1)"});
  CHECK(errorsAfter([](Config& c) {
          c.detectors.get<analysis::DagStackingSettings>().min_tasks_per_node = 1;
        }) == std::vector<std::string>{
                  "detectors.dag_stacking.min_tasks_per_node: must be at least 2 (got 1)"});
  CHECK(errorsAfter([](Config& c) {
          c.detectors.get<analysis::ShardCandidateSettings>().max_chunks = 2;
        }).empty());
  CHECK(errorsAfter([](Config& c) {
          c.detectors.get<analysis::SchedulingLatencySettings>().min_pods = 1;
        }).empty());
}
