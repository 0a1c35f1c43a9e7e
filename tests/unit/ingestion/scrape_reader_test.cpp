#include "ingestion/scrape_reader.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "ingestion/cluster_fetch.h"
#include "sources/snapshot/snapshot_source.h"
#include "support/test_support.h"

namespace dagadvisor::ingestion {
namespace {

void put(std::ostream& out, const model::LabelSet& set) {
  for (const auto& [key, value] : set.items()) {
    out << ' ' << key << '=' << value;
  }
}

void put(std::ostream& out, const model::ResourceVector& r) {
  out << ' ' << r.cpu_millis << '/' << r.memory_bytes << '/' << r.gpus;
}

void put(std::ostream& out, const std::optional<UnixSeconds>& time) {
  if (time) {
    out << ' ' << *time;
  } else {
    out << " -";
  }
}

// Every field of a snapshot as text, so two snapshots compare field by field (NaN included) and a
// difference shows where it is.
std::string dump(const model::ClusterSnapshot& cluster) {
  std::ostringstream out;
  out << std::setprecision(17) << "at " << cluster.at() << '\n';
  for (const model::Node& node : cluster.nodes()) {
    out << "node " << node.name << (node.unschedulable ? " cordoned" : "");
    put(out, node.allocatable);
    put(out, node.capacity);
    put(out, node.labels);
    for (const model::Taint& taint : node.taints) {
      out << " taint " << taint.key << '=' << taint.value << ':' << taint.effect;
    }
    out << '\n';
  }
  for (const model::Pod& pod : cluster.pods()) {
    out << "pod " << pod.key() << ' ' << pod.uid << ' ' << pod.node << ' ' << pod.node_name << ' '
        << model::phaseName(pod.phase) << ' ' << pod.owner_kind << '/' << pod.owner_name << ' '
        << pod.priority_class;
    put(out, pod.requests);
    for (const auto& time : {pod.created, pod.scheduled, pod.started, pod.finished}) {
      put(out, time);
    }
    put(out, pod.labels);
    put(out, pod.annotations);
    if (pod.tolerations) {
      for (const model::Toleration& t : *pod.tolerations) {
        out << " toleration " << t.key << ' ' << t.operator_ << ' ' << t.value << ' ' << t.effect
            << ' ' << t.toleration_seconds.value_or(-1);
      }
      out << " tolerations-known";
    }
    if (pod.node_selector) {
      out << " selector";
      put(out, *pod.node_selector);
    }
    if (pod.usage) {
      out << " usage " << pod.usage->cpu_cores << ' ' << pod.usage->memory_bytes << ' '
          << pod.usage->samples << ' ' << pod.usage->gpu_utilization_percent.value_or(-1);
    }
    out << '\n';
  }
  out << "families " << cluster.specFamilies().tolerations << ' '
      << cluster.specFamilies().node_selectors << '\n';
  const model::SchedulerStats& s = cluster.scheduler();
  out << "scheduler " << s.present << ' ' << s.latency_metric << ' '
      << s.preemption_attempts_per_second << '\n';
  for (const model::ProfileLatency& p : s.latency) {
    out << "latency " << p.profile << ' ' << p.p50.value_or(-1) << ' ' << p.p95.value_or(-1) << ' '
        << p.p99.value_or(-1) << ' ' << p.pods_per_second << '\n';
  }
  for (const auto* map : {&s.pending_by_queue, &s.unschedulable_by_plugin, &s.attempts_per_second,
                          &s.extension_point_p99}) {
    for (const auto& [key, value] : *map) {
      out << "stat " << key << ' ' << value << '\n';
    }
    out << "--\n";
  }
  return out.str();
}

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

std::unique_ptr<ScrapeClusterReader> openReader(std::vector<std::string> targets,
                                                const Clock& clock) {
  sources::scrape::ScraperOptions options;
  options.targets = std::move(targets);
  auto scraper = sources::scrape::Scraper::create(options, &clock);
  REQUIRE(scraper.ok());
  return std::make_unique<ScrapeClusterReader>(std::move(scraper).value(), config::Sources{},
                                               &clock);
}

std::unique_ptr<ScrapeClusterReader> openReader(const std::string& path, const Clock& clock) {
  return openReader(std::vector<std::string>{path}, clock);
}

// The snapshot the catalog's queries build from the Prometheus bodies of the reader's last read:
// what a replay of its recording reads.
Result<model::ClusterSnapshot> throughJson(ScrapeClusterReader& reader, UnixSeconds at,
                                           FetchStats& stats) {
  return fetchClusterSnapshot(reader.recordedAnswers(), QueryCatalog(config::PrometheusSource{}),
                              at, stats);
}

std::size_t liveSamples(ScrapeClusterReader& reader) {
  auto body = reader.recordedAnswers().instantQuery({"pod_live", "ignored"}, 0);
  REQUIRE(body.ok());
  std::size_t n = 0;
  REQUIRE(sources::decodeInstantVector(body->json, [&](const sources::SampleView&) { ++n; }).ok());
  return n;
}

}  // namespace

TEST_CASE("a direct scrape answers every catalog query, like Prometheus", "[ingestion][scrape]") {
  ExpositionFile file("cluster.prom");
  file.write(std::string(kNode) + kPod);
  ManualClock clock(5000);
  auto reader = openReader(file.path(), clock);

  FetchStats read_stats;
  REQUIRE(reader->read(5000, read_stats).ok());
  FetchStats stats;
  auto cluster = throughJson(*reader, 5000, stats);
  REQUIRE(cluster.ok());
  CHECK(stats.queries == kQueryCount);
  CHECK(stats.warnings.empty());
  REQUIRE(cluster->nodes().size() == 1);
  CHECK(cluster->nodes()[0].allocatable.cpu_millis == 4000);
  REQUIRE(cluster->pods().size() == 1);
  const model::Pod& pod = cluster->pods()[0];
  CHECK(pod.holdsResources());
  // Quotes, a backslash and a line break survive the exposition escapes and the JSON body.
  CHECK(pod.annotations.get("note") == std::optional<std::string_view>("say \"hi\"\\ \nbye"));

  // The next read scrapes again: the pod was deleted meanwhile, and is kept but not live.
  file.write(kNode);
  clock.advance(60);
  FetchStats again;
  auto later = reader->read(5060, again);
  REQUIRE(later.ok());
  REQUIRE(later->pods().size() == 1);
  CHECK_FALSE(later->pods()[0].holdsResources());
}

TEST_CASE("a direct scrape refuses queries outside the catalog and reports target faults",
          "[ingestion][scrape]") {
  ManualClock clock(5000);
  FetchStats stats;
  auto missing = openReader("/nonexistent/dagadvisor/metrics.prom", clock)->read(5000, stats);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().describe().find("/nonexistent/dagadvisor/metrics.prom") !=
        std::string::npos);
  CHECK(stats.queries == 0);

  ExpositionFile file("empty.prom");
  file.write(kNode);
  auto reader = openReader(file.path(), clock);
  REQUIRE(reader->read(5000, stats).ok());
  sources::MetricsSource& answers = reader->recordedAnswers();
  CHECK_FALSE(answers.instantQuery({"up", "up"}, 5000).ok());
  CHECK(reader->describe() == "scrape " + file.path());
  CHECK(answers.describe() == reader->describe());
  auto allocatable = answers.instantQuery({"node_allocatable", "ignored"}, 5000);
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

}  // namespace dagadvisor::ingestion

namespace dagadvisor::ingestion {

TEST_CASE("the recorded answers are the last read's: asking them never scrapes",
          "[ingestion][scrape]") {
  ExpositionFile file("cycle.prom");
  file.write(std::string(kNode) + kPod);
  ManualClock clock(7000);
  auto reader = openReader(file.path(), clock);
  FetchStats stats;
  REQUIRE(reader->read(7000, stats).ok());
  file.write(kNode);  // the pod is deleted after the read
  CHECK(liveSamples(*reader) == 1);
  CHECK(liveSamples(*reader) == 1);  // asked again: still the read's evaluation
  REQUIRE(reader->read(7060, stats).ok());
  CHECK(liveSamples(*reader) == 0);  // a new read, a new scrape
  CHECK(stats.queries == 2);         // one target, read twice
}

TEST_CASE("a recorded direct scrape replays as the snapshot the read built",
          "[ingestion][scrape]") {
  ExpositionFile file("recorded.prom");
  file.write(std::string(kNode) + kPod);
  ManualClock clock(8000);
  auto reader = openReader(file.path(), clock);
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("dagadvisor-scrape-record-" + std::to_string(::getpid())))
                              .string();
  sources::SnapshotWriter writer(reader->recordedAnswers(), dir, &clock);
  reader->recordInto(writer);
  FetchStats stats;
  auto cluster = reader->read(8000, stats);
  REQUIRE(cluster.ok());
  CHECK(writer.recordedCount() == kQueryCount);
  REQUIRE(writer.finish(8000).ok());

  auto replay = sources::SnapshotSource::open(dir);
  REQUIRE(replay.ok());
  CHECK((*replay)->analysisTime() == 8000);
  FetchStats replay_stats;
  auto replayed =
      fetchClusterSnapshot(**replay, QueryCatalog(config::PrometheusSource{}), 8000, replay_stats);
  std::filesystem::remove_all(dir);
  REQUIRE(replayed.ok());
  CHECK(cluster->pods().size() == 1);
  CHECK(dump(*replayed) == dump(*cluster));
}

}  // namespace dagadvisor::ingestion

namespace dagadvisor::ingestion {

TEST_CASE("the direct path builds the snapshot the JSON bodies give", "[ingestion][scrape]") {
  const std::vector<std::string> targets = {
      testing::fixturePath("exposition/nri-kubernetes-1_35-ksm.metrics.txt"),
      testing::fixturePath("exposition/nri-kubernetes-1_35-kube-scheduler.metrics.txt")};
  // After the scheduler's process_start_time_seconds: its first rates divide by the uptime.
  ManualClock clock(1.7824694e9);
  auto reader = openReader(targets, clock);

  for (int cycle = 0; cycle < 2; ++cycle) {  // the second one rates against the first
    CAPTURE(cycle);
    const UnixSeconds at = clock.now();
    FetchStats stats;
    auto cluster = reader->read(at, stats);
    FetchStats json_stats;
    auto expected = throughJson(*reader, at, json_stats);
    REQUIRE(expected.ok());
    REQUIRE(cluster.ok());
    CHECK(dump(*cluster) == dump(*expected));

    // Not a comparison of two empty pictures: the fixtures hold a real cluster and scheduler.
    CHECK(cluster->nodes().size() >= 1);
    CHECK(cluster->pods().size() >= 20);
    CHECK(std::any_of(cluster->pods().begin(), cluster->pods().end(), [](const model::Pod& p) {
      return p.scheduled && p.requests.cpu_millis > 0;
    }));
    CHECK(cluster->scheduler().present);
    CHECK_FALSE(cluster->scheduler().pending_by_queue.empty());
    if (cycle == 0) {
      CHECK_FALSE(cluster->scheduler().latency.empty());
    }

    // One query per target, the exposition bytes, and no warnings (the JSON path has none either).
    CHECK(stats.queries == targets.size());
    CHECK(stats.bytes ==
          testing::readFile(targets[0]).size() + testing::readFile(targets[1]).size());
    CHECK(stats.warnings == json_stats.warnings);
    clock.advance(60);
  }
}

TEST_CASE(
    "tolerations and node selectors are read for the pods pending unbound, from the real "
    "kube-state-metrics scrape",
    "[ingestion][scrape]") {
  ManualClock clock(1.7824694e9);
  const std::string ksm = testing::fixturePath("exposition/nri-kubernetes-1_35-ksm.metrics.txt");
  const std::string selectors =
      testing::fixturePath("exposition/nri-kubernetes-1_35-ksm-nodeselectors.metrics.txt");
  auto pendingPod = [](const model::ClusterSnapshot& cluster) -> const model::Pod& {
    const auto id = cluster.findPod("scraper", "e2e-container-pending");
    REQUIRE(id);
    return cluster.pod(*id);
  };
  SECTION("the default families: tolerations, and node selectors not exported") {
    FetchStats stats;
    auto cluster = openReader(std::vector<std::string>{ksm}, clock)->read(clock.now(), stats);
    REQUIRE(cluster.ok());
    CHECK(cluster->specFamilies().tolerations);
    CHECK_FALSE(cluster->specFamilies().node_selectors);
    REQUIRE(cluster->pendingPods().size() == 1);
    const model::Pod& pod = pendingPod(*cluster);
    REQUIRE(pod.tolerations);
    // The PodList: not-ready and unreachable, Exists, NoExecute, 300 s.
    REQUIRE(pod.tolerations->size() == 2);
    for (const model::Toleration& t : *pod.tolerations) {
      CHECK(t.operator_ == "Exists");
      CHECK(t.value.empty());
      CHECK(t.effect == "NoExecute");
      CHECK(t.toleration_seconds == 300.0);
    }
    CHECK((*pod.tolerations)[0].key != (*pod.tolerations)[1].key);
    CHECK_FALSE(pod.node_selector);  // not known: the family is opt-in
    // Bound pods are not what the diagnosis asks about: not read (issue #18: cost).
    CHECK(std::none_of(cluster->pods().begin(), cluster->pods().end(), [](const model::Pod& p) {
      return !p.node_name.empty() && (p.tolerations || p.node_selector);
    }));
  }
  SECTION("with kube_pod_nodeselectors as --metric-opt-in-list exports it") {
    FetchStats stats;
    auto reader = openReader(std::vector<std::string>{ksm, selectors}, clock);
    auto cluster = reader->read(clock.now(), stats);
    auto through_json = throughJson(*reader, clock.now(), stats);
    REQUIRE(cluster.ok());
    REQUIRE(through_json.ok());
    CHECK(dump(*cluster) == dump(*through_json));
    CHECK(cluster->specFamilies().node_selectors);
    const model::Pod& pod = pendingPod(*cluster);
    REQUIRE(pod.node_selector);
    CHECK(pod.node_selector->items().size() == 1);
    CHECK(pod.node_selector->get("not-existing") == "not-existing");
  }
}

}  // namespace dagadvisor::ingestion
