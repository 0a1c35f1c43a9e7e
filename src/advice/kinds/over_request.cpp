#include "advice/kinds/over_request.h"

#include "advice/kinds/finding_groups.h"
#include "advice/patch_yaml.h"
#include "advice/pod_owners.h"
#include "analysis/detectors/over_request.h"

namespace dagadvisor::advice {
namespace {

using analysis::OverRequestEvidence;

constexpr double kMiB = 1024.0 * 1024;

std::string resources(const model::ResourceVector& r) {
  return std::to_string(r.cpu_millis) + "m CPU and " +
         std::to_string(static_cast<long long>(static_cast<double>(r.memory_bytes) / kMiB)) +
         " MiB";
}

// Each container's share of the pod's request, applied to the recommended total: a sidecar
// that asks for a tenth keeps a tenth. Rounded to whole millicores and bytes.
std::int64_t share(std::int64_t part, std::int64_t whole, std::int64_t total, std::size_t count) {
  if (whole <= 0) {
    return total / static_cast<std::int64_t>(count);
  }
  return static_cast<std::int64_t>(static_cast<double>(total) * static_cast<double>(part) /
                                   static_cast<double>(whole));
}

std::vector<Patch> requestsPatches(const OverRequestEvidence& e, const WorkloadRef& ref,
                                   const model::ClusterSnapshot& cluster) {
  if (e.containers.empty()) {
    // Without the real names a patch would add a container instead of changing one.
    return {};
  }
  RequestsPatchSpec spec{ref.api_version, ref.kind, e.namespace_, ref.name, {}};
  model::ResourceVector whole;
  for (const model::ContainerRequests& c : e.containers) {
    whole += c.requests;
  }
  for (const model::ContainerRequests& c : e.containers) {
    const std::size_t n = e.containers.size();
    spec.containers.push_back(
        {c.name, share(c.requests.cpu_millis, whole.cpu_millis, e.recommended.cpu_millis, n),
         share(c.requests.memory_bytes, whole.memory_bytes, e.recommended.memory_bytes, n)});
  }
  Patch patch;
  patch.purpose =
      "containers by their real names (they merge by name: nothing else changes), the "
      "recommended pod total split as their current requests are";
  patch.type = PatchType::kStrategicMerge;
  patch.document = requestsPatch(spec);
  // Without a pod template to patch (Jobs, engines' pods), the pods themselves, as their
  // manifest is written.
  patch.object = ref.kind.empty()
                     ? PatchObject{"v1", "Pod", e.namespace_, {}}
                     : PatchObject{ref.api_version, ref.kind, e.namespace_, {ref.name}};
  patch.pods =
      podsOf(cluster, ref.kind.empty() ? PatchObject{"", e.owner_kind, e.namespace_, {e.owner_name}}
                                       : patch.object);
  if (ref.kind.empty() && patch.pods) {
    patch.object.names = patch.pods->names;
  }
  spec.kind.clear();
  patch.pod_document = requestsPatch(spec);
  // A live pod's requests cannot change: without a template, the patch goes into the manifest
  // its engine or Job creates the pods from.
  patch.command = ref.kind.empty() ? "kubectl patch --local -f <pod manifest of " + ref.name +
                                         "> --type=strategic --patch-file <this document> -o yaml"
                                   : "kubectl patch " + ref.kind + " " + ref.name + " -n " +
                                         e.namespace_ + " --patch-file <this document>";
  return {std::move(patch)};
}

Recommendation adviseWorkload(const analysis::Finding& f, const config::Config& config,
                              const model::ClusterSnapshot& cluster) {
  const auto& e = f.evidenceAs<OverRequestEvidence>();
  const WorkloadRef ref = workloadOf(e.owner_kind, e.owner_name);
  Recommendation rec;
  rec.kind = std::string(OverRequestEvidence::kKind);
  rec.target = f.target;
  rec.evidence = {{"pods", cover(rec, {&f})}};
  rec.patches = requestsPatches(e, ref, cluster);
  if (!rec.patches.empty()) {
    rec.changes.changes.push_back(
        replay::SetRequests{{e.namespace_, {}, e.owner_kind, e.owner_name},
                            e.recommended.cpu_millis,
                            e.recommended.memory_bytes,
                            std::nullopt});
  }
  rec.title = f.summary;
  const bool needed = e.needed != model::ResourceVector{};
  rec.action = "Lower the requests of " + ref.name + " to the observed use plus " +
               std::to_string(static_cast<int>(
                   config.detectors.get<analysis::OverRequestSettings>().headroom * 100)) +
               "% headroom (the CPU percentile and the memory peak of the usage window)" +
               (needed ? ", so the full nodes it runs on have room for pending pods."
                       : ". It is hygiene, not a fix for what pends now: no pending pod lacks "
                         "what it frees, where it frees it (another resource blocks them there, "
                         "or none pends).");
  rec.impact_score = f.impact;
  rec.impact = needed ? resources(e.needed) + " freed where pending pods lack it (of " +
                            resources(e.reclaimable) + " freed in all; measured use)"
                      : "frees nothing pending pods need now (" + resources(e.reclaimable) +
                            " of requests freed on contended nodes)";
  return rec;
}

}  // namespace

std::vector<Recommendation> adviseOverRequest(const FindingList& findings,
                                              const config::Config& config,
                                              const model::ClusterSnapshot& cluster) {
  std::vector<Recommendation> out;
  for (const analysis::Finding* f : findings) {
    out.push_back(adviseWorkload(*f, config, cluster));
  }
  return out;
}

}  // namespace dagadvisor::advice
