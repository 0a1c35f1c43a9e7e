#include "advice/kinds/stranded_resources.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "advice/kinds/pending_causes.h"
#include "analysis/detectors/stranded_resources.h"

namespace dagadvisor::advice {
namespace {

using analysis::ClusterFragmentation;
using analysis::StrandedNode;
using analysis::StrandedResourcesEvidence;
using nlohmann::json;

struct Totals {
  json nodes = json::array();
  json cluster = nullptr;
  double node_units = 0;
  std::int64_t stranded_gpus = 0;
  std::int64_t blocked_pods = 0;
  std::vector<std::string> hoarded_nodes;  // stranded nodes gpu-node-hoarding reports
  std::optional<analysis::DiagnosisCounts> diagnosis;
};

void accumulate(const StrandedResourcesEvidence& e, Totals& totals) {
  if (const auto* cluster = std::get_if<ClusterFragmentation>(&e.scope)) {
    totals.cluster = e.toJson();
    totals.blocked_pods = static_cast<std::int64_t>(cluster->fragmentation_blocked_pods);
    totals.diagnosis = cluster->diagnosis;
    return;
  }
  const auto& node = std::get<StrandedNode>(e.scope);
  if (node.hoarded) {
    totals.hoarded_nodes.push_back(node.node);
  }
  totals.nodes.push_back(e.toJson());
  totals.node_units += node.stranded_node_units;
  totals.stranded_gpus += node.stranded_gpus.value_or(0);
}

std::string hoardedText(const Totals& totals, const config::Config& config) {
  std::string names;
  for (const std::string& node : totals.hoarded_nodes) {
    names += (names.empty() ? "" : ", ") + node;
  }
  return "On " + names + " the stranded GPUs are gpu-node-hoarding's (" +
         clusterRecommendationId("gpu-node-hoarding", config) +
         "): moving the non-GPU pods off is the change there. ";
}

std::string fragmentationText(const Totals& totals, const config::Config& config) {
  std::string text = "Pending pods fit the cluster's free capacity in total but no single node: ";
  // MostAllocated scores the most allocated nodes highest: with GPU nodes hoarded it would pull
  // more small pods onto them, against gpu-node-hoarding's advice.
  if (totals.diagnosis && totals.diagnosis->hoarded_nodes > 0) {
    text += "first apply gpu-node-hoarding's taint (" +
            clusterRecommendationId("gpu-node-hoarding", config) +
            "), whose moves are counted before this, and keep NodeResourcesFit's LeastAllocated "
            "scoring while GPU nodes are hoarded: packing tighter would pull more small pods "
            "onto them. Then split the large pods, or deschedule small pods off the nodes "
            "closest to holding a large one.";
  } else {
    text +=
        "pack smaller pods tighter (NodeResourcesFit MostAllocated scoring) so that whole "
        "nodes stay free for the large shapes, or split the large pods; taint GPU nodes first "
        "if non-GPU pods may land on them, or MostAllocated fills them with small pods.";
  }
  if (totals.diagnosis) {
    text +=
        " " + pendingCausesText(*totals.diagnosis, analysis::PendingCause::kFragmentation, config);
  }
  return text;
}

std::string actionText(const Totals& totals, const config::Config& config) {
  std::string text;
  if (!totals.nodes.empty()) {
    text +=
        "On the listed nodes one resource is used up while others sit free: move the pods that "
        "exhaust it (descheduling candidates: the largest requesters of the exhausted resource) "
        "to nodes whose shape matches theirs, label node pools by shape (node-type) with a "
        "required node affinity for the heavy workloads, and right-size requests whose ratio "
        "differs from the nodes' (for example CPU-heavy pods on memory-rich nodes). ";
  }
  if (!totals.hoarded_nodes.empty()) {
    text += hoardedText(totals, config);
  }
  if (!totals.cluster.is_null()) {
    text += fragmentationText(totals, config);
  }
  return text;
}

// Names only the parts that are there: a cluster-only finding must not read "0 node(s) …".
std::string titleText(const Totals& totals) {
  char buf[160];
  std::string title;
  if (!totals.nodes.empty()) {
    std::snprintf(buf, sizeof buf,
                  "%zu node(s) with stranded resources (%.2f node-resource units, %lld GPU(s))",
                  totals.nodes.size(), totals.node_units,
                  static_cast<long long>(totals.stranded_gpus));
    title = buf;
  }
  if (totals.blocked_pods > 0) {
    std::snprintf(buf, sizeof buf,
                  "%lld pending pod(s) fit the free capacity in total but no single node",
                  static_cast<long long>(totals.blocked_pods));
    title += (title.empty() ? "" : "; ") + std::string(buf);
  }
  return title;
}

std::string impactText(const Totals& totals) {
  char buf[160];
  std::string text;
  if (!totals.nodes.empty()) {
    std::snprintf(buf, sizeof buf,
                  "about %.2f node(s) worth of stranded capacity usable again, %lld stranded "
                  "GPU(s)",
                  totals.node_units, static_cast<long long>(totals.stranded_gpus));
    text = buf;
  }
  if (totals.blocked_pods > 0) {
    std::snprintf(buf, sizeof buf, "%lld pending pod(s) placeable by repacking",
                  static_cast<long long>(totals.blocked_pods));
    text += (text.empty() ? "" : ", ") + std::string(buf);
  }
  return text;
}

}  // namespace

std::vector<Recommendation> adviseStrandedResources(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config,
    const model::ClusterSnapshot& /*cluster*/) {
  if (findings.empty()) {
    return {};
  }
  Recommendation rec;
  rec.kind = std::string(StrandedResourcesEvidence::kKind);
  rec.target = "cluster/" + config.analysis.cluster;
  Totals totals;
  for (const analysis::Finding* f : findings) {
    rec.severity = std::max(rec.severity, f->severity);
    rec.instances.push_back(f->target);
    accumulate(f->evidenceAs<StrandedResourcesEvidence>(), totals);
  }
  rec.title = titleText(totals);
  rec.action = actionText(totals, config);
  rec.impact_score = totals.node_units + static_cast<double>(totals.blocked_pods);
  rec.impact = impactText(totals);
  json related = totals.diagnosis
                     ? relatedRecommendations(*totals.diagnosis,
                                              analysis::PendingCause::kFragmentation, config)
                     : json::object();
  if (!totals.hoarded_nodes.empty()) {
    related["gpu-node-hoarding"] = clusterRecommendationId("gpu-node-hoarding", config);
  }
  rec.evidence = {{"nodes", totals.nodes},
                  {"stranded_node_units", totals.node_units},
                  {"stranded_gpus", totals.stranded_gpus},
                  {"fragmentation", totals.cluster},
                  {"related", std::move(related)}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
