// The scenario as a plan a driver plays on a real cluster (kube-apiserver, kube-scheduler,
// kube-controller-manager, kwok in place of the kubelets): the objects to create first, then
// every run's task pods, each created once its parents have Succeeded and completed by kwok after
// its run time. The objects are the simulator's own, from the same builders and the same advice,
// so the real cluster holds what the simulated one holds. Format: config/scenarios/README.md,
// section "plan.json".
#pragma once

#include <nlohmann/json.hpp>

#include "patches.h"
#include "scenario.h"

namespace dagadvisor::sim {

/// The plan of `scenario` with `advice` applied as `generate` applies it (its report in
/// `applied_patches`), every arrival and run time multiplied by `timeScale` (> 0).
/// Throws std::invalid_argument naming the field when a patched object is malformed, as the
/// simulation does.
nlohmann::json buildPlan(const Scenario& scenario, const Advice& advice, double timeScale);

}  // namespace dagadvisor::sim
