// Scenario description of dagadvisor-sim: the cluster, its workloads and the output settings.
// The simulator is the test oracle of dagadvisor, so it shares no code with src/.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kube.h"

namespace dagadvisor::sim {

/// CPU in cores, memory in bytes, GPUs and pod slots as integers.
struct Resources {
  double cpu = 0;
  double memory = 0;
  int gpu = 0;
  int pods = 0;
};

/// A group of identical nodes; nodes are spread round-robin over the scenario's zones.
struct NodePool {
  std::string name;
  int count = 0;
  std::string nodeType;     // node label `node-type`
  std::string accelerator;  // node label `accelerator` (empty: no label value)
  std::string gpuModel = "NVIDIA-A100-SXM4-80GB";
  Resources capacity;
  double systemReservedCpu = 0.1;      // capacity - allocatable, as kubelet reserves it
  double systemReservedMemory = 0.05;  // fraction of memory
  std::vector<Taint> taints;           // present under every policy
};

/// The scheduling fields of a pod template as the scenario sets them: `tolerations`,
/// `node_selector`, `affinity` and `priority_class`, in the shape of a Pod spec's
/// tolerations, nodeSelector, affinity and priorityClassName (an empty object: none).
using PodSpecFields = nlohmann::json;

/// A pod on every node whose taints it tolerates and whose selector it matches, e.g. a log
/// collector. It tolerates only what `scheduling` says.
struct DaemonSetSpec {
  std::string name;
  std::string ns;
  Resources request;
  double cpuUtil = 0.3;  // usage / request
  PodSpecFields scheduling = nlohmann::json::object();
};

/// A long-running online service.
struct DeploymentSpec {
  std::string name;
  std::string ns;
  int replicas = 0;
  Resources request;
  double cpuUtil = 0.3;
  std::string nodeType;  // node-type the built-in node-pools remedy selects (empty: any)
  PodSpecFields scheduling = nlohmann::json::object();
};

/// Run-time distribution: log-normal with the given median (seconds) and sigma.
struct Duration {
  double median = 60;
  double sigma = 0;
};

struct TaskSpec {
  std::string id;
  std::vector<std::string> parents;
  Resources request;
  Duration runtime;
  double cpuUtil = 0.8;
  double gpuUtil = 0.9;
  std::string nodeType;  // node-type the built-in node-pools remedy selects (empty: any)
  double outputGb = 1;   // data handed to each child; drives the transfer delay
  PodSpecFields scheduling = nlohmann::json::object();
};

/// A scheduling.k8s.io/v1 PriorityClass.
struct PriorityClassSpec {
  std::string name;
  int value = 0;
  std::string preemptionPolicy = "PreemptLowerPriority";  // or Never
  bool globalDefault = false;
};

enum class Engine { kSeed, kArgo, kAirflow, kTekton };

/// When runs of a workflow arrive: `count` runs, the first at `first`, then every `every`
/// seconds; a burst is the same with a small `every`.
struct Arrival {
  double first = 0;
  double every = 86400;
  int count = 1;
};

struct WorkflowSpec {
  std::string name;
  std::string ns;
  Engine engine = Engine::kSeed;
  Arrival arrival;
  std::vector<TaskSpec> tasks;
  double podGcSeconds = -1;  // finished pods live this long (-1: engine default)
  bool headline = true;      // counted in the before/after figures (the "critical DAG")
};

/// Seconds added to a child's run time per parent placed elsewhere, per GB handed over.
struct Network {
  double sameZoneSecondsPerGb = 20;
  double crossZoneSecondsPerGb = 90;
};

/// A window of time during which every scheduling decision is delayed.
struct LatencySpike {
  double at = 0;
  double duration = 0;
  double extraSeconds = 0;
};

struct SchedulerSpec {
  double baseLatencySeconds = 0.02;  // median algorithm+binding latency per pod
  double podStartupSeconds = 5;      // bind -> container start (image pull, sandbox)
  std::vector<LatencySpike> spikes;
  bool legacyDurationMetric = false;  // also emit scheduler_pod_scheduling_duration_seconds
  // Which stream of kube-scheduler's random picks among equal scores: 0 is the scenario's own;
  // another gives the same workload under other coin flips (compare --tie-breaks).
  std::uint64_t tieBreakStream = 0;
};

/// The seed's remedies, applied under the `remedied` policy as a built-in list of patches in
/// the daemon's format (remedies.cpp); each is a change a user can make in Kubernetes.
struct Remedies {
  bool gpuTaints = true;             // taint GPU nodes; the GPU workloads' pods tolerate it
  bool nodePools = true;             // nodeSelector on `node-type`
  bool criticalPathPriority = true;  // a PriorityClass for the critical path's tasks
  bool parentAffinity = true;        // preferred zone affinity to the DAG's running pods
};

struct OutputSpec {
  double step = 30;
  double refresh = 0;                // re-emit an unchanged series only this often (0: every step)
  double windowStart = 0;            // seconds after `start`
  double windowEnd = -1;             // -1: until the simulation ends
  bool usage = true;                 // cAdvisor and DCGM series
  double usageStep = 0;              // scrape interval of cAdvisor and DCGM (0: same as step)
  bool nodeSelectorsMetric = false;  // kube-state-metrics' opt-in kube_pod_nodeselectors
};

enum class Policy { kBaseline, kRemedied };

struct Scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  std::int64_t start = 1795824000;  // unix seconds of t = 0 (2026-11-28T00:00:00Z)
  // The start the scenario file declares. Randomness is keyed on run names built from it, so the
  // same story plays wherever `start` is moved (serve maps the window to now).
  std::int64_t declaredStart = 1795824000;
  double duration = 3600;  // simulated seconds
  std::vector<std::string> zones{"zone-a"};
  std::vector<NodePool> nodePools;
  std::vector<DaemonSetSpec> daemonSets;
  std::vector<DeploymentSpec> deployments;
  std::vector<WorkflowSpec> workflows;
  std::vector<PriorityClassSpec> priorityClasses;  // besides the two system-* classes
  Network network;
  SchedulerSpec scheduler;
  Remedies remedies;
  OutputSpec output;
  std::string plantedProblem;  // documentation: what the advisor should find
  // `analysis_at`: seconds after the window's start to analyse at, when the moment that shows the
  // planted problem is not the busiest one (the ground truth's suggested_analysis_time).
  std::optional<double> analysisAt;
};

/// The scenario or a message naming the faulty field.
struct ScenarioOrError {
  std::optional<Scenario> scenario;
  std::string error;
};

/// Parses a scenario YAML file; never throws.
ScenarioOrError loadScenario(const std::string& path);

/// Parses a Kubernetes quantity ("500m", "4Gi", "2", "1.5G").
std::optional<double> parseQuantity(const std::string& text);

const char* engineName(Engine engine);
const char* policyName(Policy policy);

}  // namespace dagadvisor::sim
