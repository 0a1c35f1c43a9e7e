#include "report/report_json.h"

#include <catch2/catch.hpp>

#include "unit/report/sample_report.h"

using dagadvisor::analysis::Severity;
using dagadvisor::report::RecommendationFilter;
using nlohmann::json;
namespace report = dagadvisor::report;
namespace t = dagadvisor::testing;

namespace {

std::vector<std::string> ids(const json& recommendations) {
  std::vector<std::string> out;
  for (const auto& r : recommendations) {
    out.push_back(r.at("id").get<std::string>());
  }
  return out;
}

std::vector<std::string> filtered(const RecommendationFilter& filter) {
  return ids(report::recommendationsJson(*t::sampleReport(), filter));
}

}  // namespace

TEST_CASE("a recommendation is rendered with snake_case API field names") {
  const json rec = report::recommendationJson(t::sampleReport()->recommendations.front());
  CHECK(rec.at("id") == "gpu-node-hoarding-3f9a1c2b");
  CHECK(rec.at("kind") == "gpu-node-hoarding");
  CHECK(rec.at("severity") == "critical");
  CHECK(rec.at("title") == "Taint GPU nodes so that non-GPU pods stop holding them");
  CHECK(rec.at("target") == "cluster/prod-eu");
  CHECK(rec.at("instances") == json({"node/gpu-a", "node/gpu-b"}));
  CHECK(rec.at("action") == "do the thing");
  CHECK(rec.at("patch_yaml") == t::kSamplePatch);
  CHECK(rec.at("evidence").at("free_gpus") == 8);
  CHECK(rec.at("impact") == "frees 8 GPUs for 3 pending GPU pods");
  CHECK(rec.at("impact_score") == 8.0);
  CHECK(rec.at("first_seen") == "2026-11-28T08:00:00Z");
  CHECK(rec.at("last_seen") == "2026-11-28T09:00:00Z");
  CHECK(rec.at("patches").size() == 2);
  CHECK(rec.size() == 14);
}

TEST_CASE("a recommendation's patches carry the agreed fields, only where their type has them") {
  const json patches =
      report::recommendationJson(t::sampleReport()->recommendations.front()).at("patches");
  const json& tolerate = patches.at(0);
  CHECK(tolerate.at("step") == 1);
  CHECK(tolerate.at("purpose") == "tolerate nvidia.com/gpu");
  CHECK(tolerate.at("object") == json({{"api_version", "apps/v1"},
                                       {"kind", "Deployment"},
                                       {"namespace", "ml"},
                                       {"names", {"trainer"}}}));
  CHECK(tolerate.at("type") == "json");
  const json& op = tolerate.at("variants").at(0).at(0);
  CHECK(op.at("op") == "add");
  CHECK(op.at("path") == "/spec/template/spec/tolerations/-");
  CHECK(op.at("value").at("key") == "nvidia.com/gpu");
  CHECK_FALSE(tolerate.contains("document"));
  CHECK(tolerate.at("command").get<std::string>().rfind("kubectl patch deployment trainer", 0) ==
        0);
  CHECK(tolerate.at("pods") == json({{"namespace", "ml"},
                                     {"match_labels", {{"app", "trainer"}}},
                                     {"names", {"trainer-1"}}}));
  const json& guard = tolerate.at("pod_variants").at(0);
  CHECK(guard.at(0) == json({{"op", "test"}, {"path", "/spec/tolerations"}, {"value", nullptr}}));
  CHECK(guard.at(1).at("value").at(0).at("effect") == "NoSchedule");
  CHECK_FALSE(tolerate.contains("needs_value"));
  CHECK(tolerate.size() == 8);

  const json& create = patches.at(1);
  CHECK(create.at("step") == 2);
  CHECK(create.at("type") == "create");
  CHECK(create.at("object").at("namespace") == "");
  CHECK(create.at("document").at("value") == 1000);
  CHECK_FALSE(create.contains("variants"));
  CHECK_FALSE(create.contains("pods"));
  CHECK_FALSE(create.contains("pod_variants"));
  CHECK(create.at("needs_value") == "zone");
}

TEST_CASE("findings, runs, summary and detectors carry their documented fields") {
  const auto r = t::sampleReport();
  const json finding = report::findingsJson(*r).at(0);
  CHECK(finding.at("kind") == "gpu-node-hoarding");
  CHECK(finding.at("severity") == "critical");
  CHECK(finding.at("target") == "node/gpu-a");
  CHECK(finding.at("evidence").at("non_gpu_cpu_share") == 0.82);
  CHECK(finding.contains("summary"));
  CHECK(finding.contains("impact"));

  const json runs = report::runsJson(*r);
  REQUIRE(runs.size() == 3);
  const json& run = runs.at(1);
  CHECK(run.at("id") == "ml/train/2026-11-28");
  CHECK(run.at("namespace") == "ml");
  CHECK(run.at("dag") == "train");
  CHECK(run.at("run") == "2026-11-28");
  CHECK(run.at("makespan_seconds") == 7200.0);
  CHECK(run.at("critical_path_seconds") == 3600.0);
  CHECK(run.at("efficiency") == 0.5);
  CHECK(run.at("critical_path") == json({"extract", "transform", "load"}));
  for (const char* key : {"engine", "tasks", "edges", "finished", "problems"}) {
    CHECK(run.contains(key));
  }

  const json summary = report::clusterSummaryJson(r->summary);
  CHECK(summary == json{{"nodes", 12},
                        {"gpu_nodes", 4},
                        {"pods", 340},
                        {"running_pods", 300},
                        {"pending_pods", 7},
                        {"gpus_allocatable", 32},
                        {"gpus_requested", 20}});
  const json detectors = report::detectorsJson(*r);
  CHECK(detectors.at(1) == json{{"name", "dag_stacking"},
                                {"seconds", 0.003},
                                {"ok", false},
                                {"error", "no runs"},
                                {"findings", 0},
                                {"no_advice_reason", nullptr}});
}

TEST_CASE("a detector that had no data to judge carries its reason") {
  auto r = t::sampleReport();
  r->detectors.push_back({"over-request", 0.001, true, "", 0, "no usage samples"});
  const json detectors = report::detectorsJson(*r);
  CHECK(detectors.at(0).at("no_advice_reason").is_null());
  CHECK(detectors.at(2).at("no_advice_reason") == "no usage samples");
}

TEST_CASE("recommendation filters: kind, minimum severity, namespace, dag") {
  CHECK(filtered({}) == std::vector<std::string>{"gpu-node-hoarding-3f9a1c2b", "dag-stacking-aa11",
                                                 "split-dependencies-bb22"});
  CHECK(filtered({"dag-stacking", {}, "", ""}) == std::vector<std::string>{"dag-stacking-aa11"});
  CHECK(filtered({"", Severity::kWarning, "", ""}) ==
        std::vector<std::string>{"gpu-node-hoarding-3f9a1c2b", "dag-stacking-aa11"});
  CHECK(filtered({"", Severity::kCritical, "", ""}) ==
        std::vector<std::string>{"gpu-node-hoarding-3f9a1c2b"});
  // namespace from the target "run/ml/…" and from the evidence list "namespaces"
  CHECK(filtered({"", {}, "ml", ""}) == std::vector<std::string>{"dag-stacking-aa11"});
  CHECK(filtered({"", {}, "reporting", ""}) == std::vector<std::string>{"split-dependencies-bb22"});
  CHECK(filtered({"", {}, "", "train"}) == std::vector<std::string>{"dag-stacking-aa11"});
  CHECK(filtered({"", {}, "", "daily"}) == std::vector<std::string>{"split-dependencies-bb22"});
  CHECK(filtered({"", Severity::kWarning, "etl", ""}).empty());
  CHECK(filtered({"no-such-kind", {}, "", ""}).empty());
}

TEST_CASE("namespace and dag are read from instances and every target form") {
  auto rec = t::sampleRecommendation("x", "k", Severity::kInfo, "node/n1");
  CHECK_FALSE(report::matches(rec, {"", {}, "n1", ""}));  // a node is not a namespace
  rec.instances = {"pod/team-a/p1"};
  CHECK(report::matches(rec, {"", {}, "team-a", ""}));
  rec.target = "dag/team-b/nightly";
  CHECK(report::matches(rec, {"", {}, "team-b", "nightly"}));
  rec.target = "run/team-c/r7";  // run without a DAG part
  CHECK(report::matches(rec, {"", {}, "team-c", ""}));
  CHECK_FALSE(report::matches(rec, {"", {}, "", "r7"}));
  rec.evidence = json::array({1, 2});  // evidence that is not an object is ignored, not fatal
  CHECK_FALSE(report::matches(rec, {"", {}, "", "nightly"}));
}

TEST_CASE("severity names parse back; anything else is refused") {
  CHECK(report::parseSeverity("info") == Severity::kInfo);
  CHECK(report::parseSeverity("warning") == Severity::kWarning);
  CHECK(report::parseSeverity("critical") == Severity::kCritical);
  CHECK_FALSE(report::parseSeverity("Critical"));
  CHECK_FALSE(report::parseSeverity(""));
}

TEST_CASE("the envelope carries cluster, times, age, staleness and warnings") {
  const auto r = t::sampleReport();
  const json env = report::envelopeJson(*r, t::kSampleDataTime + 90, true);
  CHECK(env == json{{"cluster", "prod-eu"},
                    {"generated_at", "2026-11-28T09:00:02Z"},
                    {"data_time", "2026-11-28T09:00:00Z"},
                    {"data_age_seconds", 90.0},
                    {"stale", true},
                    {"warnings", {"partial data: 3 pods without labels"}}});
  // a clock behind the data never yields a negative age
  CHECK(report::envelopeJson(*r, t::kSampleDataTime - 5, false).at("data_age_seconds") == 0.0);
}

TEST_CASE("wrapEnvelope splices cached payloads into one valid JSON object") {
  const json env = {{"cluster", "c"}, {"stale", false}};
  const std::string body = report::wrapEnvelope(env, {{"items", "[1,2]"}, {"more", "{\"a\":1}"}});
  CHECK(json::parse(body) ==
        json{{"cluster", "c"}, {"stale", false}, {"items", {1, 2}}, {"more", {{"a", 1}}}});
  CHECK(json::parse(report::wrapEnvelope(json::object(), {{"x", "3"}})) == json{{"x", 3}});
}

TEST_CASE("the whole report document has every section") {
  const json doc = report::reportJson(*t::sampleReport(), t::kSampleDataTime + 2, false);
  for (const char* key : {"cluster", "generated_at", "data_time", "data_age_seconds", "stale",
                          "warnings", "source", "analysis_seconds", "queries", "bytes_received",
                          "summary", "detectors", "recommendations", "findings", "dags"}) {
    CHECK(doc.contains(key));
  }
  CHECK(doc.at("recommendations").size() == 3);
  CHECK(doc.at("findings").size() == 4);
  CHECK(doc.at("dags").size() == 3);
  CHECK(doc.at("queries") == 12);
}

TEST_CASE("invalid UTF-8 from cluster data is replaced, never thrown") {
  auto r = t::sampleReport();
  r->cluster = "bad\xff";
  const std::string body = report::wrapEnvelope(report::envelopeJson(*r, 0, false), {});
  CHECK(json::parse(body).at("cluster") == "bad\xEF\xBF\xBD");
  CHECK(report::dumpJson(json("x\xc3")) == "\"x\xEF\xBF\xBD\"");
}

TEST_CASE("an unfinished run has no makespan in the JSON: its time is elapsed_seconds") {
  auto r = t::sampleReport();
  r->runs[1].finished = false;
  r->runs[1].whatif_basis = "estimated";
  r->runs[1].whatif_reading =
      dagadvisor::graph::WhatIfReading{dagadvisor::graph::WhatIfVerdict::kEstimate, 0};
  const json runs = report::runsJson(*r);
  const json& unfinished = runs.at(1);
  CHECK(unfinished.at("finished") == false);
  CHECK(unfinished.at("status") == "unfinished");
  CHECK(unfinished.at("makespan_seconds").is_null());
  CHECK(unfinished.at("elapsed_seconds") == 7200.0);
  CHECK(unfinished.at("whatif_verdict") == "estimate");
  CHECK(unfinished.at("whatif_gain_seconds").is_null());
  const json& finished = runs.at(0);
  CHECK(finished.at("status") == "finished");
  CHECK(finished.at("makespan_seconds") == 600.0);
  CHECK(finished.at("elapsed_seconds") == 600.0);
  CHECK(finished.at("whatif_verdict") == "gain");
  CHECK(finished.at("whatif_gain_seconds") == Approx(120));
  r->runs[0].whatif_reading.reset();
  CHECK(report::runsJson(*r).at(0).at("whatif_verdict").is_null());
}
