#pragma once

// A small but complete AnalysisReport shared by the report, exporter and server tests. The
// numbers are chosen by hand; tests assert against these literals, never against the code under
// test.

#include <memory>

#include "analysis/detectors/gpu_node_hoarding.h"
#include "report/analysis_report.h"

namespace dagadvisor::testing {

inline constexpr UnixSeconds kSampleDataTime = 1795856400;  // 2026-11-28T09:00:00Z

inline const char* const kSamplePatch =
    "apiVersion: v1\n"
    "kind: Node\n"
    "metadata:\n"
    "  name: gpu-a\n"
    "spec:\n"
    "  taints:\n"
    "    - key: nvidia.com/gpu\n"
    "      effect: NoSchedule\n";

// A toleration for a Deployment's pods (step 1) and a PriorityClass to create (step 2).
inline std::vector<advice::Patch> samplePatches() {
  const nlohmann::ordered_json toleration = {
      {"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}};
  advice::Patch tolerate;
  tolerate.purpose = "tolerate nvidia.com/gpu";
  tolerate.object = {"apps/v1", "Deployment", "ml", {"trainer"}};
  tolerate.variants = {{{"add", "/spec/template/spec/tolerations/-", toleration}}};
  tolerate.command =
      "kubectl patch deployment trainer -n ml --type=json --patch-file <this document>";
  tolerate.pods = advice::PodSelection{"ml", {{"app", "trainer"}}, {"trainer-1"}};
  tolerate.pod_variants = {
      {{"test", "/spec/tolerations", nullptr},
       {"add", "/spec/tolerations", nlohmann::ordered_json::array({toleration})}}};
  advice::Patch create;
  create.step = 2;
  create.purpose = "create the PriorityClass critical";
  create.object = {"scheduling.k8s.io/v1", "PriorityClass", "", {"critical"}};
  create.type = advice::PatchType::kCreate;
  create.document = {
      {"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"value", 1000}};
  create.command = "kubectl apply -f <this document>";
  create.needs_value = "zone";
  return {tolerate, create};
}

inline report::TaskRow sampleTask(const char* id, const char* node, double start, double run,
                                  double queue, bool critical) {
  report::TaskRow t;
  t.id = id;
  t.pod = std::string(id) + "-pod";
  t.node = node;
  t.created = kSampleDataTime - 1000 + start - queue;
  t.scheduled = t.created;
  t.started = kSampleDataTime - 1000 + start;
  t.finished = *t.started + run;
  t.queue_seconds = queue;
  t.run_seconds = run;
  t.slack_seconds = critical ? 0 : 120;
  t.on_critical_path = critical;
  return t;
}

inline report::RunSummary sampleRun(const char* ns, const char* dag, const char* run,
                                    double makespan, double critical) {
  report::RunSummary r;
  r.namespace_ = ns;
  r.dag = dag;
  r.run = run;
  r.id = std::string(ns) + "/" + dag + "/" + run;
  r.engine = "labels";
  r.tasks = 4;
  r.edges = 3;
  r.finished = true;
  r.makespan_seconds = makespan;
  r.critical_path_seconds = critical;
  r.efficiency = critical / makespan;
  r.critical_path = {"extract", "transform", "load"};
  r.wait_share = 0.25;
  r.whatif_makespan_seconds = makespan * 0.8;
  r.whatif_basis = "observed";
  r.whatif_reading = graph::WhatIfReading{graph::WhatIfVerdict::kGain, makespan * 0.2};
  // On cpu-1, extract ends at 100 and transform starts at 150: a 50 s idle gap.
  r.task_rows = {sampleTask("extract", "cpu-1", 0, 100, 10, true),
                 sampleTask("transform", "cpu-1", 150, 200, 40, true),
                 sampleTask("load", "cpu-2", 350, 150, 0, true),
                 sampleTask("notify", "cpu-2", 120, 30, 300, false)};
  r.edge_rows = {
      {"extract", "transform", false}, {"transform", "load", false}, {"extract", "notify", true}};
  return r;
}

// A finding without evidence: the report views only render it.
inline analysis::Finding sampleFinding(const char* kind, analysis::Severity severity,
                                       const char* target) {
  analysis::Finding f;
  f.kind = kind;
  f.severity = severity;
  f.target = target;
  f.summary = std::string(kind) + " on " + target;
  f.impact = 1;
  return f;
}

inline analysis::Finding sampleHoardingFinding(analysis::Severity severity, const char* node,
                                               std::int64_t free_gpus, double cpu_share) {
  analysis::GpuNodeHoardingEvidence evidence;
  evidence.node = node;
  evidence.free.gpus = free_gpus;
  evidence.non_gpu_cpu_share = cpu_share;
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = severity;
  f.target = std::string("node/") + node;
  f.summary = "gpu-node-hoarding on " + f.target;
  f.impact = static_cast<double>(free_gpus);
  return f;
}

inline advice::Recommendation sampleRecommendation(const char* id, const char* kind,
                                                   analysis::Severity severity,
                                                   const char* target) {
  advice::Recommendation r;
  r.id = id;
  r.kind = kind;
  r.severity = severity;
  r.target = target;
  r.title = std::string("Fix ") + kind;
  r.action = "do the thing";
  r.impact = "saves time";
  r.first_seen = kSampleDataTime - 3600;
  r.last_seen = kSampleDataTime;
  return r;
}

inline report::NodeRow sampleNode(const char* name, const char* pool,
                                  model::ResourceVector allocatable,
                                  model::ResourceVector requested) {
  report::NodeRow n;
  n.name = name;
  n.pool = pool;
  n.allocatable = allocatable;
  n.requested = requested;
  n.pods = 3;
  return n;
}

inline std::shared_ptr<report::AnalysisReport> sampleReport() {
  using analysis::Severity;
  auto report = std::make_shared<report::AnalysisReport>();
  report->cluster = "prod-eu";
  report->source = "prometheus http://127.0.0.1:9090";
  report->data_time = kSampleDataTime;
  report->generated_at = kSampleDataTime + 2;
  report->analysis_seconds = 0.42;
  report->queries = 12;
  report->bytes_received = 34567;
  report->warnings = {"partial data: 3 pods without labels"};
  report->summary = {12, 4, 340, 300, 7, 32, 20};
  report->runs = {sampleRun("etl", "daily", "r1", 600, 450),
                  sampleRun("ml", "train", "2026-11-28", 7200, 3600),
                  sampleRun("etl", "daily", "r2", 900, 450)};
  report->findings = {sampleHoardingFinding(Severity::kCritical, "gpu-a", 6, 0.82),
                      sampleHoardingFinding(Severity::kWarning, "gpu-b", 2, 0.25),
                      sampleFinding("split-dependencies", Severity::kInfo, "run/etl/daily/r1"),
                      sampleFinding("dag-stacking", Severity::kWarning, "run/ml/train/2026-11-28")};

  auto hoarding = sampleRecommendation("gpu-node-hoarding-3f9a1c2b", "gpu-node-hoarding",
                                       Severity::kCritical, "cluster/prod-eu");
  hoarding.title = "Taint GPU nodes so that non-GPU pods stop holding them";
  hoarding.instances = {"node/gpu-a", "node/gpu-b"};
  hoarding.patch_yaml = kSamplePatch;
  hoarding.patches = samplePatches();
  hoarding.evidence = {{"free_gpus", 8}, {"pending_gpu_pods", 3}};
  hoarding.impact = "frees 8 GPUs for 3 pending GPU pods";
  hoarding.impact_score = 8;
  auto stacking = sampleRecommendation("dag-stacking-aa11", "dag-stacking", Severity::kWarning,
                                       "run/ml/train/2026-11-28");
  auto split = sampleRecommendation("split-dependencies-bb22", "split-dependencies",
                                    Severity::kInfo, "cluster/prod-eu");
  split.evidence = {{"namespaces", {"etl", "reporting"}}, {"dag", "daily"}};
  report->recommendations = {hoarding, stacking, split};
  report->nodes = {sampleNode("cpu-1", "cpu", {16000, 64LL << 30, 0}, {15800, 20LL << 30, 0}),
                   sampleNode("gpu-a", "gpu", {32000, 256LL << 30, 8}, {30000, 100LL << 30, 2})};
  report->nodes[0].stranded_share = 0.6875;  // 44 of 64 GiB free while CPU is exhausted
  report->nodes[0].stranded_resource = "memory";
  report->scheduler.present = true;
  report->scheduler.latency_metric = "scheduler_pod_scheduling_sli_duration_seconds";
  report->scheduler.latency = {{"default-scheduler", 0.02, 0.5, 1.5, 3.0},
                               {"gpu-scheduler", std::nullopt, std::nullopt, std::nullopt, 0}};
  report->scheduler.pending_by_queue = {{"active", 2}, {"unschedulable", 5}};
  report->detectors = {{"gpu_node_hoarding", 0.012, true, "", 2, ""},
                       {"dag_stacking", 0.003, false, "no runs", 0, ""}};
  return report;
}

}  // namespace dagadvisor::testing
