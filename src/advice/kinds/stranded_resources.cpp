#include "advice/kinds/stranded_resources.h"

#include <algorithm>
#include <cstdio>
#include <variant>

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
};

void accumulate(const StrandedResourcesEvidence& e, Totals& totals) {
  if (const auto* cluster = std::get_if<ClusterFragmentation>(&e.scope)) {
    totals.cluster = e.toJson();
    totals.blocked_pods = static_cast<std::int64_t>(cluster->fragmentation_blocked_pods);
    return;
  }
  const auto& node = std::get<StrandedNode>(e.scope);
  totals.nodes.push_back(e.toJson());
  totals.node_units += node.stranded_node_units;
  totals.stranded_gpus += node.stranded_gpus.value_or(0);
}

std::string actionText(const Totals& totals) {
  std::string text;
  if (!totals.nodes.empty()) {
    text +=
        "On the listed nodes one resource is used up while others sit free: move the pods that "
        "exhaust it (descheduling candidates: the largest requesters of the exhausted resource) "
        "to nodes whose shape matches theirs, label node pools by shape (node-type) with a "
        "required node affinity for the heavy workloads, and right-size requests whose ratio "
        "differs from the nodes' (for example CPU-heavy pods on memory-rich nodes). ";
  }
  if (!totals.cluster.is_null()) {
    text +=
        "Pending pods fit the cluster's free capacity in total but no single node: pack "
        "smaller pods tighter (NodeResourcesFit MostAllocated scoring) so that whole nodes "
        "stay free for the large shapes, or split the large pods.";
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
    const std::vector<const analysis::Finding*>& findings, const config::Config& config) {
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
  rec.action = actionText(totals);
  rec.impact_score = totals.node_units + static_cast<double>(totals.blocked_pods);
  rec.impact = impactText(totals);
  rec.evidence = {{"nodes", totals.nodes},
                  {"stranded_node_units", totals.node_units},
                  {"stranded_gpus", totals.stranded_gpus},
                  {"fragmentation", totals.cluster}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
