// Direct scrape at the reference size (5,000 nodes, 150,000 pods): a synthetic
// kube-state-metrics page parsed, evaluated locally and built into a ClusterSnapshot, straight
// and through the JSON bodies the daemon's MetricsSource hands to the cycle.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ingestion/cluster_fetch.h"
#include "ingestion/scrape_eval.h"
#include "ingestion/scrape_reader.h"

namespace {

using namespace dagadvisor;

constexpr std::size_t kNodes = 5000;
constexpr std::size_t kPods = 150000;

void line(std::string& out, const char* metric, const std::string& labels, const char* value) {
  out += metric;
  out += '{';
  out += labels;
  out += "} ";
  out += value;
  out += '\n';
}

// What kube-state-metrics v2 serves for one pod: info, labels, owner, all five phases,
// requests of two containers, and its timestamps.
void podSeries(std::string& out, std::size_t i) {
  const std::string node = "node-" + std::to_string(i % kNodes);
  const std::string key = "namespace=\"team-" + std::to_string(i % 40) + "\",pod=\"etl-nightly-" +
                          std::to_string(i) + "\",uid=\"" + std::to_string(i * 2654435761u) +
                          "-4b1c-4d2e-9f3a\"";
  line(out, "kube_pod_info",
       key + ",node=\"" + node +
           "\",created_by_kind=\"Job\",created_by_name=\"etl\",priority_class=\"batch\"",
       "1");
  line(out, "kube_pod_labels",
       key + ",label_dag_id=\"etl_" + std::to_string(i % 300) + "\",label_dag_run=\"r" +
           std::to_string(i % 3000) + "\",label_task_id=\"t" + std::to_string(i % 20) + "\"",
       "1");
  line(out, "kube_pod_owner", key + ",owner_kind=\"Job\",owner_name=\"etl\"", "1");
  for (const char* phase : {"Pending", "Running", "Succeeded", "Failed", "Unknown"}) {
    line(out, "kube_pod_status_phase", key + ",phase=\"" + phase + "\"",
         std::string_view(phase) == "Running" ? "1" : "0");
  }
  for (const char* container : {"main", "sidecar"}) {
    const std::string c = key + ",container=\"" + container + "\",node=\"" + node + "\"";
    line(out, "kube_pod_container_resource_requests", c + ",resource=\"cpu\",unit=\"core\"", "0.5");
    line(out, "kube_pod_container_resource_requests", c + ",resource=\"memory\",unit=\"byte\"",
         "1.073741824e+09");
  }
  line(out, "kube_pod_created", key, "1.7958e+09");
  line(out, "kube_pod_status_scheduled_time", key, "1.79580001e+09");
  line(out, "kube_pod_start_time", key, "1.79580002e+09");
}

const std::string& kubeStateMetricsPage() {
  static const std::string page = [] {
    std::string out;
    out.reserve(std::size_t{700} << 20);
    for (std::size_t n = 0; n < kNodes; ++n) {
      const std::string node = "node=\"node-" + std::to_string(n) + "\"";
      line(out, "kube_node_status_allocatable", node + ",resource=\"cpu\",unit=\"core\"", "32");
      line(out, "kube_node_status_allocatable", node + ",resource=\"memory\",unit=\"byte\"",
           "1.37438953472e+11");
      line(out, "kube_node_labels", node + ",label_node_type=\"compute\"", "1");
    }
    for (std::size_t i = 0; i < kPods; ++i) {
      podSeries(out, i);
    }
    return out;
  }();
  return page;
}

void evaluate(ingestion::ScrapeEvaluator& evaluator, benchmark::State& state) {
  const std::string& page = kubeStateMetricsPage();
  evaluator.beginCycle(1.7958e9);
  auto added =
      evaluator.addBody({"ksm", page, sources::exposition::Format::kPrometheusText, 1.7958e9});
  if (!added.ok()) {
    state.SkipWithError(added.error().describe().c_str());
  }
  evaluator.endCycle();
}

void count(benchmark::State& state, std::size_t pods) {
  const std::string& page = kubeStateMetricsPage();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * page.size()));
  state.counters["pods"] = static_cast<double>(pods);
  state.counters["page_MiB"] = static_cast<double>(page.size()) / (1024.0 * 1024.0);
}

// The parser alone on the same page: what the evaluation adds is the difference.
void BM_ScrapeParseOnly(benchmark::State& state) {
  const std::string& page = kubeStateMetricsPage();
  std::size_t samples = 0;
  for (auto _ : state) {
    double sum = 0;
    auto parsed = sources::exposition::parseExposition(
        page, {}, [&](const sources::SampleView& s) { sum += s.value; });
    samples = parsed.ok() ? parsed->samples : 0;
    benchmark::DoNotOptimize(sum);
  }
  count(state, samples);
}
BENCHMARK(BM_ScrapeParseOnly)->Unit(benchmark::kMillisecond)->Iterations(3);

// The path a replay of a recorded direct scrape takes, on top of the read: the page read from a
// file target and evaluated (ScrapeClusterReader::read), each query's samples rendered as
// Prometheus JSON (ScrapeAnswers, what `snapshot record` keeps), decoded and built by the
// generic fetch.
void BM_ScrapeThroughJson(benchmark::State& state) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("dagadvisor-scrape-bench-" + std::to_string(::getpid()) + ".prom"))
                               .string();
  std::ofstream(path, std::ios::binary) << kubeStateMetricsPage();
  sources::scrape::ScraperOptions options;
  options.targets = {path};
  auto scraper = sources::scrape::Scraper::create(options);
  if (!scraper.ok()) {
    state.SkipWithError(scraper.error().describe().c_str());
    return;
  }
  ingestion::ScrapeClusterReader reader(std::move(scraper).value(), config::Sources{});
  const ingestion::QueryCatalog catalog{config::PrometheusSource{}};
  std::size_t pods = 0;
  std::size_t json_bytes = 0;
  UnixSeconds at = 1.7958e9;
  for (auto _ : state) {
    ingestion::FetchStats scrape_stats;
    ingestion::FetchStats stats;
    // What a recorded direct scrape costs: the read, then every answer rendered and decoded.
    auto read = reader.read(at += 60, scrape_stats);
    auto cluster = ingestion::fetchClusterSnapshot(reader.recordedAnswers(), catalog, at, stats);
    pods = read.ok() && cluster.ok() ? cluster->pods().size() : 0;
    json_bytes = stats.bytes;
  }
  std::filesystem::remove(path);
  count(state, pods);
  state.counters["json_MiB"] = static_cast<double>(json_bytes) / (1024.0 * 1024.0);
}
BENCHMARK(BM_ScrapeThroughJson)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ScrapeEvaluateBuild(benchmark::State& state) {
  ingestion::ScrapeEvaluator evaluator(config::MetricNames{}, config::Seconds(0));
  std::size_t pods = 0;
  for (auto _ : state) {
    evaluate(evaluator, state);
    pods = ingestion::buildScrapedSnapshot(evaluator, 1.7958e9).pods().size();
  }
  count(state, pods);
}
BENCHMARK(BM_ScrapeEvaluateBuild)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
