#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "report/analysis_report.h"

// The one file that knows the API's field names (snake_case). The HTTP API, `analyze --output
// json|yaml` and the tests all render through these functions, so a field is renamed here or
// nowhere.
namespace dagadvisor::report {

/// Which recommendations a caller wants; every empty/unset member matches everything.
struct RecommendationFilter {
  std::string kind;                                // exact kind, e.g. "gpu-node-hoarding"
  std::optional<analysis::Severity> min_severity;  // this severity or worse
  std::string namespace_;  // recommendations scoped to this namespace (see matches())
  std::string dag;         // recommendations scoped to this DAG id

  bool empty() const { return kind.empty() && !min_severity && namespace_.empty() && dag.empty(); }
};

/// True when `rec` passes `filter`. Namespace and DAG come from the recommendation's target and
/// instances ("run/<ns>/<dag>/<run>", "dag/<ns>/<dag>", "pod/<ns>/<pod>", "namespace/<ns>") and
/// from the evidence keys "namespace"/"namespaces" and "dag"/"dags" (string or array of strings).
/// A cluster- or node-scoped recommendation has neither and fails a namespace or DAG filter.
bool matches(const advice::Recommendation& rec, const RecommendationFilter& filter);

/// Parses "info", "warning", "critical" (as analysis::severityName spells them).
std::optional<analysis::Severity> parseSeverity(std::string_view text);

/// With `report`, the recommendation's `predicted` too (report/prediction_json.h).
nlohmann::json recommendationJson(const advice::Recommendation& rec,
                                  const report::AnalysisReport* report = nullptr);
/// The ranked recommendations that pass `filter`, as a JSON array (report order kept).
nlohmann::json recommendationsJson(const report::AnalysisReport& report,
                                   const RecommendationFilter& filter = {});

nlohmann::json findingJson(const analysis::Finding& finding);
nlohmann::json findingsJson(const report::AnalysisReport& report);

nlohmann::json runJson(const report::RunSummary& run);
/// Every run of the report, as the API's `dags` array.
nlohmann::json runsJson(const report::AnalysisReport& report);
/// One run with its task rows and edges (`/api/v1/dags/{run}`): runJson plus `tasks_detail`
/// and `edges_detail`.
nlohmann::json runDetailJson(const report::RunSummary& run);
/// The run whose id ("<ns>/<dag>/<run>") or run name equals `key`, or null.
const report::RunSummary* findRun(const report::AnalysisReport& report, std::string_view key);

/// The node rows (`/api/v1/nodes`): allocation per resource, pool, stranded share.
nlohmann::json nodesJson(const report::AnalysisReport& report);
/// The scheduler's statistics (`/api/v1/scheduling`): latency quantiles by profile, queues,
/// unschedulable pods by plugin, attempt rates.
nlohmann::json schedulingJson(const report::AnalysisReport& report);

nlohmann::json clusterSummaryJson(const report::ClusterSummary& summary);
nlohmann::json detectorsJson(const report::AnalysisReport& report);

/// Serialises compactly; invalid UTF-8 (from cluster labels or URLs) is replaced by U+FFFD
/// instead of throwing, so rendering never fails on bad input.
std::string dumpJson(const nlohmann::json& value);

/// The fields every analysis response carries: cluster, generated_at and data_time (RFC 3339),
/// data_age_seconds (now − data_time, never negative: the age of the data the analysis
/// describes, the same definition as the dagadvisor_data_age_seconds metric), stale, warnings.
nlohmann::json envelopeJson(const report::AnalysisReport& report, UnixSeconds now, bool stale);

/// One response body: the envelope's fields followed by each (key, already-serialised JSON)
/// pair. Lets servers cache the big payloads as text and add the time-dependent envelope per
/// request without re-serialising the payload. `envelope` must be a JSON object.
std::string wrapEnvelope(const nlohmann::json& envelope,
                         const std::vector<std::pair<std::string, std::string>>& payloads);

/// The whole report as one document (`analyze --output json|yaml`): the envelope plus source,
/// analysis_seconds, queries, bytes_received, summary, detectors, recommendations, findings, dags,
/// nodes, scheduling.
nlohmann::json reportJson(const report::AnalysisReport& report, UnixSeconds now, bool stale);

}  // namespace dagadvisor::report
