#include "model/query_catalog.h"

#include <chrono>
#include <string_view>

#include "common/duration.h"

namespace dagadvisor::model {
namespace {

constexpr std::string_view kPodKey = "namespace, pod, uid";

// `metric{matchers,selector}` with the user's selector (e.g. cluster="prod") appended.
std::string select(std::string_view metric, std::string_view matchers, std::string_view selector) {
  std::string out(metric);
  out += '{';
  out += matchers;
  if (!matchers.empty() && !selector.empty()) {
    out += ", ";
  }
  out += selector;
  out += '}';
  return out;
}

std::string maxBy(std::string_view labels, const std::string& inner) {
  return "max by (" + std::string(labels) + ") (" + inner + ")";
}

}  // namespace

QueryCatalog::QueryCatalog(const config::PrometheusSource& s) {
  const auto& m = s.metrics;
  const std::string& sel = s.selector;
  const std::string lookback =
      "[" + formatDuration(std::chrono::duration_cast<Duration>(s.lookback)) + "]";
  auto recent = [&](std::string_view metric, std::string_view matchers = {}) {
    return "last_over_time(" + select(metric, matchers, sel) + lookback + ")";
  };
  auto pod = [&](std::string_view extra) {
    return std::string(kPodKey) + (extra.empty() ? "" : ", ") + std::string(extra);
  };
  constexpr std::string_view kResources = R"(resource=~"cpu|memory|nvidia_com_gpu")";

  auto set = [&](QueryId id, std::string name, std::string promql) {
    queries_[static_cast<std::size_t>(id)] = {std::move(name), std::move(promql)};
  };
  set(QueryId::kNodeAllocatable, "node_allocatable",
      maxBy("node, resource", select(m.node_allocatable, kResources, sel)));
  // Label sets are identical across replicas, so duplicates only repeat the same facts.
  set(QueryId::kNodeLabels, "node_labels", select(m.node_labels, "", sel));
  set(QueryId::kNodeTaints, "node_taints",
      maxBy("node, key, value, effect", select(m.node_taint, "", sel)));
  set(QueryId::kPodInfo, "pod_info",
      maxBy(pod("node, created_by_kind, created_by_name, priority_class"), recent(m.pod_info)));
  set(QueryId::kPodLive, "pod_live", maxBy(kPodKey, select(m.pod_info, "", sel)));
  set(QueryId::kPodPhase, "pod_phase", maxBy(pod("phase"), recent(m.pod_phase)) + " == 1");
  set(QueryId::kPodRequests, "pod_requests",
      "sum by (" + pod("resource") + ") (" +
          maxBy(pod("container, resource"), recent(m.pod_requests, kResources)) + ")");
  set(QueryId::kPodLabels, "pod_labels", recent(m.pod_labels));
  set(QueryId::kPodAnnotations, "pod_annotations", recent(m.pod_annotations));
  set(QueryId::kPodOwner, "pod_owner", maxBy(pod("owner_kind, owner_name"), recent(m.pod_owner)));
  set(QueryId::kPodCreated, "pod_created", maxBy(kPodKey, recent(m.pod_created)));
  set(QueryId::kPodScheduled, "pod_scheduled", maxBy(kPodKey, recent(m.pod_scheduled_time)));
  set(QueryId::kPodStarted, "pod_started", maxBy(kPodKey, recent(m.pod_start_time)));
  set(QueryId::kPodCompleted, "pod_completed", maxBy(kPodKey, recent(m.pod_completion_time)));
}

}  // namespace dagadvisor::model
