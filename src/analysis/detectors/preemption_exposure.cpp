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

bool fitsSomeone(const model::Node& node, const std::vector<const model::Pod*>& critical) {
  return !node.unschedulable && std::any_of(critical.begin(), critical.end(), [&](const auto* p) {
    return node.allocatable.fits(p->requests);
  });
}

PreemptionCandidate candidate(const model::Pod& pod, const model::Node& node, UnixSeconds at,
                              std::string_view dag_key) {
  PreemptionCandidate c;
  c.namespace_ = pod.namespace_;
  c.pod = pod.name;
  c.node = node.name;
  c.owner_kind = pod.owner_kind;
  c.owner_name = pod.owner_name;
  c.priority_class = pod.priority_class;
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

json candidateJson(const PreemptionCandidate& c) {
  json out = {{"namespace", c.namespace_},
              {"pod", c.pod},
              {"node", c.node},
              {"owner_kind", c.owner_kind},
              {"owner_name", c.owner_name},
              {"priority_class", c.priority_class},
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
  return {{"nodes", nodes},
          {"pods", pods},
          {"gpu_pods", gpu_pods},
          {"online_pods", online_pods},
          {"not_batch_pods", not_batch_pods},
          {"long_running_pods", long_running_pods},
          {"examples", std::move(listed)},
          {"acceptable", acceptable}};
}

PreemptionExposure preemptionExposure(const model::ClusterSnapshot& cluster,
                                      const std::vector<const model::Pod*>& critical,
                                      double critical_wait, const std::string& critical_class,
                                      std::string_view dag_key) {
  PreemptionExposure out;
  std::vector<PreemptionCandidate> all;
  for (model::NodeId id = 0; id < cluster.nodes().size(); ++id) {
    const model::Node& node = cluster.node(id);
    if (!fitsSomeone(node, critical)) {
      continue;
    }
    ++out.nodes;
    for (model::PodId pid : cluster.podsOn(id)) {
      const model::Pod& pod = cluster.pod(pid);
      if (pod.priority_class == critical_class || systemClass(pod.priority_class)) {
        continue;
      }
      all.push_back(candidate(pod, node, cluster.at(), dag_key));
      count(out, all.back(), critical_wait);
      if (all.size() >= 4 * PreemptionExposure::kMaxListed) {
        keepCostliest(all);
      }
    }
  }
  out.acceptable =
      out.pods > 0 && out.gpu_pods == 0 && out.not_batch_pods == 0 && out.long_running_pods == 0;
  keepCostliest(all);
  out.examples = std::move(all);
  return out;
}

}  // namespace dagadvisor::analysis
