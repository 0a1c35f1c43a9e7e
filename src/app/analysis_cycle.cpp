#include "app/analysis_cycle.h"

#include <chrono>

#include "analysis/detector_registry.h"
#include "analysis/detector_runner.h"
#include "graph/run_graph.h"
#include "model/adapters/labelled_pods.h"
#include "model/cluster_fetch.h"

namespace dagadvisor::app {
namespace {

advice::ClusterSummary summarize(const model::ClusterSnapshot& cluster) {
  advice::ClusterSummary s;
  s.nodes = cluster.nodes().size();
  s.pods = cluster.pods().size();
  s.pending_pods = cluster.pendingPods().size();
  for (model::NodeId id = 0; id < cluster.nodes().size(); ++id) {
    const model::Node& node = cluster.node(id);
    s.gpu_nodes += node.hasGpus() ? 1 : 0;
    s.gpus_allocatable += node.allocatable.gpus;
    s.gpus_requested += cluster.requestedOn(id).gpus;
  }
  for (const model::Pod& pod : cluster.pods()) {
    s.running_pods += pod.phase == model::PodPhase::kRunning ? 1 : 0;
  }
  return s;
}

advice::RunSummary summarizeRun(const graph::RunGraph& g) {
  const model::WorkflowRun& run = *g.run;
  advice::RunSummary s;
  s.id = run.id();
  s.namespace_ = run.namespace_;
  s.dag = run.dag;
  s.run = run.run;
  s.engine = run.engine;
  s.tasks = run.tasks.size();
  s.edges = g.graph.edgeCount();
  s.finished = g.finished;
  s.makespan_seconds = g.makespan;
  s.critical_path_seconds = g.critical_path.length;
  for (model::TaskIndex t : g.critical_path.tasks) {
    s.critical_path.push_back(run.tasks[t].id);
  }
  s.efficiency = g.efficiency();
  s.problems = g.problems;
  return s;
}

}  // namespace

Result<std::shared_ptr<const advice::AnalysisReport>> runAnalysisCycle(
    sources::MetricsSource& source, const config::Config& config, UnixSeconds at,
    const Clock& clock, advice::RecommendationHistory* history) {
  const auto started = std::chrono::steady_clock::now();
  model::FetchStats stats;
  auto cluster = model::fetchClusterSnapshot(source, model::QueryCatalog(config.sources.prometheus),
                                             at, stats);
  if (!cluster.ok()) {
    return cluster.error();
  }
  const auto runs = model::buildLabelledRuns(*cluster, config.workflow_labels);
  std::vector<graph::RunGraph> graphs;
  graphs.reserve(runs.size());
  for (const model::WorkflowRun& run : runs) {
    graphs.push_back(graph::buildRunGraph(run, *cluster));
  }
  auto detection = analysis::runDetectors(analysis::enabledDetectors(config.detectors),
                                          analysis::AnalysisInput{*cluster, graphs, config});

  auto report = std::make_shared<advice::AnalysisReport>();
  report->cluster = config.analysis.cluster;
  report->source = source.describe();
  report->data_time = at;
  report->queries = stats.queries;
  report->bytes_received = stats.bytes;
  report->warnings = std::move(stats.warnings);
  report->summary = summarize(*cluster);
  for (const graph::RunGraph& g : graphs) {
    report->runs.push_back(summarizeRun(g));
  }
  report->recommendations = advice::recommend(detection.findings, config);
  report->findings = std::move(detection.findings);
  report->detectors = std::move(detection.runs);
  report->generated_at = clock.now();
  if (history != nullptr) {
    history->stamp(report->recommendations, report->generated_at);
  } else {
    for (advice::Recommendation& rec : report->recommendations) {
      rec.first_seen = rec.last_seen = report->generated_at;
    }
  }
  report->analysis_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return std::shared_ptr<const advice::AnalysisReport>(std::move(report));
}

}  // namespace dagadvisor::app
