#include "advice/kinds/batch_online_colocation.h"

#include <set>
#include <tuple>

#include "advice/engine_patch.h"
#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "advice/pod_owners.h"
#include "analysis/detectors/batch_online_colocation.h"

namespace dagadvisor::advice {

using analysis::BatchOnlineColocationEvidence;
using nlohmann::json;

namespace {

using ServiceRefs = std::set<std::tuple<std::string, std::string, std::string>>;

// The DAGs' tasks to the batch pool (their pods by the DAG label), the services to the online
// pool (their pods by name).
std::vector<Patch> poolPatches(const std::string& label, const std::set<std::string>& dags,
                               const ServiceRefs& services, const config::Config& config,
                               const model::ClusterSnapshot& cluster) {
  const auto pin = [&](const std::string& pool) {
    return [&label, pool](const PodSpecSite& site) {
      return nodeSelectorPatches(site.path, label, pool);
    };
  };
  std::vector<Patch> out;
  for (const std::string& key : dags) {  // "namespace/dag"
    const auto slash = key.find('/');
    const std::string ns = key.substr(0, slash);
    const std::string dag = key.substr(slash + 1);
    const PodSelection pods{ns, {{config.workflow_labels.dag_label, dag}}, {}};
    out.push_back(podChangePatch({"labels", ns, "", dag}, PodField::kNodeSelector,
                                 "require " + label + "=batch", pin("batch"), pods));
  }
  for (const auto& [ns, kind, name] : services) {
    const PodOwner owner{"", ns, kind, name};
    const PodSpecSite site = podSpecSite(owner, PodField::kNodeSelector);
    out.push_back(podChangePatch(owner, PodField::kNodeSelector, "require " + label + "=online",
                                 pin("online"), podsOf(cluster, site.object)));
  }
  return out;
}

}  // namespace

// One root cause: batch and online workloads share one pool. The fix separates the pools.
std::vector<Recommendation> adviseBatchOnlineColocation(const FindingList& findings,
                                                        const config::Config& config,
                                                        const model::ClusterSnapshot& cluster) {
  if (findings.empty()) {
    return {};
  }
  const std::string& label = config.cluster_labels.workload;
  Recommendation rec;
  rec.kind = std::string(BatchOnlineColocationEvidence::kKind);
  rec.target = "cluster/" + config.analysis.cluster;
  const json nodes = cover(rec, findings);
  std::set<std::string> services;
  std::set<std::tuple<std::string, std::string, std::string>> service_refs;
  std::set<std::string> dags;
  double shared_cores = 0;
  for (const analysis::Finding* f : findings) {
    shared_cores += f->impact;
    const auto& e = f->evidenceAs<BatchOnlineColocationEvidence>();
    for (const analysis::ColocatedService& s : e.services) {
      services.insert(s.namespace_ + "/" + s.kind + "/" + s.name);
      service_refs.emplace(s.namespace_, s.kind, s.name);
    }
    dags.insert(e.dags.begin(), e.dags.end());
  }
  rec.title = std::to_string(findings.size()) + " busy node(s) shared by workflow tasks of " +
              std::to_string(dags.size()) + " DAG(s) and " + std::to_string(services.size()) +
              " long-running service(s)";
  rec.action = "Split the nodes into two pools labelled " + label + "=batch and " + label +
               "=online (kubectl label nodes), then pin workflow tasks to the batch pool and "
               "services to the online pool with the nodeSelectors below; or, where one pool "
               "must serve both, run the heavy DAGs in a time window when services are quiet "
               "(a CronJob schedule).";
  rec.patches = poolPatches(label, dags, service_refs, config, cluster);
  rec.impact_score = shared_cores;
  rec.impact = "about " + std::to_string(static_cast<long long>(shared_cores)) +
               " CPU core(s) of requests stop competing between batch and online work";
  rec.evidence = {{"nodes", nodes},
                  {"services", std::vector<std::string>(services.begin(), services.end())},
                  {"dags", std::vector<std::string>(dags.begin(), dags.end())}};
  return {std::move(rec)};
}

}  // namespace dagadvisor::advice
