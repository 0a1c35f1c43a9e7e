// The emitting half of ScrapeEvaluator: the samples each catalog query would have returned,
// labelled exactly as ClusterBuilder reads them.
#include <algorithm>
#include <cmath>
#include <set>

#include "ingestion/scrape_eval.h"

namespace dagadvisor::ingestion {
namespace {

using sources::LabelView;
using sources::SampleView;

// One emitted sample: its labels are collected here and handed over as a SampleView.
class Emitter {
 public:
  Emitter(const sources::SampleVisitor& visit, UnixSeconds at) : visit_(visit), at_(at) {}

  /// An empty value is no label, as in Prometheus.
  Emitter& add(std::string_view name, std::string_view value) {
    if (!value.empty()) {
      labels_.emplace_back(name, value);
    }
    return *this;
  }
  Emitter& add(const scrape::LabelPairs& pairs) {
    for (const auto& [name, value] : pairs) {
      add(name, value);
    }
    return *this;
  }
  /// The labels added so far stay for every following sample, until clear().
  Emitter& keep() {
    base_ = labels_.size();
    return *this;
  }
  void send(double value) {
    visit_(SampleView{labels_.data(), labels_.size(), at_, value});
    labels_.resize(base_);
  }
  void clear() {
    labels_.clear();
    base_ = 0;
  }

 private:
  const sources::SampleVisitor& visit_;
  UnixSeconds at_;
  std::vector<LabelView> labels_;
  std::size_t base_ = 0;
};

// The pod_requests query's series of one pod: each app container's requests, and its largest
// init container's per resource, without a container label.
void emitRequests(const scrape::PodFacts& p, Emitter& out) {
  std::vector<std::pair<std::string_view, double>> init;
  for (const scrape::PodFacts::Request& r : p.requests) {
    if (!r.init) {
      out.add("container", r.container).add("resource", r.resource).send(r.value);
      continue;
    }
    auto it = std::find_if(init.begin(), init.end(),
                           [&](const auto& largest) { return largest.first == r.resource; });
    if (it == init.end()) {
      init.emplace_back(r.resource, r.value);
    } else {
      it->second = std::max(it->second, r.value);
    }
  }
  for (const auto& [resource, amount] : init) {
    out.add("resource", resource).send(amount);
  }
}

// The pod_spec query's series of one pod, while it is listed unbound now (the query's join on
// kube_pod_info{node=""}): its tolerations and node selector.
void emitSpec(const scrape::PodFacts& p, bool live, Emitter& out) {
  if (!live || !p.has_info || !p.node.empty()) {
    return;
  }
  for (const auto& [key, op, value, effect, seconds] : p.tolerations) {
    out.add("spec", "toleration").add("key", key).add("operator", op).add("value", value);
    out.add("effect", effect).add("toleration_seconds", seconds).send(1);
  }
  if (p.has_node_selector) {
    out.add("spec", "node_selector").add(p.node_selector).send(1);
  }
}

void emitPod(QueryId id, const scrape::PodFacts& p, bool live, Emitter& out) {
  out.add("namespace", p.namespace_).add("pod", p.name).add("uid", p.uid).keep();
  switch (id) {
    case QueryId::kPodInfo:
      if (p.has_info) {
        out.add("node", p.node).add("created_by_kind", p.created_by_kind);
        out.add("created_by_name", p.created_by_name).add("priority_class", p.priority_class);
        out.send(1);
      }
      break;
    case QueryId::kPodLive:
      if (live) {
        out.send(1);
      }
      break;
    case QueryId::kPodPhase:
      if (!p.phase.empty()) {
        out.add("phase", p.phase).send(1);
      }
      break;
    case QueryId::kPodRequests:
      emitRequests(p, out);
      break;
    case QueryId::kPodSpec:
      emitSpec(p, live, out);
      break;
    case QueryId::kPodLabels:
      if (p.has_labels) {
        out.add(p.labels).send(1);
      }
      break;
    case QueryId::kPodAnnotations:
      if (p.has_annotations) {
        out.add(p.annotations).send(1);
      }
      break;
    case QueryId::kPodOwner:
      for (const auto& [kind, owner] : p.owners) {
        out.add("owner_kind", kind).add("owner_name", owner).send(1);
      }
      break;
    default:
      if (isPodTime(id)) {
        const double time =
            p.times[static_cast<std::size_t>(id) - static_cast<std::size_t>(QueryId::kPodCreated)];
        if (!std::isnan(time)) {
          out.send(time);
        }
      }
  }
  out.clear();
}

}  // namespace

void ScrapeEvaluator::emit(QueryId id, const sources::SampleVisitor& visit) const {
  switch (id) {
    case QueryId::kNodeAllocatable:
    case QueryId::kNodeLabels:
    case QueryId::kNodeTaints:
      emitNodes(id, visit);
      break;
    case QueryId::kSchedulingLatency:
    case QueryId::kSchedulerSignals:
      emitScheduler(id, visit);
      break;
    default:
      if (isPodUsage(id)) {
        emitUsage(id, visit);
      } else {
        emitPods(id, visit);
      }
  }
}

void ScrapeEvaluator::emitPods(QueryId id, const sources::SampleVisitor& visit) const {
  Emitter out(visit, now_);
  for (const auto& [key, pod] : pods_) {
    emitPod(id, pod, pod.live_cycle == cycle_, out);
  }
  if (id == QueryId::kPodSpec) {
    emitSpecFamilies(visit);
  }
}

// count() over a family answers nothing when it has no series.
void ScrapeEvaluator::emitSpecFamilies(const sources::SampleVisitor& visit) const {
  Emitter out(visit, now_);
  if (toleration_series_ > 0) {
    out.add("spec", "tolerations_exported").send(static_cast<double>(toleration_series_));
  }
  if (node_selector_series_ > 0) {
    out.add("spec", "node_selectors_exported").send(static_cast<double>(node_selector_series_));
  }
}

void ScrapeEvaluator::emitNodes(QueryId id, const sources::SampleVisitor& visit) const {
  Emitter out(visit, now_);
  for (const auto& [name, node] : nodes_) {
    out.add("node", name).keep();
    if (id == QueryId::kNodeAllocatable) {
      for (const auto& [resource, amount] : node.allocatable) {
        out.add("resource", resource).send(amount);
      }
    } else if (id == QueryId::kNodeLabels) {
      if (node.has_labels) {
        out.add(node.labels).send(1);
      }
    } else {
      for (const auto& [key, value, effect] : node.taints) {
        out.add("key", key).add("value", value).add("effect", effect).send(1);
      }
    }
    out.clear();
  }
}

void ScrapeEvaluator::emitScheduler(QueryId id, const sources::SampleVisitor& visit) const {
  Emitter out(visit, now_);
  if (id == QueryId::kSchedulerSignals) {
    for (const auto& [queue, value] : pending_) {
      out.add("signal", "pending").add("queue", queue).send(value);
    }
    for (const auto& [plugin, value] : unschedulable_) {
      out.add("signal", "unschedulable").add("plugin", plugin).send(value);
    }
    for (const auto& [result, value] : attempts_) {
      out.add("signal", "attempts").add("result", result).send(value);
    }
    if (has_preemption_) {
      out.add("signal", "preemption").send(preemption_);
    }
    for (const auto& [point, buckets] : extension_) {
      if (const double p99 = histogramQuantile(0.99, buckets); !std::isnan(p99)) {
        out.add("signal", "extension_p99").add("extension_point", point).send(p99);
      }
    }
    return;
  }
  // Per profile, the first histogram of the configured list that has it wins, as the query's
  // `or on (profile, stat)` does.
  std::set<std::string_view> done;
  for (std::size_t m = 0; m < latency_.size(); ++m) {
    for (const auto& [profile, latency] : latency_[m]) {
      if (!done.insert(profile).second) {
        continue;
      }
      out.add("profile", profile).add("metric", metric_names_[m]).keep();
      for (const auto& [q, stat] : {std::pair{0.5, "p50"}, {0.95, "p95"}, {0.99, "p99"}}) {
        if (const double value = histogramQuantile(q, latency.buckets); !std::isnan(value)) {
          out.add("stat", stat).send(value);
        }
      }
      if (latency.has_rate) {
        out.add("stat", "rate").send(latency.rate);
      }
      out.clear();
    }
  }
}

void ScrapeEvaluator::emitUsage(QueryId id, const sources::SampleVisitor& visit) const {
  Emitter out(visit, now_);
  for (const auto& [key, usage] : usage_) {
    const std::size_t slash = key.find('/');
    const std::string_view k(key);
    out.add("namespace", k.substr(0, slash)).add("pod", k.substr(slash + 1)).keep();
    if (id == QueryId::kPodUsageCpu && usage.has_cpu) {
      out.send(usage.cpu);
    } else if (id == QueryId::kPodUsageSamples && usage.has_cpu) {
      out.send(1);
    } else if (id == QueryId::kPodUsageMemory && usage.memory > 0) {
      out.send(usage.memory);
    } else if (id == QueryId::kPodUsageGpu && usage.gpu_count > 0) {
      out.send(usage.gpu_sum / usage.gpu_count);
    }
    out.clear();
  }
}

}  // namespace dagadvisor::ingestion
