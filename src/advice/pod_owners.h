#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "advice/engine_patch.h"
#include "advice/patch.h"
#include "model/cluster.h"
#include "replay/change_set.h"

namespace dagadvisor::advice {

/// The Deployment a ReplicaSet belongs to: its name less the pod-template-hash suffix, when the
/// suffix is that hash (`hash`, the pods' pod-template-hash label, when known; else a suffix of
/// the hash's alphabet). nullopt for a ReplicaSet of its own.
std::optional<std::string> deploymentOf(const std::string& replica_set, const std::string& hash);

/// The object that defines `pod`'s spec, as podSpecSite() takes it: its owner, with a
/// ReplicaSet's pods given to their Deployment; kind "Pod" for a pod without an owner.
PodOwner workloadOfPod(const model::Pod& pod);

/// The live (pending or running) pods of the snapshot whose spec `object` defines: its pods by
/// name (kube-state-metrics reports label keys normalised, so names, not labels, say which).
/// nullopt when the snapshot has none of them.
std::optional<PodSelection> podsOf(const model::ClusterSnapshot& cluster,
                                   const PatchObject& object);

/// podsOf for each of `objects`, in their order, reading each namespace's pods once: an adviser
/// that patches many workloads (one per service) asks for all of them together.
std::vector<std::optional<PodSelection>> podsOfEach(const model::ClusterSnapshot& cluster,
                                                    const std::vector<PatchObject>& objects);

/// The pods of a DAG's runs: `dag_selector` where the engine labels every run's pods alike,
/// else the snapshot's pods (any phase) that one of the runs' `run_selectors` selects, by name.
/// nullopt when neither says.
std::optional<PodSelection> podsOfDag(
    const model::ClusterSnapshot& cluster, const std::string& namespace_,
    const std::vector<std::pair<std::string, std::string>>& dag_selector,
    const std::vector<std::vector<std::pair<std::string, std::string>>>& run_selectors);

/// Whether `selection` selects `pod`: its namespace, and its names or else its labels.
bool selects(const PodSelection& selection, const model::Pod& pod);

/// The same pods in the replay's terms, for a change set built from the same values as a patch.
replay::PodMatch replayMatchOf(const PodSelection& pods);

/// The objects that define the live pods requesting GPUs, in a stable order, each with those
/// pods: one per owner, the pods without an owner one per namespace (kind "Pod").
struct GpuWorkload {
  PodOwner owner;
  PodSelection pods;
};
/// Pods `skip` holds (those another patch already covers) are left out.
std::vector<GpuWorkload> gpuWorkloads(const model::ClusterSnapshot& cluster,
                                      const std::function<bool(const model::Pod&)>& skip = {});

}  // namespace dagadvisor::advice
