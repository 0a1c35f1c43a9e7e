// The discrete-event simulation: pods arrive, a kube-scheduler emulation places them one at a
// time, tasks start when their parents finish. The result is a History of every object with
// its timestamps, from which the metrics and the ground truth are derived.
#pragma once

#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "kube.h"
#include "scenario.h"

namespace dagadvisor::sim {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr double kBytesPerGb = 1e9;  // a task's output_gb, in decimal gigabytes

struct Node {
  std::string name;
  std::string pool;
  std::string nodeType;
  std::string accelerator;
  std::string zone;
  std::string ip;
  std::string gpuModel;
  KeyValues labels;  // hostname, node-type, zone, accelerator, and what the advice added
  Resources capacity;
  Resources allocatable;
  std::vector<Taint> taints;
  Resources used;             // requests of the pods bound right now
  std::vector<int> gpuOwner;  // pod id per GPU device, -1 when free
};

enum class PodKind { kDaemonSet, kDeployment, kTask };

/// One parent's output fetched by a task: `seconds` at the start of its run (0 from its own node).
struct Fetch {
  double bytes = 0;
  double seconds = 0;
};

/// Bytes received `elapsed` seconds into the run: the fetches one after the other, each at a
/// constant rate, as the pod's network receive counter shows them.
double receivedBytes(const std::vector<Fetch>& fetches, double elapsed);

/// What a pod uses while it runs, as cAdvisor (or kwok's emulation of the kubelet) reports it.
struct ModelledUsage {
  double cores = 0;
  double workingSetBytes = 0;
};

/// The CPU request times its utilisation (at least 10 millicores) and 60 % of the memory
/// request (at least 16 MiB): the simulator's exposition and the real cluster's plan agree.
ModelledUsage modelledUsage(const Resources& request, double cpuUtil);

/// A pod and everything that happened to it. Times are seconds after the scenario start;
/// kNever marks an event that has not happened.
struct Pod {
  int id = 0;
  PodKind kind = PodKind::kTask;
  std::string ns;
  std::string name;
  std::string uid;
  std::string container;
  std::string ownerKind;  // empty: a bare pod (Airflow)
  std::string ownerName;
  std::string priorityClass;
  int priority = 0;                                       // the PriorityClass' value
  std::string preemptionPolicy = "PreemptLowerPriority";  // the PriorityClass' policy
  KeyValues labels;
  KeyValues annotations;
  Resources request;
  SchedulingSpec scheduling;  // tolerations, selectors, affinity, from the (patched) spec
  std::string pinnedNode;     // DaemonSet pods: node affinity on metadata.name
  int workload = -1;          // index of the DaemonSet or Deployment in the scenario
  double cpuUtil = 0.5;
  double gpuUtil = 0;
  int run = -1;
  int task = -1;
  // Timeline.
  double created = 0;
  double scheduled = kNever;
  double started = kNever;
  double finished = kNever;
  double deleted = kNever;
  double unschedulableSince = kNever;  // first failed attempt
  bool evicted = false;                // preempted: terminated (Failed) at `finished`
  std::string unschedulablePlugin;     // the filter that rejected it last (empty: none)
  double lastAttempt = -kNever;
  int attempts = 0;
  int node = -1;
  std::vector<int> gpus;  // device indices on the node
  double transferSeconds = 0;
  // The parents' outputs in the order the task fetched them (from the start of its run), the
  // bytes cAdvisor's pod-level network counter shows arriving.
  std::vector<Fetch> fetches;
};

/// One workflow run (DAG instance).
struct Run {
  int workflow = 0;
  int index = 0;
  std::string name;            // run id as the engine names it
  std::uint64_t identity = 0;  // keys the run's pods' randomness; the same wherever t = 0 is
  std::string ns;
  Engine engine = Engine::kSeed;
  double arrival = 0;
  double finished = kNever;
  std::vector<int> taskPods;        // pod id per task of the workflow spec, -1 until created
  std::vector<double> baseRuntime;  // drawn at arrival, identical under every policy
  std::vector<int> parentsLeft;
};

/// One scheduling attempt as kube-scheduler measures it.
struct Attempt {
  double time = 0;
  bool scheduled = false;
  double seconds = 0;  // scheduling_attempt_duration
};

/// One pod's end-to-end scheduling latency (SLI), recorded when the pod is bound.
struct SliObservation {
  double time = 0;
  int attempts = 1;
  double seconds = 0;
};

struct History {
  const Scenario* scenario = nullptr;
  Policy policy = Policy::kBaseline;
  std::string changes = "baseline";  // what was applied: baseline, remedied or the advice file
  nlohmann::json applied = nlohmann::json::array();  // AdviceApplier::report()
  std::vector<PriorityClassSpec> priorityClasses;    // the system ones, the scenario's, created
  int preemptions = 0;                               // pods evicted by preemption
  double end = 0;  // seconds after start at which the simulation stopped
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<Run> runs;
  std::vector<Attempt> attempts;
  std::vector<SliObservation> sli;
};

/// The time a workflow engine needs to notice a finished task and create the next task's pod
/// (seed 2 s, Argo 1 s, Airflow 5 s, Tekton 1 s); also its retry of an evicted task's pod.
double engineReactionSeconds(Engine engine);

struct Advice;

/// Runs the scenario under a policy (remedied: the built-in remedies as patches).
/// Deterministic for a given scenario and seed.
History simulate(const Scenario& scenario, Policy policy);

/// Runs the scenario with the advice's patches applied to its objects.
History simulate(const Scenario& scenario, const Advice& advice);

/// Kubernetes-style label-key sanitisation as kube-state-metrics does it
/// (`dag-id` -> `dag_id`, `tekton.dev/pipelineRun` -> `tekton_dev_pipeline_run`).
std::string sanitizeLabelKey(const std::string& key);

}  // namespace dagadvisor::sim
