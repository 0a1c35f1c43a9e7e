#include "exporter/report_collector.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "analysis/detectors/gpu_node_hoarding.h"
#include "exporter/metric_catalog.h"

namespace dagadvisor::exporter {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using report::AnalysisReport;

constexpr std::string_view kNodePrefix = "node/";

// Families indexed by MetricId so that all clusters' samples land in one family per name.
class Families {
 public:
  void add(MetricId id, std::initializer_list<std::string_view> label_values, double value) {
    MetricFamily& family = families_[id];
    if (family.name.empty()) {
      const MetricSpec& spec = metricSpec(id);
      family.name = spec.name;
      family.help = spec.help;
      family.type = prometheus::MetricType::Gauge;
    }
    ClientMetric sample;
    for (auto& [name, label_value] : labelPairs(metricSpec(id), label_values)) {
      sample.label.push_back({std::move(name), std::move(label_value)});
    }
    sample.gauge.value = value;
    family.metric.push_back(std::move(sample));
  }

  std::vector<MetricFamily> take() {
    std::vector<MetricFamily> out;
    for (auto& [id, family] : families_) {
      out.push_back(std::move(family));
    }
    return out;
  }

 private:
  std::map<MetricId, MetricFamily> families_;  // ordered by id = catalog order
};

void addSummary(Families& out, const AnalysisReport& r) {
  const auto& s = r.summary;
  const std::string_view c = r.cluster;
  out.add(MetricId::kClusterNodes, {c}, static_cast<double>(s.nodes));
  out.add(MetricId::kClusterGpuNodes, {c}, static_cast<double>(s.gpu_nodes));
  out.add(MetricId::kClusterPods, {c}, static_cast<double>(s.pods));
  out.add(MetricId::kPendingPods, {c}, static_cast<double>(s.pending_pods));
  out.add(MetricId::kGpusAllocatable, {c}, static_cast<double>(s.gpus_allocatable));
  out.add(MetricId::kGpusRequested, {c}, static_cast<double>(s.gpus_requested));
}

using KindSeverity = std::tuple<std::string, analysis::Severity>;

void addCounts(Families& out, MetricId id, std::string_view cluster,
               const std::map<KindSeverity, int>& counts) {
  for (const auto& [key, count] : counts) {
    out.add(id, {cluster, std::get<0>(key), analysis::severityName(std::get<1>(key))}, count);
  }
}

void addFindings(Families& out, const AnalysisReport& r) {
  std::map<KindSeverity, int> counts;
  // A detector that judged the data and found nothing is a real zero, not an absent series
  // (a dashboard's "no data" would read as "could not look"); one that could not judge stays
  // absent.
  for (const analysis::DetectorRun& run : r.detectors) {
    if (run.ok && run.no_advice_reason.empty()) {
      for (const auto severity : {analysis::Severity::kInfo, analysis::Severity::kWarning,
                                  analysis::Severity::kCritical}) {
        counts[{run.name, severity}] = 0;
      }
    }
  }
  std::set<std::string_view> hoarded;  // one series per node even if findings repeat a node
  for (const auto& f : r.findings) {
    ++counts[{f.kind, f.severity}];
    if (f.kind != analysis::GpuNodeHoardingEvidence::kKind || !f.target.starts_with(kNodePrefix)) {
      continue;
    }
    const std::string_view node = std::string_view(f.target).substr(kNodePrefix.size());
    if (!hoarded.insert(node).second) {
      continue;
    }
    const auto& evidence = f.evidenceAs<analysis::GpuNodeHoardingEvidence>();
    // Held only by DaemonSets: moving workloads frees nothing there; not hoarding.
    if (evidence.hold == "daemonsets") {
      continue;
    }
    out.add(MetricId::kGpuNodeHoarded, {r.cluster, node}, 1);
    out.add(MetricId::kGpuNodeFreeGpus, {r.cluster, node}, static_cast<double>(evidence.free.gpus));
    out.add(MetricId::kGpuNodeNonGpuCpuShare, {r.cluster, node}, evidence.non_gpu_cpu_share);
  }
  addCounts(out, MetricId::kFindings, r.cluster, counts);
}

void addRecommendations(Families& out, const AnalysisReport& r) {
  std::map<KindSeverity, int> counts;
  for (const auto& rec : r.recommendations) {
    ++counts[{rec.kind, rec.severity}];
  }
  addCounts(out, MetricId::kRecommendationsActive, r.cluster, counts);
}

// Per-run series are bounded to the longest runs: a cluster has thousands of runs per day.
void addTopRuns(Families& out, const AnalysisReport& r, std::size_t top) {
  std::vector<const report::RunSummary*> runs;
  for (const auto& run : r.runs) {
    runs.push_back(&run);
  }
  const std::size_t n = std::min(top, runs.size());
  std::partial_sort(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(n), runs.end(),
                    [](const auto* a, const auto* b) {
                      return std::tie(b->makespan_seconds, a->id) <
                             std::tie(a->makespan_seconds, b->id);
                    });
  for (std::size_t i = 0; i < n; ++i) {
    const auto& run = *runs[i];
    const std::initializer_list<std::string_view> labels = {r.cluster, run.namespace_, run.dag,
                                                            run.run};
    if (run.finished) {
      out.add(MetricId::kDagRunMakespan, labels, run.makespan_seconds);
    }
    out.add(MetricId::kDagRunElapsed, labels, run.makespan_seconds);
    out.add(MetricId::kDagRunCriticalPath, labels, run.critical_path_seconds);
    out.add(MetricId::kDagRunEfficiency, labels, run.efficiency);
    out.add(MetricId::kDagRunWaitShare, labels, run.wait_share);
    if (run.whatif_makespan_seconds) {
      out.add(MetricId::kDagRunWhatIfMakespan, labels, *run.whatif_makespan_seconds);
    }
  }
}

void addScheduler(Families& out, const AnalysisReport& r) {
  for (const auto& p : r.scheduler.latency) {
    const std::pair<const char*, const std::optional<double>*> quantiles[] = {
        {"50", &p.p50}, {"95", &p.p95}, {"99", &p.p99}};
    for (const auto& [q, value] : quantiles) {
      if (value->has_value()) {
        out.add(MetricId::kSchedulingLatency, {r.cluster, p.profile, q}, **value);
      }
    }
  }
  for (const auto& [queue, pods] : r.scheduler.pending_by_queue) {
    out.add(MetricId::kSchedulerPendingPods, {r.cluster, queue}, pods);
  }
}

void addNodes(Families& out, const AnalysisReport& r) {
  for (const auto& node : r.nodes) {
    if (!node.stranded_resource.empty()) {
      out.add(MetricId::kNodeStrandedShare, {r.cluster, node.name, node.stranded_resource},
              node.stranded_share);
    }
  }
}

}  // namespace

ReportCollector::ReportCollector(ReportsGetter reports, std::size_t top_runs)
    : reports_(std::move(reports)), top_runs_(top_runs) {}

std::vector<MetricFamily> ReportCollector::Collect() const {
  Families out;
  if (!reports_) {
    return {};
  }
  for (const auto& report : reports_()) {
    if (!report) {
      continue;
    }
    addSummary(out, *report);
    addFindings(out, *report);
    addRecommendations(out, *report);
    addTopRuns(out, *report, top_runs_);
    addScheduler(out, *report);
    addNodes(out, *report);
  }
  return out.take();
}

}  // namespace dagadvisor::exporter
