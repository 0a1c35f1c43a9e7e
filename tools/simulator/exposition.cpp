#include "exposition.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "builders.h"
#include "rng.h"

namespace dagadvisor::sim {
namespace {

constexpr const char* kProfile = "default-scheduler";
constexpr double kGpuMemoryMib = 81920;  // framebuffer of the simulated GPU model
constexpr const char* kPhases[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};

// Slots of the per-pod series, so thinning state needs no map keyed by label strings.
enum Slot {
  kInfo,
  kInfoBound,
  kLabels,
  kAnnotations,
  kOwner,
  kReq,  // 3 unbound (cpu, memory, gpu), then 3 bound
  kPhase = kReq + 6,
  kCreated = kPhase + 5,
  kScheduledTime,
  kStartTime,
  kCompletionTime,
  kUnschedulable,
  kCondition,  // true, false, unknown
  kMemory = kCondition + 3,
  kSlotCount
};

enum NodeSlot {
  kNodeInfo,
  kNodeLabels,
  kNodeCapacity,  // 4: cpu, memory, pods, nvidia_com_gpu
  kNodeAllocatable = kNodeCapacity + 4,
  kNodeUnschedulable = kNodeAllocatable + 4,
  kNodeTaints,  // one per taint
};

// Bucket bounds as kube-scheduler declares them (metrics.ExponentialBuckets).
const std::vector<double>& kSliBuckets() {
  static const std::vector<double> kBounds = exponentialBuckets(0.01, 2, 20);
  return kBounds;
}

const std::vector<double>& kAttemptBuckets() {
  static const std::vector<double> kBounds = exponentialBuckets(0.001, 2, 15);
  return kBounds;
}

std::string escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string label(const char* name, const std::string& value) {
  return std::string(name) + "=\"" + escape(value) + "\"";
}

std::string podIp(const Pod& p) {
  return "10." + std::to_string(100 + p.node / 250) + "." + std::to_string(p.node % 250) + "." +
         std::to_string(p.id % 250 + 2);
}

bool between(double t, double from, double to) {
  return t >= from && t < to;
}

}  // namespace

std::vector<double> exponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(start * std::pow(factor, i));
  }
  return out;
}

std::string formatNumber(double value) {
  if (std::isinf(value)) {
    return value > 0 ? "+Inf" : "-Inf";
  }
  if (std::isnan(value)) {
    return "NaN";
  }
  char buf[64];
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(value));
    return std::string(buf, r.ptr);
  }
  auto r = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, r.ptr);
}

SampleWriter::SampleWriter(std::FILE* out, bool timestamps, double refresh)
    : out_(out), timestamps_(timestamps), refresh_(refresh) {}

SampleWriter::~SampleWriter() {
  finish();
}

// OpenMetrics names a counter family without `_total`; the 0.0.4 text format names it as sampled.
void SampleWriter::family(const char* name, const char* type, const char* help) {
  std::string family(name);
  if (!timestamps_ && std::string(type) == "counter") {
    family += "_total";
  }
  buffer_ += "# HELP " + family + " " + help + "\n# TYPE " + family + " " + type + "\n";
}

bool SampleWriter::due(SeriesState& state, double value, double time) {
  if (refresh_ > 0 && state.value == value && time - state.time < refresh_) {
    return false;
  }
  state.value = value;
  state.time = time;
  return true;
}

void SampleWriter::sample(SeriesState& state, const char* name, const std::string& labels,
                          double value, double time) {
  if (due(state, value, time)) {
    sample(name, labels, value, time);
  }
}

void SampleWriter::sample(const char* name, const std::string& labels, double value, double time) {
  buffer_ += name;
  buffer_ += '{';
  buffer_ += labels;
  buffer_ += "} ";
  buffer_ += formatNumber(value);
  if (timestamps_) {
    buffer_ += ' ';
    buffer_ += formatNumber(time);
  }
  buffer_ += '\n';
  ++samples_;
  flushIfLarge();
}

void SampleWriter::flushIfLarge() {
  if (buffer_.size() > (1u << 20)) {
    std::fwrite(buffer_.data(), 1, buffer_.size(), out_);
    buffer_.clear();
  }
}

void SampleWriter::raw(const std::string& text) {
  buffer_ += text;
}

void SampleWriter::finish() {
  if (!buffer_.empty()) {
    std::fwrite(buffer_.data(), 1, buffer_.size(), out_);
    buffer_.clear();
  }
}

Exposition::Exposition(const History& history, SampleWriter& writer, bool usage)
    : h_(history), w_(writer), usage_(usage), sli_(history.sli), attempts_(history.attempts) {
  nodeStates_.resize(h_.nodes.size());
  podStates_.resize(h_.pods.size());
  for (std::size_t i = 0; i < h_.pods.size(); ++i) {
    byCreation_.push_back(static_cast<int>(i));
  }
  std::stable_sort(byCreation_.begin(), byCreation_.end(), [&](int a, int b) {
    return h_.pods[static_cast<std::size_t>(a)].created <
           h_.pods[static_cast<std::size_t>(b)].created;
  });
  auto byTime = [](const auto& a, const auto& b) {
    return a.time < b.time;
  };
  std::stable_sort(sli_.begin(), sli_.end(), byTime);
  std::stable_sort(attempts_.begin(), attempts_.end(), byTime);
}

void Exposition::writeHeader() {
  struct Family {
    const char* name;
    const char* type;
    const char* help;
  };
  static const Family kFamilies[] = {
      {"kube_node_info", "gauge", "Information about a cluster node."},
      {"kube_node_labels", "gauge", "Kubernetes labels converted to Prometheus labels."},
      {"kube_node_status_capacity", "gauge", "The capacity for different resources of a node."},
      {"kube_node_status_allocatable", "gauge",
       "The allocatable for different resources of a node that are available for scheduling."},
      {"kube_node_spec_taint", "gauge", "The taint of a cluster node."},
      {"kube_node_spec_unschedulable", "gauge", "Whether a node can schedule new pods."},
      {"kube_pod_info", "gauge", "Information about pod."},
      {"kube_pod_labels", "gauge", "Kubernetes labels converted to Prometheus labels."},
      {"kube_pod_annotations", "gauge", "Kubernetes annotations converted to Prometheus labels."},
      {"kube_pod_owner", "gauge", "Information about the Pod's owner."},
      {"kube_pod_container_resource_requests", "gauge",
       "The number of requested request resource by a container."},
      {"kube_pod_status_phase", "gauge", "The pods current phase."},
      {"kube_pod_created", "gauge", "Unix creation timestamp"},
      {"kube_pod_status_scheduled_time", "gauge",
       "Unix timestamp when pod moved into scheduled status"},
      {"kube_pod_start_time", "gauge", "Start time in unix timestamp for a pod."},
      {"kube_pod_completion_time", "gauge", "Completion time in unix timestamp for a pod."},
      {"kube_pod_status_unschedulable", "gauge", "Describes the unschedulable status for the pod."},
      {"kube_pod_status_scheduled", "gauge",
       "Describes the status of the scheduling process for the pod."},
      {"kube_pod_tolerations", "gauge", "Information about the pod tolerations"},
      {"kube_pod_nodeselectors", "gauge", "Describes the Pod nodeSelectors."},
      {"scheduler_pod_scheduling_sli_duration_seconds", "histogram",
       "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue "
       "and might involve multiple scheduling attempts."},
      {"scheduler_pod_scheduling_duration_seconds", "histogram",
       "E2e latency for a pod being scheduled which may include multiple scheduling attempts."},
      {"scheduler_scheduling_attempt_duration_seconds", "histogram",
       "Scheduling attempt latency in seconds (scheduling algorithm + binding)"},
      {"scheduler_schedule_attempts", "counter",
       "Number of attempts to schedule pods, by the result."},
      {"scheduler_pending_pods", "gauge", "Number of pending pods, by the queue type."},
      {"container_cpu_usage_seconds", "counter", "Cumulative cpu time consumed in seconds."},
      {"container_memory_working_set_bytes", "gauge", "Current working set in bytes."},
      {"container_network_receive_bytes", "counter", "Cumulative count of bytes received"},
      {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %)."},
      {"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB)."},
      {"scheduler_unschedulable_pods", "gauge",
       "The number of unschedulable pods broken down by plugin name. A pod will increment the "
       "gauge for all plugins that caused it to not schedule and so this metric have meaning only "
       "when broken down by plugin."},
  };
  for (const auto& f : kFamilies) {
    if (!usage_ && (std::string(f.name).rfind("container_", 0) == 0 ||
                    std::string(f.name).rfind("DCGM", 0) == 0)) {
      continue;
    }
    if (!h_.scenario->scheduler.legacyDurationMetric &&
        std::string(f.name) == "scheduler_pod_scheduling_duration_seconds") {
      continue;
    }
    if (!h_.scenario->output.nodeSelectorsMetric &&
        std::string(f.name) == "kube_pod_nodeselectors") {
      continue;  // an opt-in family of kube-state-metrics
    }
    w_.family(f.name, f.type, f.help);
  }
}

void Exposition::writeStep(double t) {
  double unixTime = static_cast<double>(h_.scenario->start) + t;
  const OutputSpec& o = h_.scenario->output;
  // cAdvisor and DCGM may be scraped less often than kube-state-metrics: at the first step at
  // or after each usage interval.
  usageNow_ = usage_ && (o.usageStep <= 0 || t - lastUsage_ >= o.usageStep - 1e-6);
  if (usageNow_) {
    lastUsage_ = t;
  }
  updateActive(t);
  nodes(t, unixTime);
  pods(t, unixTime);
  scheduler(t, unixTime);
  if (usageNow_) {
    gpus(t, unixTime);
  }
}

void Exposition::updateActive(double t) {
  while (nextCreated_ < byCreation_.size() &&
         h_.pods[static_cast<std::size_t>(byCreation_[nextCreated_])].created <= t) {
    active_.push_back(byCreation_[nextCreated_++]);
  }
  std::erase_if(active_, [&](int id) {
    if (h_.pods[static_cast<std::size_t>(id)].deleted > t) {
      return false;
    }
    podStates_[static_cast<std::size_t>(id)] = PodState{};  // free the cached label text
    return true;
  });
}

void Exposition::nodes(double, double ts) {
  for (std::size_t i = 0; i < h_.nodes.size(); ++i) {
    node(h_.nodes[i], nodeStates_[i], ts);
  }
}

void Exposition::node(const Node& n, std::vector<SeriesState>& st, double ts) {
  st.resize(kNodeTaints + n.taints.size());
  const std::string base = label("job", "kube-state-metrics") + "," +
                           label("instance", instances_.ksm) + "," + label("node", n.name);
  w_.sample(st[kNodeInfo], "kube_node_info",
            base + "," + label("internal_ip", n.ip) + "," + label("kubelet_version", "v1.29.4") +
                "," + label("container_runtime_version", "containerd://1.7.13") + "," +
                label("os_image", "Ubuntu 22.04.4 LTS") + "," +
                label("provider_id", "sim://" + n.zone + "/" + n.name),
            1, ts);
  std::string labels = base;
  for (const auto& [k, v] : n.labels) {
    labels += "," + label(("label_" + sanitizeLabelKey(k)).c_str(), v);
  }
  w_.sample(st[kNodeLabels], "kube_node_labels", labels, 1, ts);
  nodeResources(n, st, base, ts);
  w_.sample(st[kNodeUnschedulable], "kube_node_spec_unschedulable", base, 0, ts);
  for (std::size_t k = 0; k < n.taints.size(); ++k) {
    const Taint& taint = n.taints[k];
    w_.sample(st[kNodeTaints + k], "kube_node_spec_taint",
              base + "," + label("key", taint.key) + "," + label("value", taint.value) + "," +
                  label("effect", taint.effect),
              1, ts);
  }
}

void Exposition::nodeResources(const Node& n, std::vector<SeriesState>& st, const std::string& base,
                               double ts) {
  struct Amount {
    const char* resource;
    const char* unit;
    double capacity;
    double allocatable;
  };
  const Amount amounts[] = {{"cpu", "core", n.capacity.cpu, n.allocatable.cpu},
                            {"memory", "byte", n.capacity.memory, n.allocatable.memory},
                            {"pods", "integer", static_cast<double>(n.capacity.pods),
                             static_cast<double>(n.allocatable.pods)},
                            {"nvidia_com_gpu", "integer", static_cast<double>(n.capacity.gpu),
                             static_cast<double>(n.allocatable.gpu)}};
  for (std::size_t r = 0; r < 4; ++r) {
    if (amounts[r].capacity == 0) {
      continue;  // kube-state-metrics lists extended resources only where they exist
    }
    std::string l =
        base + "," + label("resource", amounts[r].resource) + "," + label("unit", amounts[r].unit);
    w_.sample(st[kNodeCapacity + r], "kube_node_status_capacity", l, amounts[r].capacity, ts);
    w_.sample(st[kNodeAllocatable + r], "kube_node_status_allocatable", l, amounts[r].allocatable,
              ts);
  }
}

void Exposition::pods(double t, double ts) {
  for (int id : active_) {
    pod(h_.pods[static_cast<std::size_t>(id)], podStates_[static_cast<std::size_t>(id)], t, ts);
  }
}

void Exposition::pod(const Pod& p, PodState& st, double t, double ts) {
  if (st.base.empty()) {
    st.slots.resize(kSlotCount + p.scheduling.tolerations.size() + 1);
    st.base = label("job", "kube-state-metrics") + "," + label("instance", instances_.ksm) + "," +
              label("namespace", p.ns) + "," + label("pod", p.name) + "," + label("uid", p.uid);
  }
  bool bound = t >= p.scheduled;
  podIdentity(p, st, bound, ts);
  podRequests(p, st, bound, ts);
  int phase = p.evicted && t >= p.finished ? 3 : (t < p.started ? 0 : (t < p.finished ? 1 : 2));
  for (int k = 0; k < 5; ++k) {
    w_.sample(st.slots[static_cast<std::size_t>(kPhase + k)], "kube_pod_status_phase",
              st.base + "," + label("phase", kPhases[k]), k == phase ? 1 : 0, ts);
  }
  podTimes(p, st, t, ts);
  if (usageNow_ && between(t, p.started, p.finished)) {
    podUsage(p, st, t, ts);
  }
}

// Info, labels, annotations and owner. Binding sets node, host_ip and pod_ip, which starts a
// new kube_pod_info series, as it does in kube-state-metrics.
void Exposition::podIdentity(const Pod& p, PodState& st, bool bound, double ts) {
  const Node* n = bound ? &h_.nodes[static_cast<std::size_t>(p.node)] : nullptr;
  const std::string ownerKind = p.ownerKind.empty() ? "<none>" : p.ownerKind;
  const std::string ownerName = p.ownerKind.empty() ? "<none>" : p.ownerName;
  w_.sample(st.slots[bound ? kInfoBound : kInfo], "kube_pod_info",
            st.base + "," + label("node", n ? n->name : "") + "," +
                label("created_by_kind", ownerKind) + "," + label("created_by_name", ownerName) +
                "," + label("priority_class", p.priorityClass) + "," +
                label("host_ip", n ? n->ip : "") + "," + label("pod_ip", n ? podIp(p) : "") + "," +
                label("host_network", "false"),
            1, ts);
  std::string labels = st.base;
  for (const auto& [k, v] : p.labels) {
    labels += "," + label(("label_" + sanitizeLabelKey(k)).c_str(), v);
  }
  w_.sample(st.slots[kLabels], "kube_pod_labels", labels, 1, ts);
  std::string annotations = st.base;
  for (const auto& [k, v] : p.annotations) {
    annotations += "," + label(("annotation_" + sanitizeLabelKey(k)).c_str(), v);
  }
  w_.sample(st.slots[kAnnotations], "kube_pod_annotations", annotations, 1, ts);
  w_.sample(st.slots[kOwner], "kube_pod_owner",
            st.base + "," + label("owner_kind", ownerKind) + "," + label("owner_name", ownerName) +
                "," + label("owner_is_controller", p.ownerKind.empty() ? "<none>" : "true"),
            1, ts);
  podSpecSeries(p, st, ts);
}

// kube_pod_tolerations (kube-state-metrics v2.6+: one series per toleration, empty strings for
// absent fields) and, when the scenario turns the opt-in on, kube_pod_nodeselectors.
void Exposition::podSpecSeries(const Pod& p, PodState& st, double ts) {
  const auto& tolerations = p.scheduling.tolerations;
  for (std::size_t i = 0; i < tolerations.size(); ++i) {
    const Toleration& t = tolerations[i];
    w_.sample(st.slots[kSlotCount + i], "kube_pod_tolerations",
              st.base + "," + label("key", t.key) + "," + label("operator", t.op) + "," +
                  label("value", t.value) + "," + label("effect", t.effect) + "," +
                  label("toleration_seconds", t.seconds ? std::to_string(*t.seconds) : ""),
              1, ts);
  }
  if (h_.scenario->output.nodeSelectorsMetric) {
    std::string selectors = st.base;
    for (const auto& [k, v] : p.scheduling.nodeSelector) {
      selectors += "," + label(("nodeselector_" + sanitizeLabelKey(k)).c_str(), v);
    }
    w_.sample(st.slots[kSlotCount + tolerations.size()], "kube_pod_nodeselectors", selectors, 1,
              ts);
  }
}

void Exposition::podRequests(const Pod& p, PodState& st, bool bound, double ts) {
  const std::string nodeName = bound ? h_.nodes[static_cast<std::size_t>(p.node)].name : "";
  const std::string container =
      st.base + "," + label("container", p.container) + "," + label("node", nodeName);
  const double amounts[] = {p.request.cpu, p.request.memory, static_cast<double>(p.request.gpu)};
  const char* names[] = {"cpu", "memory", "nvidia_com_gpu"};
  const char* units[] = {"core", "byte", "integer"};
  for (int r = 0; r < 3; ++r) {
    if (amounts[r] > 0) {
      w_.sample(st.slots[static_cast<std::size_t>(kReq + (bound ? 3 : 0) + r)],
                "kube_pod_container_resource_requests",
                container + "," + label("resource", names[r]) + "," + label("unit", units[r]),
                amounts[r], ts);
    }
  }
}

// Timestamps are whole unix seconds, as kube-state-metrics exports them.
void Exposition::podTimes(const Pod& p, PodState& st, double t, double ts) {
  const std::string& base = st.base;
  double start = static_cast<double>(h_.scenario->start);
  auto stamp = [&](Slot slot, const char* name, double when) {
    if (t >= when) {
      w_.sample(st.slots[slot], name, base, std::floor(start + when), ts);
    }
  };
  stamp(kCreated, "kube_pod_created", p.created);
  stamp(kScheduledTime, "kube_pod_status_scheduled_time", p.scheduled);
  stamp(kStartTime, "kube_pod_start_time", p.started);
  stamp(kCompletionTime, "kube_pod_completion_time", p.finished);
  if (between(t, p.unschedulableSince, p.scheduled)) {
    w_.sample(st.slots[kUnschedulable], "kube_pod_status_unschedulable", base, 1, ts);
  }
  if (t >= p.scheduled || t >= p.unschedulableSince) {
    const char* conditions[] = {"true", "false", "unknown"};
    int current = t >= p.scheduled ? 0 : 1;
    for (int k = 0; k < 3; ++k) {
      w_.sample(st.slots[static_cast<std::size_t>(kCondition + k)], "kube_pod_status_scheduled",
                base + "," + label("condition", conditions[k]), k == current ? 1 : 0, ts);
    }
  }
}

void Exposition::podUsage(const Pod& p, PodState& st, double t, double ts) {
  const Node& n = h_.nodes[static_cast<std::size_t>(p.node)];
  std::string labels = label("job", "kubelet") + "," + label("instance", n.ip + ":10250") + "," +
                       label("metrics_path", "/metrics/cadvisor") + "," + label("namespace", p.ns) +
                       "," + label("pod", p.name) + "," + label("container", p.container) + "," +
                       label("node", n.name);
  const ModelledUsage usage = modelledUsage(p.request, p.cpuUtil);
  w_.sample("container_cpu_usage_seconds_total", labels,
            std::round((t - p.started) * usage.cores * 1000) / 1000, ts);
  w_.sample(st.slots[kMemory], "container_memory_working_set_bytes", labels, usage.workingSetBytes,
            ts);
  // The network counters are the pod's, not a container's: cAdvisor reports them on the pod
  // sandbox, with an empty container label under containerd. Every scrape, as the CPU counter:
  // the daemon averages the counter over the pod's samples (when the bytes arrived).
  const std::string pod = label("job", "kubelet") + "," + label("instance", n.ip + ":10250") + "," +
                          label("metrics_path", "/metrics/cadvisor") + "," +
                          label("namespace", p.ns) + "," + label("pod", p.name) + "," +
                          label("container", "") + "," + label("interface", "eth0") + "," +
                          label("node", n.name);
  w_.sample("container_network_receive_bytes_total", pod,
            std::floor(receivedBytes(p.fetches, t - p.started)), ts);
}

void Exposition::scheduler(double t, double ts) {
  const std::string base =
      label("job", "kube-scheduler") + "," + label("instance", instances_.scheduler);
  sliHistograms(t, ts, base);
  attemptHistograms(t, ts, base);
  pendingPods(t, ts, base);
}

// The histograms are cumulative: observations up to t are added once, in time order.
void Exposition::sliHistograms(double t, double ts, const std::string& base) {
  for (; sliCursor_ < sli_.size() && sli_[sliCursor_].time <= t; ++sliCursor_) {
    const SliObservation& o = sli_[sliCursor_];
    Histogram& hist = sliByAttempts_[o.attempts];
    hist.observe(kSliBuckets(), o.seconds);
  }
  std::vector<const char*> families;
  if (classicSli_) {
    families.push_back("scheduler_pod_scheduling_sli_duration_seconds");
  }
  if (h_.scenario->scheduler.legacyDurationMetric) {
    families.push_back("scheduler_pod_scheduling_duration_seconds");
  }
  for (const char* family : families) {
    for (const auto& [attempts, hist] : sliByAttempts_) {
      histogram(family, base + "," + label("attempts", std::to_string(attempts)), kSliBuckets(),
                hist, ts);
    }
  }
}

void Exposition::attemptHistograms(double t, double ts, const std::string& base) {
  for (; attemptCursor_ < attempts_.size() && attempts_[attemptCursor_].time <= t;
       ++attemptCursor_) {
    const Attempt& a = attempts_[attemptCursor_];
    attemptsByResult_[a.scheduled ? 0 : 1].observe(kAttemptBuckets(), a.seconds);
  }
  const char* results[] = {"scheduled", "unschedulable"};
  for (std::size_t r = 0; r < 2; ++r) {
    std::string l = base + "," + label("profile", kProfile) + "," + label("result", results[r]);
    histogram("scheduler_scheduling_attempt_duration_seconds", l, kAttemptBuckets(),
              attemptsByResult_[r], ts);
    w_.sample("scheduler_schedule_attempts_total", l, attemptsByResult_[r].count(), ts);
  }
  w_.sample("scheduler_schedule_attempts_total",
            base + "," + label("profile", kProfile) + "," + label("result", "error"), 0, ts);
}

void Exposition::pendingPods(double t, double ts, const std::string& base) {
  double active = 0;
  double unschedulable = 0;
  std::map<std::string, double> byPlugin{
      {"NodeResourcesFit", 0}, {"TaintToleration", 0}, {"NodeAffinity", 0}};
  for (int id : active_) {
    const Pod& p = h_.pods[static_cast<std::size_t>(id)];
    if (between(t, p.created, p.scheduled)) {
      bool failed = t >= p.unschedulableSince;
      (failed ? unschedulable : active) += 1;
      byPlugin[p.unschedulablePlugin] += failed ? 1 : 0;
    }
  }
  for (const auto& [plugin, value] : byPlugin) {
    w_.sample(groups_["unschedulable_pods/" + plugin], "scheduler_unschedulable_pods",
              base + "," + label("plugin", plugin) + "," + label("profile", kProfile), value, ts);
  }
  const std::pair<const char*, double> queues[] = {
      {"active", active}, {"backoff", 0}, {"unschedulable", unschedulable}, {"gated", 0}};
  for (const auto& [queue, value] : queues) {
    w_.sample("scheduler_pending_pods", base + "," + label("queue", queue), value, ts);
  }
}

void Histogram::observe(const std::vector<double>& bounds, double value) {
  if (counts.empty()) {
    counts.assign(bounds.size() + 1, 0);
  }
  for (std::size_t b = 0; b < bounds.size(); ++b) {
    counts[b] += value <= bounds[b] ? 1 : 0;
  }
  counts.back() += 1;
  sum += value;
}

void Exposition::histogram(const char* family, const std::string& labels,
                           const std::vector<double>& bounds, const Histogram& hist, double ts) {
  std::string f(family);
  if (hist.counts.empty() || !w_.due(groups_[f + "{" + labels], hist.count(), ts)) {
    return;
  }
  for (std::size_t b = 0; b <= bounds.size(); ++b) {
    std::string le = b < bounds.size() ? formatNumber(bounds[b]) : "+Inf";
    w_.sample((f + "_bucket").c_str(), labels + "," + label("le", le), hist.counts[b], ts);
  }
  w_.sample((f + "_sum").c_str(), labels, hist.sum, ts);
  w_.sample((f + "_count").c_str(), labels, hist.count(), ts);
}

void Exposition::gpus(double t, double ts) {
  // Devices in use by running pods, per node, found in one pass over the live pods.
  std::vector<std::vector<const Pod*>> users(h_.nodes.size());
  for (int id : active_) {
    const Pod& p = h_.pods[static_cast<std::size_t>(id)];
    if (p.gpus.empty() || !between(t, p.started, p.finished)) {
      continue;
    }
    auto& u = users[static_cast<std::size_t>(p.node)];
    u.resize(static_cast<std::size_t>(h_.nodes[static_cast<std::size_t>(p.node)].capacity.gpu));
    for (int g : p.gpus) {
      u[static_cast<std::size_t>(g)] = &p;
    }
  }
  for (std::size_t ni = 0; ni < h_.nodes.size(); ++ni) {
    const Node& n = h_.nodes[ni];
    for (int g = 0; g < n.capacity.gpu; ++g) {
      auto gi = static_cast<std::size_t>(g);
      const Pod* user = gi < users[ni].size() ? users[ni][gi] : nullptr;
      std::string l = label("job", "dcgm-exporter") + "," + label("instance", n.ip + ":9400") +
                      "," + label("gpu", std::to_string(g)) + "," +
                      label("UUID", "GPU-" + makeUid(hashKeys(hashText(n.name), gi))) + "," +
                      label("device", "nvidia" + std::to_string(g)) + "," +
                      label("modelName", n.gpuModel) + "," + label("Hostname", n.name);
      double value = 0;
      double framebufferMib = 0;
      if (user != nullptr) {
        l += "," + label("namespace", user->ns) + "," + label("pod", user->name) + "," +
             label("container", user->container);
        Rng rng(hashKeys(hashText(user->uid), static_cast<std::uint64_t>(t)));
        value = std::clamp(std::round(user->gpuUtil * 100 + rng.normal() * 4), 0.0, 100.0);
        framebufferMib = std::round(kGpuMemoryMib * std::min(0.95, 0.2 + 0.7 * user->gpuUtil));
      }
      w_.sample("DCGM_FI_DEV_GPU_UTIL", l, value, ts);
      w_.sample("DCGM_FI_DEV_FB_USED", l, framebufferMib, ts);
    }
  }
}

std::size_t writeOpenMetrics(const History& history, std::FILE* out) {
  const OutputSpec& o = history.scenario->output;
  SampleWriter writer(out, true, o.refresh);
  Exposition exposition(history, writer, o.usage);
  exposition.writeHeader();
  double end = o.windowEnd < 0 ? history.end : std::min(o.windowEnd, history.end);
  for (long k = 0; o.windowStart + static_cast<double>(k) * o.step <= end + 1e-9; ++k) {
    exposition.writeStep(o.windowStart + static_cast<double>(k) * o.step);
  }
  writer.raw("# EOF\n");
  writer.finish();
  return writer.samplesWritten();
}

}  // namespace dagadvisor::sim
