#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "model/scheduling_spec.h"

namespace dagadvisor::model {

/// A scheduling.k8s.io/v1 PriorityClass object: name, value, preemptionPolicy (the API's default
/// PreemptLowerPriority when unset) and globalDefault. nullopt when it has no name or no
/// integer value.
std::optional<PriorityClass> parsePriorityClass(const nlohmann::json& object);

/// What a v1 Pod says that the pending-pod diagnosis and the preemption exposure need, and
/// nothing else: namespace/name, spec.priority, spec.priorityClassName and the required node
/// affinity's nodeSelectorTerms (matchExpressions and matchFields). nullopt without a name.
std::optional<PendingPodSpec> parsePendingPodSpec(const nlohmann::json& pod);

}  // namespace dagadvisor::model
