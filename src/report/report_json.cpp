#include "report/report_json.h"

#include <algorithm>

#include "common/duration.h"
#include "report/prediction_json.h"

namespace dagadvisor::report {
namespace {

using nlohmann::json;

struct Scope {
  std::string namespace_;
  std::string dag;
};

std::vector<std::string> splitPath(std::string_view text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t slash = std::min(text.find('/', start), text.size());
    parts.emplace_back(text.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// Targets name their scope by a kind prefix; only the kinds below carry a namespace or DAG.
Scope scopeOf(std::string_view target) {
  const auto parts = splitPath(target);
  Scope scope;
  if (parts.size() < 2) {
    return scope;
  }
  const std::string& kind = parts[0];
  if (kind == "run" || kind == "dag" || kind == "pod" || kind == "namespace") {
    scope.namespace_ = parts[1];
  }
  // "run/<ns>/<run>" (no DAG) is accepted as well as "run/<ns>/<dag>/<run>".
  if ((kind == "run" && parts.size() >= 4) || (kind == "dag" && parts.size() >= 3)) {
    scope.dag = parts[2];
  }
  return scope;
}

bool evidenceNames(const json& evidence, const char* one, const char* many,
                   const std::string& wanted) {
  if (!evidence.is_object()) {
    return false;
  }
  const auto single = evidence.find(one);
  if (single != evidence.end() && single->is_string() && single->get<std::string>() == wanted) {
    return true;
  }
  const auto list = evidence.find(many);
  if (list == evidence.end() || !list->is_array()) {
    return false;
  }
  return std::any_of(list->begin(), list->end(), [&](const json& item) {
    return item.is_string() && item.get<std::string>() == wanted;
  });
}

bool scopeMatches(const advice::Recommendation& rec, std::string Scope::*member,
                  const std::string& wanted, const char* one, const char* many) {
  if (scopeOf(rec.target).*member == wanted) {
    return true;
  }
  const bool in_instances =
      std::any_of(rec.instances.begin(), rec.instances.end(),
                  [&](const std::string& t) { return scopeOf(t).*member == wanted; });
  return in_instances || evidenceNames(rec.evidence, one, many, wanted);
}

json stringArray(const std::vector<std::string>& items) {
  json out = json::array();
  for (const auto& item : items) {
    out.push_back(item);
  }
  return out;
}

json optionalNumber(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

json optionalTime(const std::optional<UnixSeconds>& value) {
  return value ? json(formatTimestamp(*value)) : json(nullptr);
}

json resourcesJson(const model::ResourceVector& r) {
  return json{{"cpu_cores", static_cast<double>(r.cpu_millis) / 1000.0},
              {"memory_bytes", r.memory_bytes},
              {"gpus", r.gpus}};
}

// What the what-if says against the run's time: `whatif_verdict` and, for a gain, its seconds.
void writeWhatIf(json& out, const report::RunSummary& run) {
  out["whatif_makespan_seconds"] = optionalNumber(run.whatif_makespan_seconds);
  out["whatif_basis"] = run.whatif_basis.empty() ? json() : json(run.whatif_basis);
  const auto& reading = run.whatif_reading;
  out["whatif_verdict"] = reading ? json(graph::whatIfVerdictName(reading->verdict)) : json();
  out["whatif_gain_seconds"] =
      reading && reading->gain_seconds > 0 ? json(reading->gain_seconds) : json();
}

}  // namespace

std::optional<analysis::Severity> parseSeverity(std::string_view text) {
  for (auto s :
       {analysis::Severity::kInfo, analysis::Severity::kWarning, analysis::Severity::kCritical}) {
    if (analysis::severityName(s) == text) {
      return s;
    }
  }
  return std::nullopt;
}

bool matches(const advice::Recommendation& rec, const RecommendationFilter& filter) {
  if (!filter.kind.empty() && rec.kind != filter.kind) {
    return false;
  }
  if (filter.min_severity &&
      static_cast<int>(rec.severity) < static_cast<int>(*filter.min_severity)) {
    return false;
  }
  if (!filter.namespace_.empty() &&
      !scopeMatches(rec, &Scope::namespace_, filter.namespace_, "namespace", "namespaces")) {
    return false;
  }
  return filter.dag.empty() || scopeMatches(rec, &Scope::dag, filter.dag, "dag", "dags");
}

json podsJson(const advice::PodSelection& pods) {
  json labels = json::object();
  for (const auto& [key, value] : pods.match_labels) {
    labels[key] = value;
  }
  return {{"namespace", pods.namespace_},
          {"match_labels", std::move(labels)},
          {"names", stringArray(pods.names)}};
}

// docs/api.md "Patches": the typed changes patch_yaml is rendered from.
json patchJson(const advice::Patch& patch) {
  const advice::PatchObject& object = patch.object;
  json out{{"step", patch.step},
           {"purpose", patch.purpose},
           {"object",
            {{"api_version", object.api_version},
             {"kind", object.kind},
             {"namespace", object.namespace_},
             {"names", stringArray(object.names)}}},
           {"type", advice::patchTypeName(patch.type)}};
  const bool typed_json = patch.type == advice::PatchType::kJson;
  if (typed_json) {
    out["variants"] = json(advice::variantsJson(patch.variants));
  } else {
    out["document"] = json(patch.document);
  }
  out["command"] = patch.command;
  if (patch.pods) {
    out["pods"] = podsJson(*patch.pods);
    if (typed_json) {
      out["pod_variants"] = json(advice::variantsJson(patch.pod_variants));
    } else if (patch.type == advice::PatchType::kStrategicMerge) {
      out["pod_document"] = json(patch.pod_document);
    }
  }
  if (!patch.needs_value.empty()) {
    out["needs_value"] = patch.needs_value;
  }
  return out;
}

json patchesJson(const std::vector<advice::Patch>& patches) {
  json out = json::array();
  for (const advice::Patch& patch : patches) {
    out.push_back(patchJson(patch));
  }
  return out;
}

json recommendationJson(const advice::Recommendation& rec, const report::AnalysisReport* report) {
  json out{{"id", rec.id},
           {"kind", rec.kind},
           {"severity", analysis::severityName(rec.severity)},
           {"title", rec.title},
           {"target", rec.target},
           {"instances", stringArray(rec.instances)},
           {"action", rec.action},
           {"patch_yaml", rec.patch_yaml},
           {"patches", patchesJson(rec.patches)},
           {"evidence", rec.evidence},
           {"impact", rec.impact},
           {"impact_score", rec.impact_score},
           {"first_seen", formatTimestamp(rec.first_seen)},
           {"last_seen", formatTimestamp(rec.last_seen)}};
  if (report != nullptr) {
    out["predicted"] = predictedJson(*report, rec);
  }
  return out;
}

json recommendationsJson(const report::AnalysisReport& report, const RecommendationFilter& filter) {
  json out = json::array();
  for (const auto& rec : report.recommendations) {
    if (matches(rec, filter)) {
      out.push_back(recommendationJson(rec, &report));
    }
  }
  return out;
}

json findingJson(const analysis::Finding& finding) {
  return json{{"kind", finding.kind},
              {"severity", analysis::severityName(finding.severity)},
              {"target", finding.target},
              {"summary", finding.summary},
              {"evidence", finding.evidenceJson()},
              {"impact", finding.impact}};
}

json findingsJson(const report::AnalysisReport& report) {
  json out = json::array();
  for (const auto& finding : report.findings) {
    out.push_back(findingJson(finding));
  }
  return out;
}

json runJson(const report::RunSummary& run) {
  // An unfinished run has no makespan: its time so far is elapsed_seconds, never makespan.
  json out{{"id", run.id},
           {"namespace", run.namespace_},
           {"dag", run.dag},
           {"run", run.run},
           {"engine", run.engine},
           {"tasks", run.tasks},
           {"edges", run.edges},
           {"finished", run.finished},
           {"status", run.finished ? "finished" : "unfinished"},
           {"makespan_seconds", run.finished ? json(run.makespan_seconds) : json()},
           {"elapsed_seconds", run.makespan_seconds},
           {"critical_path_seconds", run.critical_path_seconds},
           {"critical_path", stringArray(run.critical_path)},
           {"efficiency", run.efficiency},
           {"wait_share", run.wait_share},
           {"problems", stringArray(run.problems)}};
  writeWhatIf(out, run);
  return out;
}

json runDetailJson(const report::RunSummary& run) {
  json out = runJson(run);
  json tasks = json::array();
  for (const auto& t : run.task_rows) {
    tasks.push_back(json{{"id", t.id},
                         {"pod", t.pod},
                         {"node", t.node},
                         {"created", optionalTime(t.created)},
                         {"scheduled", optionalTime(t.scheduled)},
                         {"started", optionalTime(t.started)},
                         {"finished", optionalTime(t.finished)},
                         {"queue_seconds", t.queue_seconds},
                         {"run_seconds", t.run_seconds},
                         {"slack_seconds", t.slack_seconds},
                         {"on_critical_path", t.on_critical_path},
                         {"attempts", t.attempts}});
  }
  json edges = json::array();
  for (const auto& e : run.edge_rows) {
    edges.push_back(json{{"parent", e.parent}, {"child", e.child}, {"inferred", e.inferred}});
  }
  out["tasks_detail"] = std::move(tasks);
  out["edges_detail"] = std::move(edges);
  return out;
}

const report::RunSummary* findRun(const report::AnalysisReport& report, std::string_view key) {
  for (const auto& run : report.runs) {
    if (run.id == key) {
      return &run;
    }
  }
  // A bare run name is accepted when it is unambiguous in the report.
  const report::RunSummary* found = nullptr;
  for (const auto& run : report.runs) {
    if (run.run == key) {
      if (found != nullptr) {
        return nullptr;
      }
      found = &run;
    }
  }
  return found;
}

json nodesJson(const report::AnalysisReport& report) {
  json out = json::array();
  for (const auto& n : report.nodes) {
    out.push_back(json{{"name", n.name},
                       {"pool", n.pool},
                       {"allocatable", resourcesJson(n.allocatable)},
                       {"requested", resourcesJson(n.requested)},
                       {"pods", n.pods},
                       {"unschedulable", n.unschedulable},
                       {"stranded_share", n.stranded_share},
                       {"stranded_resource", n.stranded_resource}});
  }
  return out;
}

json schedulingJson(const report::AnalysisReport& report) {
  const model::SchedulerStats& s = report.scheduler;
  json latency = json::array();
  for (const auto& p : s.latency) {
    latency.push_back(json{{"profile", p.profile},
                           {"p50_seconds", optionalNumber(p.p50)},
                           {"p95_seconds", optionalNumber(p.p95)},
                           {"p99_seconds", optionalNumber(p.p99)},
                           {"pods_per_second", p.pods_per_second}});
  }
  return json{{"present", s.present},
              {"latency_metric", s.latency_metric},
              {"latency", std::move(latency)},
              {"pending_by_queue", s.pending_by_queue},
              {"unschedulable_by_plugin", s.unschedulable_by_plugin},
              {"attempts_per_second", s.attempts_per_second},
              {"preemption_attempts_per_second", s.preemption_attempts_per_second},
              {"extension_point_p99_seconds", s.extension_point_p99}};
}

json runsJson(const report::AnalysisReport& report) {
  json out = json::array();
  for (const auto& run : report.runs) {
    out.push_back(runJson(run));
  }
  return out;
}

json clusterSummaryJson(const report::ClusterSummary& summary) {
  return json{{"nodes", summary.nodes},
              {"gpu_nodes", summary.gpu_nodes},
              {"pods", summary.pods},
              {"running_pods", summary.running_pods},
              {"pending_pods", summary.pending_pods},
              {"gpus_allocatable", summary.gpus_allocatable},
              {"gpus_requested", summary.gpus_requested}};
}

json detectorsJson(const report::AnalysisReport& report) {
  json out = json::array();
  for (const auto& d : report.detectors) {
    out.push_back(json{{"name", d.name},
                       {"seconds", d.seconds},
                       {"ok", d.ok},
                       {"error", d.error},
                       {"findings", d.findings},
                       {"no_advice_reason",
                        d.no_advice_reason.empty() ? json(nullptr) : json(d.no_advice_reason)}});
  }
  return out;
}

std::string dumpJson(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

json envelopeJson(const report::AnalysisReport& report, UnixSeconds now, bool stale) {
  return json{{"cluster", report.cluster},
              {"generated_at", formatTimestamp(report.generated_at)},
              {"data_time", formatTimestamp(report.data_time)},
              {"data_age_seconds", std::max(0.0, now - report.data_time)},
              {"stale", stale},
              {"warnings", stringArray(report.warnings)}};
}

std::string wrapEnvelope(const json& envelope,
                         const std::vector<std::pair<std::string, std::string>>& payloads) {
  std::string body = dumpJson(envelope);
  body.pop_back();  // the closing '}' of the envelope object; reopened below
  for (const auto& [key, payload] : payloads) {
    body += body.size() > 1 ? "," : "";
    body += dumpJson(key);
    body += ':';
    body += payload;
  }
  body += '}';
  return body;
}

json reportJson(const report::AnalysisReport& report, UnixSeconds now, bool stale) {
  json out = envelopeJson(report, now, stale);
  out["source"] = report.source;
  out["analysis_seconds"] = report.analysis_seconds;
  out["queries"] = report.queries;
  out["bytes_received"] = report.bytes_received;
  out["summary"] = clusterSummaryJson(report.summary);
  out["detectors"] = detectorsJson(report);
  out["recommendations"] = recommendationsJson(report);
  out["prediction"] = predictionSummaryJson(report);
  out["findings"] = findingsJson(report);
  out["dags"] = runsJson(report);
  out["nodes"] = nodesJson(report);
  out["scheduling"] = schedulingJson(report);
  return out;
}

}  // namespace dagadvisor::report
