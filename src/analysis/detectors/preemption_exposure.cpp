#include "analysis/detectors/preemption_exposure.h"

#include <algorithm>
#include <string_view>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using nlohmann::json;

// Kubernetes' built-in classes (2,000,000,000 and more): above any user class.
bool systemClass(std::string_view name) {
  return name == "system-cluster-critical" || name == "system-node-critical";
}

// Whether one of the critical pods may land on node `id` and fits its allocatable.
bool usableBySomeone(const model::ClusterSnapshot& cluster, const NodeEligibility& eligibility,
                     const std::vector<std::string>& groups,
                     const std::vector<const model::Pod*>& critical, model::NodeId id) {
  for (std::size_t i = 0; i < critical.size(); ++i) {
    if (eligibility.eligible(groups[i], id) &&
        cluster.node(id).allocatable.fits(critical[i]->requests)) {
      return true;
    }
  }
  return false;
}

void countClass(std::vector<PreemptionExposure::ClassCount>& classes,
                const PreemptionCandidate& c) {
  auto it = std::find_if(classes.begin(), classes.end(),
                         [&](const auto& k) { return k.priority_class == c.priority_class; });
  if (it == classes.end()) {
    it = classes.insert(classes.end(), {c.priority_class, c.priority, 0, 0, 0});
  }
  ++it->pods;
  it->gpu_pods += c.gpu ? 1 : 0;
  it->online_pods += c.online ? 1 : 0;
}

// A pod's priority as far as the model knows: its own spec.priority where the API listed it
// (a pod bound but still pending), else 0 without a class, or its class's listed value.
std::optional<std::int64_t> priorityOf(const model::ClusterSnapshot& cluster,
                                       const model::Pod& pod) {
  if (pod.priority) {
    return pod.priority;
  }
  if (pod.priority_class.empty()) {
    return 0;
  }
  if (const model::PriorityClass* listed = cluster.priorityClass(pod.priority_class)) {
    return listed->value;
  }
  return std::nullopt;
}

PreemptionCandidate candidate(const model::Pod& pod, std::optional<std::int64_t> priority,
                              const model::Node& node, UnixSeconds at, std::string_view dag_key) {
  PreemptionCandidate c;
  c.namespace_ = pod.namespace_;
  c.pod = pod.name;
  c.node = node.name;
  c.owner_kind = pod.owner_kind;
  c.owner_name = pod.owner_name;
  c.priority_class = pod.priority_class;
  c.priority = priority;
  if (pod.started) {
    c.running_seconds = std::max(0.0, at - *pod.started);
  }
  c.gpu = pod.requests.gpus > 0;
  c.online = isServicePod(pod);
  c.batch = !c.online && isBatchPod(pod, dag_key);
  return c;
}

// The costliest to evict first: GPU pods, then services, then the longest running.
bool costlier(const PreemptionCandidate& a, const PreemptionCandidate& b) {
  if (a.gpu != b.gpu) {
    return a.gpu;
  }
  if (a.online != b.online) {
    return a.online;
  }
  return a.running_seconds.value_or(0) > b.running_seconds.value_or(0);
}

void count(PreemptionExposure& out, const PreemptionCandidate& c, double critical_wait) {
  ++out.pods;
  out.known_lower_pods += c.priority ? 1 : 0;
  out.unknown_priority_pods += c.priority ? 0 : 1;
  out.gpu_pods += c.gpu ? 1 : 0;
  out.online_pods += c.online ? 1 : 0;
  out.not_batch_pods += c.batch ? 0 : 1;
  // An unknown age counts as long: nothing shows the eviction would lose little.
  out.long_running_pods += c.running_seconds.value_or(critical_wait + 1) > critical_wait ? 1 : 0;
}

// Keeps the kMaxListed costliest of `all` in order; called as it grows, so that a large
// cluster's candidates are counted without being held.
void keepCostliest(std::vector<PreemptionCandidate>& all) {
  const std::size_t listed = std::min(all.size(), PreemptionExposure::kMaxListed);
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(listed), all.end(),
                    costlier);
  all.resize(listed);
}

json valueJson(const std::optional<std::int64_t>& value) {
  return value ? json(*value) : json("unknown");
}

json candidateJson(const PreemptionCandidate& c) {
  json out = {{"namespace", c.namespace_},
              {"pod", c.pod},
              {"node", c.node},
              {"owner_kind", c.owner_kind},
              {"owner_name", c.owner_name},
              {"priority_class", c.priority_class},
              {"priority", valueJson(c.priority)},
              {"gpu", c.gpu},
              {"online", c.online},
              {"batch", c.batch}};
  out["running_seconds"] = c.running_seconds ? json(*c.running_seconds) : json();
  return out;
}

}  // namespace

json PreemptionExposure::toJson() const {
  json listed = json::array();
  for (const PreemptionCandidate& c : examples) {
    listed.push_back(candidateJson(c));
  }
  json classes = json::array();
  for (const ClassCount& k : by_class) {
    classes.push_back({{"priority_class", k.priority_class},
                       {"value", valueJson(k.value)},
                       {"pods", k.pods},
                       {"gpu_pods", k.gpu_pods},
                       {"online_pods", k.online_pods}});
  }
  return {{"proposed_value", proposed_value},
          {"nodes", nodes},
          {"pods", pods},
          {"known_lower_pods", known_lower_pods},
          {"unknown_priority_pods", unknown_priority_pods},
          {"priority_values",
           values_known ? "PriorityClass values from the Kubernetes API: pods at or above the "
                          "proposed value are protected, not candidates"
                        : "not checked (no Kubernetes API source): kube-state-metrics exports "
                          "PriorityClass names only, so pods without a class are at 0, pods of "
                          "a named class at an unknown value"},
          {"values_known", values_known},
          {"protected_pods", protected_pods},
          {"by_class", std::move(classes)},
          {"gpu_pods", gpu_pods},
          {"online_pods", online_pods},
          {"not_batch_pods", not_batch_pods},
          {"long_running_pods", long_running_pods},
          {"examples", std::move(listed)},
          {"acceptable", acceptable}};
}

PreemptionExposure preemptionExposure(const model::ClusterSnapshot& cluster,
                                      const NodeEligibility& eligibility,
                                      const std::vector<const model::Pod*>& critical,
                                      double critical_wait, const ProposedPriority& proposed,
                                      std::string_view dag_key) {
  PreemptionExposure out;
  out.proposed_value = proposed.value;
  out.values_known = cluster.priorityClasses().has_value();
  std::vector<std::string> groups;
  for (const model::Pod* pod : critical) {
    groups.push_back(eligibility.groupsFor(*pod));
  }
  std::vector<PreemptionCandidate> all;
  for (model::NodeId id = 0; id < cluster.nodes().size(); ++id) {
    if (!usableBySomeone(cluster, eligibility, groups, critical, id)) {
      continue;
    }
    ++out.nodes;
    for (model::PodId pid : cluster.podsOn(id)) {
      const model::Pod& pod = cluster.pod(pid);
      if (pod.priority_class == proposed.name || systemClass(pod.priority_class)) {
        continue;
      }
      const auto priority = priorityOf(cluster, pod);
      if (priority && *priority >= proposed.value) {
        ++out.protected_pods;  // preemption takes only strictly lower priorities
        continue;
      }
      all.push_back(candidate(pod, priority, cluster.node(id), cluster.at(), dag_key));
      count(out, all.back(), critical_wait);
      countClass(out.by_class, all.back());
      if (all.size() >= 4 * PreemptionExposure::kMaxListed) {
        keepCostliest(all);
      }
    }
  }
  out.acceptable =
      out.pods > 0 && out.gpu_pods == 0 && out.not_batch_pods == 0 && out.long_running_pods == 0;
  keepCostliest(all);
  out.examples = std::move(all);
  std::stable_sort(out.by_class.begin(), out.by_class.end(),
                   [](const auto& a, const auto& b) { return a.pods > b.pods; });
  out.by_class.resize(std::min(out.by_class.size(), PreemptionExposure::kMaxClasses));
  return out;
}

}  // namespace dagadvisor::analysis
