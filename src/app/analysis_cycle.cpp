#include "app/analysis_cycle.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <iterator>
#include <optional>
#include <utility>

#include "advice/kind_list.h"
#include "analysis/detector_runner.h"
#include "analysis/detectors/stranded_resources.h"
#include "analysis/stranding.h"
#include "common/cancellation.h"
#include "common/log.h"
#include "common/secrets.h"
#include "graph/cluster_whatif.h"
#include "graph/run_graph.h"
#include "model/adapters/object_edges.h"

namespace dagadvisor::app {
namespace {

const log::Logger kLog("cycle");

// Milliseconds per stage of one cycle, logged at debug level: where a slow cycle spends its time.
class StageTimer {
 public:
  void lap(std::string_view stage) {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    fields_.emplace_back(stage, std::to_string(static_cast<long long>(ms)));
    last_ = now;
  }
  // The cycle's stages, in order. (A fixed count of seven fields once kept this line silent
  // after an eighth stage was added.)
  void log() const { kLog.debug("cycle stages (ms)", fields_); }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::vector<log::Field> fields_;
};

report::ClusterSummary summarize(const model::ClusterSnapshot& cluster) {
  report::ClusterSummary s;
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

report::TaskRow taskRow(const graph::RunGraph& g, const model::ClusterSnapshot& cluster,
                        model::TaskIndex t) {
  const model::Task& task = g.run->tasks[t];
  const model::Pod& pod = cluster.pod(task.pod);
  report::TaskRow row;
  row.id = task.id;
  row.pod = pod.name;
  row.node = pod.node_name;
  row.created = pod.created;
  row.scheduled = pod.scheduled;
  row.started = pod.started;
  row.finished = pod.finished;
  row.queue_seconds = t < g.queue_seconds.size() ? g.queue_seconds[t] : 0;
  row.run_seconds = t < g.run_seconds.size() ? g.run_seconds[t] : 0;
  row.slack_seconds = t < g.critical_path.slack.size() ? g.critical_path.slack[t] : 0;
  row.attempts = task.attempts;
  return row;
}

report::RunSummary summarizeRun(const graph::RunGraph& g, const model::ClusterSnapshot& cluster) {
  const model::WorkflowRun& run = *g.run;
  report::RunSummary s;
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
  for (model::TaskIndex t = 0; t < run.tasks.size(); ++t) {
    s.task_rows.push_back(taskRow(g, cluster, t));
  }
  for (model::TaskIndex t : g.critical_path.tasks) {
    s.critical_path.push_back(run.tasks[t].id);
    s.task_rows[t].on_critical_path = true;
  }
  for (const model::Edge& e : run.edges) {
    s.edge_rows.push_back({run.tasks[e.parent].id, run.tasks[e.child].id, e.inferred});
  }
  s.efficiency = g.efficiency();
  s.wait_share = g.waitShare();
  s.whatif_makespan_seconds = g.whatif_makespan;
  s.whatif_basis = g.whatif_makespan ? std::string(graph::whatIfBasisName(g.whatif_basis)) : "";
  s.whatif_reading = graph::readWhatIf(g);
  s.problems = g.problems;
  return s;
}

std::vector<report::QueryCostRow> queryCostRows(const ingestion::FetchStats& stats) {
  std::vector<report::QueryCostRow> rows;
  for (const ingestion::QueryCost& cost : stats.costs) {
    report::QueryCostRow& row = rows.emplace_back();
    row.query = cost.query;
    row.read = stats.window_read ? "window" : "full";
    row.response_bytes = cost.bytes;
    row.series = cost.series;
    if (cost.backend) {
      row.eval_seconds = cost.backend->eval_seconds;
      row.exec_seconds = cost.backend->exec_seconds;
      row.queryable_samples = cost.backend->queryable_samples;
    }
  }
  return rows;
}

// The stranded-resources detector's rule, per node: the largest stranded free share.
void markStranded(report::NodeRow& row, const analysis::NodeStranding& stranding) {
  if (!stranding.anyStranded()) {
    return;
  }
  const analysis::Resource largest = stranding.largestStranded();
  row.stranded_share = stranding.free_share[static_cast<std::size_t>(largest)];
  row.stranded_resource = std::string(analysis::resourceName(largest));
}

std::vector<report::NodeRow> summarizeNodes(const model::ClusterSnapshot& cluster,
                                            const config::Config& config) {
  std::vector<report::NodeRow> rows;
  for (model::NodeId id = 0; id < cluster.nodes().size(); ++id) {
    const model::Node& node = cluster.node(id);
    report::NodeRow row;
    row.name = node.name;
    row.pool =
        std::string(node.labels.get(config.cluster_labels.pool).value_or(std::string_view{}));
    row.allocatable = node.allocatable;
    row.requested = cluster.requestedOn(id);
    row.pods = cluster.podsOn(id).size();
    row.unschedulable = node.unschedulable;
    markStranded(
        row, analysis::strandingOf(
                 cluster, id, config.detectors.get<analysis::StrandedResourcesSettings>().rule));
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return rows;
}

// Every warning joins the report here, and backends write what they like into theirs (a proxy
// or gateway may echo the request's Authorization header): the report, the API envelope and
// the CLI output all read them from here.
std::vector<std::string> scrubbedWarnings(std::vector<std::string> fetch_warnings,
                                          const std::vector<std::string>& object_warnings) {
  fetch_warnings.insert(fetch_warnings.end(), object_warnings.begin(), object_warnings.end());
  for (std::string& warning : fetch_warnings) {
    warning = scrubSecrets(warning);
  }
  return fetch_warnings;
}

// A daemon asked to stop must exit within its grace period: a stage that would start after the
// request is not run (under a sanitizer, the stages after the fetch take seconds).
std::optional<Error> stopRequested() {
  if (auto stop = Cancellation::process()->stoppedBecause()) {
    return makeError(*stop);
  }
  return std::nullopt;
}

}  // namespace

Result<std::shared_ptr<const report::AnalysisReport>> runAnalysisCycle(
    ingestion::ClusterReader& reader, const config::Config& config, UnixSeconds at,
    const Clock& clock, advice::RecommendationHistory* history,
    std::span<const model::ObjectSourcePtr> objects,
    const std::optional<prediction::RecommendationPredictionOptions>& predict) {
  const auto started = std::chrono::steady_clock::now();
  StageTimer timer;
  ingestion::FetchStats stats;
  stats.max_series = static_cast<std::size_t>(config.sources.prometheus.max_series_per_cycle);
  auto cluster = reader.read(at, stats);
  if (!cluster.ok()) {
    return cluster.error();
  }
  std::vector<std::string> object_warnings;
  for (const model::ObjectSourcePtr& source : objects) {
    model::SchedulingFetch scheduling = source->fetchScheduling();
    cluster->joinSchedulingSpecs(std::move(scheduling.specs));
    std::move(scheduling.warnings.begin(), scheduling.warnings.end(),
              std::back_inserter(object_warnings));
  }
  timer.lap("fetch");
  if (auto stop = stopRequested()) {
    return *stop;
  }
  const auto runs =
      model::buildRunsWithObjects(*cluster, config.workflow_labels, objects, object_warnings);
  timer.lap("runs");
  const std::vector<graph::RunGraph> graphs =
      graph::buildRunGraphs(runs, *cluster, graph::WhatIfTransfer::fromConfig(config));
  timer.lap("graphs");
  cluster->joinNetworkReceive(reader.readNetworkReceive(
      *cluster, graph::finishedTasksWithParents(graphs, *cluster), at, stats));
  timer.lap("network");
  auto detection = analysis::runDetectors(advice::enabledDetectors(config.detectors),
                                          analysis::AnalysisInput{*cluster, graphs, config});
  timer.lap("detectors");
  if (auto stop = stopRequested()) {
    return *stop;
  }

  auto report = std::make_shared<report::AnalysisReport>();
  report->cluster = config.analysis.cluster;
  report->source = reader.describe();
  report->data_time = at;
  report->queries = stats.queries;
  report->bytes_received = stats.bytes;
  report->query_costs = queryCostRows(stats);
  report->warnings = scrubbedWarnings(std::move(stats.warnings), object_warnings);
  report->summary = summarize(*cluster);
  for (const graph::RunGraph& g : graphs) {
    report->runs.push_back(summarizeRun(g, *cluster));
  }
  report->nodes = summarizeNodes(*cluster, config);
  report->scheduler = cluster->scheduler();
  report->recommendations = advice::recommend(detection.findings, config, *cluster);
  timer.lap("advice");
  if (auto stop = stopRequested()) {
    return *stop;
  }
  report->predictions = prediction::predictRecommendations(
      *cluster, graphs, report->recommendations,
      predict.value_or(prediction::RecommendationPredictionOptions::fromConfig(config)));
  timer.lap("predictions");
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
  timer.lap("report");
  timer.log();
  report->analysis_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return std::shared_ptr<const report::AnalysisReport>(std::move(report));
}

}  // namespace dagadvisor::app
