// Exposition-format parsing throughput, to compare with Prometheus' Go text parser
// (~236 MiB/s per core on its own benchmark, issue #4).

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sources/exposition/exposition_parser.h"
#include "synthetic_pods.h"

namespace dagadvisor::bench {
namespace {

using sources::SampleView;
using sources::exposition::parseExposition;

std::string readFixture(const char* name) {
  const auto path =
      std::filesystem::path(__FILE__).parent_path() / "../../tests/fixtures/exposition" / name;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// 100k kube_pod_labels series, as kube-state-metrics would serve them.
std::string syntheticScrape(std::size_t series) {
  std::string body =
      "# HELP kube_pod_labels Kubernetes labels converted to Prometheus labels.\n"
      "# TYPE kube_pod_labels gauge\n";
  for (std::size_t i = 0; i < series; ++i) {
    const Labels labels = podLabels(i);
    body += labels[0].second;
    char separator = '{';
    for (std::size_t l = 1; l < labels.size(); ++l) {
      body += separator;
      body += labels[l].first;
      body += "=\"";
      body += labels[l].second;
      body += '"';
      separator = ',';
    }
    body += "} 1\n";
  }
  return body;
}

void runParser(benchmark::State& state, const std::string& body) {
  if (body.empty()) {
    state.SkipWithError("no input");
    return;
  }
  std::size_t samples = 0;
  for (auto _ : state) {
    double sum = 0;
    auto parsed = parseExposition(body, {}, [&](const SampleView& view) {
      sum += view.value + static_cast<double>(view.label_count);
    });
    if (!parsed) {
      state.SkipWithError(parsed.error().describe().c_str());
      return;
    }
    samples = parsed->samples;
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
  state.counters["samples"] = static_cast<double>(samples);
  state.counters["body_MiB"] = static_cast<double>(body.size()) / (1024.0 * 1024.0);
}

void BM_ExpositionKsmScrape(benchmark::State& state) {
  static const std::string body = readFixture("nri-kubernetes-1_35-ksm.metrics.txt");
  runParser(state, body);
}
BENCHMARK(BM_ExpositionKsmScrape)->Unit(benchmark::kMicrosecond);

void BM_ExpositionSchedulerScrape(benchmark::State& state) {
  static const std::string body = readFixture("nri-kubernetes-1_35-kube-scheduler.metrics.txt");
  runParser(state, body);
}
BENCHMARK(BM_ExpositionSchedulerScrape)->Unit(benchmark::kMicrosecond);

void BM_ExpositionSynthetic100k(benchmark::State& state) {
  static const std::string body = syntheticScrape(100000);
  runParser(state, body);
}
BENCHMARK(BM_ExpositionSynthetic100k)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dagadvisor::bench
