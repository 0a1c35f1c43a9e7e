#include "analysis/detectors/batch_online_colocation.h"

#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using nlohmann::json;

// Keys are views into the pods: a busy node holds many pods, and none needs a string of its own.
struct Sharing {
  std::int64_t batch_cpu_millis = 0;
  std::size_t batch_pods = 0;
  std::set<std::pair<std::string_view, std::string_view>> dags;  // namespace, DAG
  std::int64_t service_cpu_millis = 0;
  std::map<std::tuple<std::string_view, std::string_view, std::string_view>, std::size_t> services;
};

Sharing sharingOn(const model::ClusterSnapshot& cluster, model::NodeId id,
                  std::string_view dag_key) {
  Sharing s;
  for (model::PodId pid : cluster.podsOn(id)) {
    const model::Pod& pod = cluster.pod(pid);
    if (isBatchPod(pod, dag_key)) {
      ++s.batch_pods;
      s.batch_cpu_millis += pod.requests.cpu_millis;
      const auto dag = pod.labels.get(dag_key);
      s.dags.emplace(pod.namespace_, dag ? *dag : std::string_view(pod.owner_name));
    } else if (isServicePod(pod)) {
      s.service_cpu_millis += pod.requests.cpu_millis;
      ++s.services[{pod.namespace_, pod.owner_kind, pod.owner_name}];
    }
  }
  return s;
}

std::vector<ColocatedService> servicesOf(const Sharing& s) {
  std::vector<ColocatedService> out;
  for (const auto& [key, pods] : s.services) {
    out.push_back({std::string(std::get<0>(key)), std::string(std::get<1>(key)),
                   std::string(std::get<2>(key)), pods});
  }
  return out;
}

std::vector<std::string> dagsOf(const Sharing& s) {
  std::vector<std::string> out;
  for (const auto& [ns, dag] : s.dags) {
    out.push_back(std::string(ns) + "/" + std::string(dag));
  }
  return out;
}

// The latest rebuilt run of each "namespace/dag" of `dags`, where there is one.
std::vector<RunScope> scopesOf(const std::vector<std::string>& dags,
                               const std::vector<graph::RunGraph>& runs) {
  std::vector<RunScope> out;
  for (const std::string& key : dags) {
    const graph::RunGraph* latest = nullptr;
    for (const graph::RunGraph& rg : runs) {
      if (rg.run != nullptr && rg.run->namespace_ + "/" + rg.run->dag == key &&
          (latest == nullptr || rg.first_created >= latest->first_created)) {
        latest = &rg;
      }
    }
    if (latest != nullptr) {
      out.push_back(runScope(*latest->run));
    }
  }
  return out;
}

}  // namespace

json BatchOnlineColocationEvidence::toJson() const {
  json listed = json::array();
  for (const ColocatedService& s : services) {
    listed.push_back(
        {{"namespace", s.namespace_}, {"kind", s.kind}, {"name", s.name}, {"pods", s.pods}});
  }
  return {{"node", node},
          {"cpu_requested_share", cpu_requested_share},
          {"batch_pods", batch_pods},
          {"batch_cpu_millis", batch_cpu_millis},
          {"dags", dags},
          {"service_cpu_millis", service_cpu_millis},
          {"services", std::move(listed)}};
}

const DetectorInfo& BatchOnlineColocation::info() const {
  static const DetectorInfo kInfo{BatchOnlineColocationEvidence::kKind,
                                  "Workflow tasks sharing busy nodes with long-running services"};
  return kInfo;
}

void BatchOnlineColocation::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noNodesToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.get<analysis::BatchOnlineColocationSettings>();
  const model::ClusterSnapshot& cluster = input.cluster;
  const std::string dag_key = model::LabelSet::normalizeKey(input.config.workflow_labels.dag_label);
  for (model::NodeId id = 0; id < cluster.nodes().size(); ++id) {
    const model::Node& node = cluster.node(id);
    const double cpu_share = share(cluster.requestedOn(id).cpu_millis, node.allocatable.cpu_millis);
    if (cpu_share < params.min_node_cpu_share) {
      continue;
    }
    const Sharing s = sharingOn(cluster, id, dag_key);
    if (s.batch_pods == 0 || s.services.empty()) {
      continue;
    }
    BatchOnlineColocationEvidence evidence;
    evidence.node = node.name;
    evidence.cpu_requested_share = cpu_share;
    evidence.batch_pods = s.batch_pods;
    evidence.batch_cpu_millis = s.batch_cpu_millis;
    evidence.dags = dagsOf(s);
    evidence.dag_scopes = scopesOf(evidence.dags, input.runs);
    evidence.service_cpu_millis = s.service_cpu_millis;
    evidence.services = servicesOf(s);
    Finding finding = findingOf(std::move(evidence));
    finding.severity = Severity::kWarning;
    finding.target = "node/" + node.name;
    finding.summary = formatText(
        "%s: %zu workflow task pod(s) share the node with %zu service(s) at %.0f%% CPU requested",
        node.name.c_str(), s.batch_pods, s.services.size(), cpu_share * 100);
    finding.impact = static_cast<double>(std::min(s.batch_cpu_millis, s.service_cpu_millis)) / 1000;
    out.emit(std::move(finding));
  }
}

std::vector<config::Field> BatchOnlineColocationSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"min_node_cpu_share", &min_node_cpu_share, config::Rule::kShare,
       "A node is reported when its requested CPU is at least this share of what it can give."},
  };
}

}  // namespace dagadvisor::analysis
