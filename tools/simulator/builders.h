// Construction of the simulated objects: nodes, long-running pods, and task pods labelled the
// way each workflow engine labels them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "patches.h"
#include "simulation.h"

namespace dagadvisor::sim {

/// The GPU taint the `gpu_taints` remedy puts on GPU nodes.
inline constexpr const char* kGpuTaintKey = "nvidia.com/gpu";

/// The image of every container the simulator builds: one a real cluster accepts and kwok
/// never pulls.
inline constexpr const char* kContainerImage = "registry.k8s.io/pause:3.10";

/// A CPU amount as a Kubernetes quantity: whole cores as an integer, else millicores.
std::string cpuQuantity(double cores);

/// The apiVersion of a pod owner's kind (Workflow, TaskRun, DaemonSet, ReplicaSet).
std::string ownerApiVersion(const std::string& kind);

/// The name of a pool's node: `<pool>-007`.
std::string nodeName(const NodePool& pool, int index);

/// PriorityClasses every cluster has, then the scenario's.
std::vector<PriorityClassSpec> clusterPriorityClasses(const Scenario& scenario);

/// Nodes of every pool, spread round-robin over the zones, each patched as a v1 Node.
std::vector<Node> buildNodes(const Scenario& scenario, AdviceApplier& advice);

/// The v1 Node object of a node: name, labels and taints.
nlohmann::json nodeObject(const Node& node);

/// DaemonSet `index` of the scenario as an apps/v1 object, patched by the advice: its selector,
/// the same labels on its pod template, and the template's spec (one container with the
/// requests, the scenario's scheduling fields), before admission. Its pods carry the selector's
/// labels and the `controller-revision-hash` the DaemonSet controller adds.
nlohmann::json daemonSetObject(const Scenario& scenario, std::size_t index, AdviceApplier& advice);

/// Deployment `index` of the scenario as an apps/v1 object, patched by the advice, shaped as
/// daemonSetObject, with its replicas. Its pods carry the selector's labels and the
/// `pod-template-hash` of their ReplicaSet.
nlohmann::json deploymentObject(const Scenario& scenario, std::size_t index, AdviceApplier& advice);

/// DaemonSet pods (by the DaemonSet controller: on each node whose taints the template
/// tolerates and whose labels its selector and affinity match) and Deployment replicas (to be
/// scheduled), from their patched workload objects, created before t = 0 so the cluster is
/// already busy when the window opens.
std::vector<Pod> buildLongRunningPods(const Scenario& scenario, AdviceApplier& advice,
                                      const std::vector<PriorityClassSpec>& classes,
                                      const std::vector<Node>& nodes);

/// The pod its controller (DaemonSet, ReplicaSet) or engine (a task's retry) creates for an
/// evicted one: the same spec, a new name and uid, a fresh timeline.
Pod replacementOf(const Pod& evicted, int generation, double created);

/// How a moment is written: ISO 8601 with +00:00 (Airflow), RFC 3339 with Z as the API server
/// writes a metav1.Time, or compact (in run ids).
enum class TimeFormat { kIso, kKube, kCompact };
std::string isoTime(std::int64_t unixSeconds, TimeFormat format);

/// The uid of a Tekton run's PipelineRun: its pods' `tekton.dev/pipelineRunUID` label.
std::string pipelineRunUid(const Scenario& scenario, const Run& run);

/// Names the run and its engine-specific identity, and draws its tasks' run times.
Run makeRun(const Scenario& scenario, int workflow, int index, double arrival);

/// Every run of the scenario's workflows that arrives by its `duration`: workflow by workflow,
/// each one's runs in arrival order.
std::vector<Run> arrivingRuns(const Scenario& scenario);

/// A task's pod as its engine creates it, before admission: the pod's names, labels,
/// annotations, owner and requests, and its v1 Pod object patched by the advice that selects it.
struct TaskPod {
  Pod pod;
  nlohmann::json object;
};
TaskPod engineTaskPod(const Scenario& scenario, const Run& run, int task, double created,
                      AdviceApplier& advice);

/// The pod of one task of a run, with the engine's labels, annotations and owner, its spec
/// patched by the advice that selects it and admitted.
Pod makeTaskPod(const Scenario& scenario, const Run& run, int task, double created,
                AdviceApplier& advice, const std::vector<PriorityClassSpec>& classes);

/// Reads the scheduling fields, requests and priority of a Pod object into the pod, whose
/// labels must be set (the affinity terms' label keys are merged from them).
/// Throws std::invalid_argument naming the field when the (patched) spec is malformed.
void readPodObject(const nlohmann::json& pod, const std::vector<PriorityClassSpec>& classes,
                   Pod& out);

/// What admission adds to a pod's spec: the DefaultTolerationSeconds tolerations, or for a
/// DaemonSet's pods the ones the DaemonSet controller adds (node conditions), after its own.
void admitPodSpec(nlohmann::json& podSpec, bool daemonSet);

/// A v1 Pod object of the pod: metadata (with the owner's reference, without its uid), one
/// container with its requests, `specFields` merged into the spec.
nlohmann::json podObject(const Pod& pod, const nlohmann::json& specFields);

/// Upward rank of each task (its median run time plus the longest chain below it).
std::vector<double> upwardRanks(const WorkflowSpec& workflow);

/// Tasks on the critical path by median run times.
std::vector<bool> staticCriticalPath(const WorkflowSpec& workflow,
                                     const std::vector<double>& ranks);

/// Kubernetes generateName-style suffix of `length` characters.
std::string nameSuffix(std::uint64_t key, int length);

/// RFC 4122-shaped uid derived from a key.
std::string makeUid(std::uint64_t key);

}  // namespace dagadvisor::sim
