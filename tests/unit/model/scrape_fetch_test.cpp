#include "model/scrape_fetch.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "model/cluster_fetch.h"

namespace dagadvisor::model {
namespace {

// An exposition file that lives as long as the test.
class ExpositionFile {
 public:
  explicit ExpositionFile(const std::string& name)
      : path_((std::filesystem::temp_directory_path() /
               ("dagadvisor-scrape-" + std::to_string(::getpid()) + "-" + name))
                  .string()) {}
  ~ExpositionFile() { std::filesystem::remove(path_); }
  ExpositionFile(const ExpositionFile&) = delete;
  ExpositionFile& operator=(const ExpositionFile&) = delete;

  void write(const std::string& body) const { std::ofstream(path_, std::ios::binary) << body; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

constexpr const char* kNode =
    R"(kube_node_status_allocatable{node="n1",resource="cpu",unit="core"} 4
)";
constexpr const char* kPod =
    R"(kube_pod_info{namespace="ns",pod="p1",uid="u1",node="n1",created_by_kind="",created_by_name="",priority_class=""} 1
kube_pod_annotations{namespace="ns",pod="p1",uid="u1",annotation_note="say \"hi\"\\ \nbye"} 1
kube_pod_status_phase{namespace="ns",pod="p1",uid="u1",phase="Running"} 1
)";

std::unique_ptr<ScrapeMetricsSource> openSource(const std::string& path, const Clock& clock) {
  sources::scrape::ScraperOptions options;
  options.targets = {path};
  auto scraper = sources::scrape::Scraper::create(options, &clock);
  REQUIRE(scraper.ok());
  return std::make_unique<ScrapeMetricsSource>(std::move(scraper).value(), config::Sources{},
                                               &clock);
}

}  // namespace

TEST_CASE("a direct scrape answers every catalog query, like Prometheus", "[model][scrape]") {
  ExpositionFile file("cluster.prom");
  file.write(std::string(kNode) + kPod);
  ManualClock clock(5000);
  auto source = openSource(file.path(), clock);
  const QueryCatalog catalog(config::PrometheusSource{});

  FetchStats stats;
  auto cluster = fetchClusterSnapshot(*source, catalog, 5000, stats);
  REQUIRE(cluster.ok());
  CHECK(stats.queries == kQueryCount);
  CHECK(stats.warnings.empty());
  REQUIRE(cluster->nodes().size() == 1);
  CHECK(cluster->nodes()[0].allocatable.cpu_millis == 4000);
  REQUIRE(cluster->pods().size() == 1);
  const Pod& pod = cluster->pods()[0];
  CHECK(pod.holdsResources());
  // Quotes, a backslash and a line break survive the exposition escapes and the JSON body.
  CHECK(pod.annotations.get("note") == std::optional<std::string_view>("say \"hi\"\\ \nbye"));

  // The next cycle scrapes again: the pod was deleted meanwhile, and is kept but not live.
  file.write(kNode);
  clock.advance(60);
  FetchStats again;
  auto later = fetchClusterSnapshot(*source, catalog, 5060, again);
  REQUIRE(later.ok());
  REQUIRE(later->pods().size() == 1);
  CHECK_FALSE(later->pods()[0].holdsResources());
}

TEST_CASE("a direct scrape refuses queries outside the catalog and reports target faults",
          "[model][scrape]") {
  ManualClock clock(5000);
  auto missing = openSource("/nonexistent/dagadvisor/metrics.prom", clock);
  auto body = missing->instantQuery({"node_allocatable", "ignored"}, 5000);
  REQUIRE_FALSE(body.ok());
  CHECK(body.error().message.find("/nonexistent/dagadvisor/metrics.prom") != std::string::npos);

  ExpositionFile file("empty.prom");
  file.write(kNode);
  auto source = openSource(file.path(), clock);
  CHECK_FALSE(source->instantQuery({"up", "up"}, 5000).ok());
  CHECK(source->describe() == "scrape " + file.path());
  auto allocatable = source->instantQuery({"node_allocatable", "ignored"}, 5000);
  REQUIRE(allocatable.ok());
  std::size_t samples = 0;
  auto decoded = sources::decodeInstantVector(allocatable->json, [&](const sources::SampleView& s) {
    ++samples;
    CHECK(s.label("node") == "n1");
    CHECK(s.label("resource") == "cpu");
    CHECK(s.value == 4);
  });
  REQUIRE(decoded.ok());
  CHECK(samples == 1);
}

}  // namespace dagadvisor::model

namespace dagadvisor::model {

TEST_CASE("one scrape serves every query of a cycle", "[model][scrape]") {
  ExpositionFile file("cycle.prom");
  file.write(std::string(kNode) + kPod);
  ManualClock clock(7000);
  auto source = openSource(file.path(), clock);
  auto liveSamples = [&] {
    auto body = source->instantQuery({"pod_live", "ignored"}, 7000);
    REQUIRE(body.ok());
    std::size_t n = 0;
    REQUIRE(
        sources::decodeInstantVector(body->json, [&](const sources::SampleView&) { ++n; }).ok());
    return n;
  };
  REQUIRE(source->instantQuery({"node_allocatable", "ignored"}, 7000).ok());
  file.write(kNode);          // the pod is deleted after the cycle's first query
  CHECK(liveSamples() == 1);  // the same cycle: still the first scrape's answer
  CHECK(liveSamples() == 0);  // asked again: a new cycle, a new scrape
}

}  // namespace dagadvisor::model
