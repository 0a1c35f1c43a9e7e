#include "ingestion/scrape_eval.h"

#include <cmath>
#include <limits>

#include "ingestion/cluster_builder.h"

namespace dagadvisor::ingestion {
namespace {

using scrape::copyPrefixed;
using scrape::realContainer;
using sources::SampleView;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The resources the catalog's queries select (`resource=~"cpu|memory|nvidia_com_gpu|..."`).
bool wantedResource(std::string_view resource) {
  return resource == "cpu" || resource == "memory" || resource == "nvidia_com_gpu" ||
         resource == "amd_com_gpu";
}

// dcgm-exporter's pod label depends on its version and on honor_labels.
std::string_view firstOf(const SampleView& s, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (std::string_view value = s.label(name); !value.empty()) {
      return value;
    }
  }
  return {};
}

}  // namespace

ScrapeEvaluator::ScrapeEvaluator(const config::MetricNames& m, config::Seconds lookback)
    : metric_names_(m.scheduling_latency), lookback_(lookback.count()) {
  auto add = [&](const std::string& name, Family family, std::size_t index = 0) {
    families_.try_emplace(name, family, index);
  };
  add(m.node_allocatable, Family::kNodeAllocatable);
  add(m.node_labels, Family::kNodeLabels);
  add(m.node_taint, Family::kNodeTaint);
  add(m.pod_info, Family::kPodInfo);
  add(m.pod_labels, Family::kPodLabels);
  add(m.pod_annotations, Family::kPodAnnotations);
  add(m.pod_owner, Family::kPodOwner);
  add(m.pod_requests, Family::kPodRequests);
  add(m.pod_init_requests, Family::kPodInitRequests);
  add(m.pod_phase, Family::kPodPhase);
  add(m.pod_tolerations, Family::kPodToleration);
  add(m.pod_nodeselectors, Family::kPodNodeSelector);
  add(m.pod_created, Family::kPodCreated);
  add(m.pod_scheduled_time, Family::kPodScheduled);
  add(m.pod_start_time, Family::kPodStarted);
  add(m.pod_completion_time, Family::kPodFinished);
  for (std::size_t i = 0; i < metric_names_.size(); ++i) {
    add(metric_names_[i] + "_bucket", Family::kLatencyBucket, i);
    add(metric_names_[i] + "_count", Family::kLatencyCount, i);
  }
  add(m.scheduler_pending_pods, Family::kPending);
  add(m.scheduler_unschedulable_pods, Family::kUnschedulable);
  add(m.scheduler_schedule_attempts, Family::kAttempts);
  add(m.scheduler_preemption_attempts, Family::kPreemption);
  add(m.scheduler_extension_point_duration + "_bucket", Family::kExtensionBucket);
  add(m.container_cpu_usage, Family::kCpu);
  add(m.container_memory_working_set, Family::kMemory);
  add(m.gpu_utilization, Family::kGpu);
  add("process_start_time_seconds", Family::kProcessStart);
}

void ScrapeEvaluator::beginCycle(UnixSeconds now) {
  now_ = now;
  ++cycle_;
  nodes_.clear();
  next_counters_.clear();
  latency_.assign(metric_names_.size(), {});
  extension_.clear();
  pending_.clear();
  unschedulable_.clear();
  attempts_.clear();
  preemption_ = 0;
  has_preemption_ = false;
  usage_.clear();
  toleration_series_ = 0;
  node_selector_series_ = 0;
}

Result<void> ScrapeEvaluator::addBody(const sources::scrape::ScrapedBody& body) {
  BodyState state{body.target, kNaN, {}};
  const sources::exposition::ParseOptions options{body.format, body.scraped_at};
  auto parsed = sources::exposition::parseExposition(
      body.body, options, [&](const SampleView& sample) { addSample(state, sample); });
  if (!parsed.ok()) {
    return makeError("scrape " + std::string(body.target) + ": " + parsed.error().describe(),
                     std::string(body.target));
  }
  settle(state);
  return {};
}

void ScrapeEvaluator::endCycle() {
  counters_.swap(next_counters_);
  next_counters_.clear();
  for (auto it = pods_.begin(); it != pods_.end();) {
    it = it->second.last_seen < now_ - lookback_ ? pods_.erase(it) : std::next(it);
  }
}

void ScrapeEvaluator::addSample(BodyState& state, const SampleView& sample) {
  if (sample.label_count == 0) {
    return;
  }
  key_.assign(sample.labels[0].second);
  const auto it = families_.find(key_);
  if (it == families_.end()) {
    return;
  }
  const auto [family, metric] = it->second;
  switch (family) {
    case Family::kNodeAllocatable:
    case Family::kNodeLabels:
    case Family::kNodeTaint:
      addNodeSample(family, sample);
      break;
    case Family::kLatencyBucket:
    case Family::kLatencyCount:
    case Family::kAttempts:
    case Family::kPreemption:
    case Family::kExtensionBucket:
    case Family::kCpu:
      addCounterSample(state, family, metric, sample);
      break;
    case Family::kPending:
    case Family::kUnschedulable:
    case Family::kMemory:
    case Family::kGpu:
      addGaugeSample(family, sample);
      break;
    case Family::kProcessStart:
      state.process_start = sample.value;
      break;
    default:
      addPodSample(family, sample);
  }
}

ScrapeEvaluator::PodFacts& ScrapeEvaluator::podFor(const SampleView& sample) {
  const std::string_view ns = sample.label("namespace");
  const std::string_view name = sample.label("pod");
  const std::string_view uid = sample.label("uid");
  key_.assign(ns);
  key_ += '/';
  key_ += name;
  key_ += '/';
  key_ += uid;
  auto it = pods_.find(key_);
  if (it == pods_.end()) {
    it = pods_.try_emplace(key_).first;
    it->second.namespace_ = ns;
    it->second.name = name;
    it->second.uid = uid;
  }
  PodFacts& pod = it->second;
  if (pod.cycle != cycle_) {
    pod.resetFacts();  // this scrape replaces what an earlier one said
    pod.cycle = cycle_;
    pod.last_seen = now_;
  }
  return pod;
}

void ScrapeEvaluator::addPodSample(Family family, const SampleView& s) {
  if (s.label("pod").empty()) {
    return;
  }
  PodFacts& pod = podFor(s);
  switch (family) {
    case Family::kPodInfo:
      pod.has_info = true;
      pod.live_cycle = cycle_;
      // A pod has one info series before binding (node="") and one after; the bound one wins.
      if (pod.node.empty()) {
        pod.node = s.label("node");
      }
      pod.created_by_kind = s.label("created_by_kind");
      pod.created_by_name = s.label("created_by_name");
      pod.priority_class = s.label("priority_class");
      break;
    case Family::kPodLabels:
      pod.has_labels = true;
      copyPrefixed(s, "label_", pod.labels);
      break;
    case Family::kPodAnnotations:
      pod.has_annotations = true;
      copyPrefixed(s, "annotation_", pod.annotations);
      break;
    case Family::kPodOwner:
      pod.addOwner(s.label("owner_kind"), s.label("owner_name"));
      break;
    case Family::kPodRequests:
    case Family::kPodInitRequests:
      if (wantedResource(s.label("resource")) && std::isfinite(s.value)) {
        pod.addRequest(s.label("container"), s.label("resource"), s.value,
                       family == Family::kPodInitRequests);
      }
      break;
    case Family::kPodPhase:
      if (s.value == 1) {
        pod.phase = s.label("phase");
      }
      break;
    case Family::kPodToleration:
      ++toleration_series_;
      pod.addToleration(s);
      break;
    case Family::kPodNodeSelector:
      ++node_selector_series_;
      pod.has_node_selector = true;
      copyPrefixed(s, "nodeselector_", pod.node_selector);
      break;
    default:
      pod.addTime(static_cast<std::size_t>(family) - static_cast<std::size_t>(Family::kPodCreated),
                  s.value);
  }
}

void ScrapeEvaluator::addNodeSample(Family family, const SampleView& s) {
  const std::string_view name = s.label("node");
  if (name.empty()) {
    return;
  }
  key_.assign(name);
  NodeFacts& node = nodes_[key_];
  switch (family) {
    case Family::kNodeAllocatable:
      if (wantedResource(s.label("resource")) && std::isfinite(s.value)) {
        node.addAllocatable(s.label("resource"), s.value);
      }
      break;
    case Family::kNodeLabels:
      node.has_labels = true;
      copyPrefixed(s, "label_", node.labels);
      break;
    default:
      node.addTaint(s.label("key"), s.label("value"), s.label("effect"));
  }
}

void ScrapeEvaluator::addGaugeSample(Family family, const SampleView& s) {
  if (!std::isfinite(s.value)) {
    return;
  }
  if (family == Family::kPending) {
    pending_[std::string(s.label("queue"))] += s.value;
  } else if (family == Family::kUnschedulable) {
    unschedulable_[std::string(s.label("plugin"))] += s.value;
  } else if (family == Family::kMemory) {
    if (realContainer(s.label("container")) && !s.label("pod").empty()) {
      key_.assign(s.label("namespace"));
      key_ += '/';
      key_ += s.label("pod");
      usage_[key_].memory += s.value;
    }
  } else {
    const std::string_view pod = firstOf(s, {"pod", "exported_pod", "pod_name"});
    if (!pod.empty()) {
      key_.assign(firstOf(s, {"namespace", "exported_namespace"}));
      key_ += '/';
      key_ += pod;
      Usage& usage = usage_[key_];
      usage.gpu_sum += s.value;
      ++usage.gpu_count;
    }
  }
}

model::ClusterSnapshot buildScrapedSnapshot(const ScrapeEvaluator& evaluator, UnixSeconds at) {
  ClusterBuilder builder(at);
  for (std::size_t i = 0; i < kQueryCount; ++i) {
    const auto id = static_cast<QueryId>(i);
    evaluator.emit(id, [&](const SampleView& sample) { builder.add(id, sample); });
  }
  return std::move(builder).build();
}

}  // namespace dagadvisor::ingestion
