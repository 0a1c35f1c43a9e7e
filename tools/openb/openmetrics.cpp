#include "openmetrics.h"

#include <string>
#include <vector>

namespace dagadvisor::openb {
namespace {

constexpr const char* kKsm = R"(job="kube-state-metrics")";
constexpr const char* kGpuResource = "nvidia_com_gpu";
constexpr std::int64_t kMib = 1024 * 1024;

// One pod as exported: the replayed trace pods and the node agents alike.
struct PodRow {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string node;  // empty while pending
  std::string owner_kind;
  std::string owner_name;
  std::int64_t cpu_millis = 0;
  std::int64_t memory_mib = 0;
  std::int64_t gpus = 0;
  std::int64_t created = 0;
  std::string pool;  // the pool its node selector pins it to ("" for none)
};

std::string cores(std::int64_t millis) {
  std::string out = std::to_string(millis / 1000);
  if (const std::int64_t rest = millis % 1000; rest != 0) {
    std::string frac = std::to_string(1000 + rest).substr(1);
    out += "." + frac.substr(0, frac.find_last_not_of('0') + 1);
  }
  return out;
}

// A workload per pod shape: pods of one shape come from one controller, so CPU-only and GPU pods
// never share an owner (the daemon infers tolerations per owner).
std::string ownerOf(const TracePod& pod) {
  return "w-" + std::to_string(pod.cpu_millis) + "m-" + std::to_string(pod.memory_mib) + "mi-" +
         std::to_string(pod.gpus) + "g";
}

// "respected" pins each trace pod to its pool with a node selector, as the taint already keeps
// CPU-only pods off GPU nodes; "mixed" pins nothing.
std::string poolOf(const ReplayResult& cluster, const TracePod& pod) {
  if (cluster.options.pools != Pools::kRespected) {
    return "";
  }
  return pod.gpus > 0 ? "gpu" : "cpu";
}

std::vector<PodRow> podRows(const ReplayResult& cluster, std::int64_t at) {
  std::vector<PodRow> rows;
  const auto arrivals = static_cast<std::int64_t>(cluster.pods.size());
  for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
    rows.push_back({"kube-system", "node-agent-" + std::to_string(n), "agent-" + std::to_string(n),
                    cluster.nodes[n].name, "DaemonSet", "node-agent",
                    cluster.options.agent_cpu_millis, cluster.options.agent_memory_mib, 0,
                    at - arrivals - 600, ""});
  }
  for (std::size_t i = 0; i < cluster.pods.size(); ++i) {
    const ReplayedPod& p = cluster.pods[i];
    rows.push_back({"openb", p.pod.name, "uid-" + std::to_string(i),
                    p.node == kPending ? "" : cluster.nodes[p.node].name, "ReplicaSet",
                    ownerOf(p.pod), p.pod.cpu_millis, p.pod.memory_mib, p.pod.gpus,
                    at - arrivals + static_cast<std::int64_t>(i), poolOf(cluster, p.pod)});
  }
  return rows;
}

class Writer {
 public:
  Writer(std::ostream& out, std::int64_t at) : out_(out), at_(" " + std::to_string(at) + "\n") {}

  void sample(const std::string& metric, const std::string& labels, const std::string& value) {
    out_ << metric << '{' << labels << "} " << value << at_;
  }

 private:
  std::ostream& out_;
  std::string at_;
};

// One series per resource, in kube-state-metrics' units; GPUs only when there are some.
void writeResources(Writer& w, const std::string& metric, const std::string& key,
                    std::int64_t cpu_millis, std::int64_t memory_mib, std::int64_t gpus) {
  w.sample(metric, key + R"(,resource="cpu",unit="core")", cores(cpu_millis));
  w.sample(metric, key + R"(,resource="memory",unit="byte")", std::to_string(memory_mib * kMib));
  if (gpus > 0) {
    w.sample(metric, key + R"(,resource=")" + kGpuResource + R"(",unit="integer")",
             std::to_string(gpus));
  }
}

std::string podKey(const PodRow& pod) {
  return std::string(kKsm) + R"(,namespace=")" + pod.namespace_ + R"(",pod=")" + pod.name +
         R"(",uid=")" + pod.uid + '"';
}

void writeNodes(const ReplayResult& cluster, Writer& w) {
  const bool tainted = cluster.options.pools == Pools::kRespected;
  for (const TraceNode& node : cluster.nodes) {
    const std::string key = std::string(kKsm) + R"(,node=")" + node.name + '"';
    w.sample("kube_node_info", key, "1");
    std::string labels = key + R"(,label_kubernetes_io_hostname=")" + node.name +
                         R"(",label_pool=")" + (node.gpus > 0 ? "gpu" : "cpu") + '"';
    if (!node.model.empty()) {
      labels += R"(,label_nvidia_com_gpu_product=")" + node.model + '"';
    }
    w.sample("kube_node_labels", labels, "1");
    writeResources(w, "kube_node_status_allocatable", key, node.cpu_millis, node.memory_mib,
                   node.gpus);
    if (node.gpus > 0 && tainted) {
      w.sample("kube_node_spec_taint",
               key + R"(,key="nvidia.com/gpu",value="present",effect="NoSchedule")", "1");
    }
  }
}

void writeRequests(const PodRow& pod, Writer& w) {
  writeResources(w, "kube_pod_container_resource_requests",
                 podKey(pod) + R"(,container="main",node=")" + pod.node + '"', pod.cpu_millis,
                 pod.memory_mib, pod.gpus);
}

// kube_pod_tolerations as the admission plugins leave them: DefaultTolerationSeconds gives every
// pod not-ready and unreachable for 300 s, ExtendedResourceToleration gives GPU pods the GPU
// key; the node agent tolerates everything (a key-less Exists, as node exporters do).
void writeTolerations(const PodRow& pod, Writer& w) {
  const std::string key = podKey(pod);
  auto toleration = [&](const std::string& labels) {
    w.sample("kube_pod_tolerations", key + "," + labels, "1");
  };
  if (pod.owner_kind == "DaemonSet") {
    toleration(R"(key="",operator="Exists",value="",effect="",toleration_seconds="")");
    return;
  }
  for (const char* condition : {"not-ready", "unreachable"}) {
    toleration(std::string(R"(key="node.kubernetes.io/)") + condition +
               R"(",operator="Exists",value="",effect="NoExecute",toleration_seconds="300")");
  }
  if (pod.gpus > 0) {
    toleration(R"(key="nvidia.com/gpu",operator="Exists",value="",effect="NoSchedule",)"
               R"(toleration_seconds="")");
  }
}

// kube_pod_nodeselectors, as kube-state-metrics exports it with
// --metric-opt-in-list=kube_pod_nodeselectors: one series per pod, even without a selector.
void writeNodeSelector(const PodRow& pod, Writer& w) {
  w.sample("kube_pod_nodeselectors",
           podKey(pod) + (pod.pool.empty() ? "" : R"(,nodeselector_pool=")" + pod.pool + '"'), "1");
}

void writePod(const PodRow& pod, Writer& w) {
  const std::string key = podKey(pod);
  const bool bound = !pod.node.empty();
  w.sample("kube_pod_info",
           key + R"(,node=")" + pod.node + R"(",created_by_kind=")" + pod.owner_kind +
               R"(",created_by_name=")" + pod.owner_name + R"(",priority_class="")",
           "1");
  w.sample("kube_pod_owner",
           key + R"(,owner_kind=")" + pod.owner_kind + R"(",owner_name=")" + pod.owner_name +
               R"(",owner_is_controller="true")",
           "1");
  w.sample("kube_pod_status_phase", key + (bound ? R"(,phase="Running")" : R"(,phase="Pending")"),
           "1");
  writeRequests(pod, w);
  writeTolerations(pod, w);
  writeNodeSelector(pod, w);
  w.sample("kube_pod_created", key, std::to_string(pod.created));
  if (bound) {
    w.sample("kube_pod_status_scheduled_time", key, std::to_string(pod.created + 1));
    w.sample("kube_pod_start_time", key, std::to_string(pod.created + 1));
  } else {
    w.sample("kube_pod_status_unschedulable", key, "1");
  }
}

}  // namespace

void writeOpenMetrics(const ReplayResult& cluster, std::int64_t at, std::ostream& out) {
  Writer w(out, at);
  writeNodes(cluster, w);
  std::size_t pending = 0;
  for (const PodRow& pod : podRows(cluster, at)) {
    writePod(pod, w);
    pending += pod.node.empty() ? 1 : 0;
  }
  const std::string scheduler = R"(job="kube-scheduler",queue=")";
  w.sample("scheduler_pending_pods", scheduler + R"(unschedulable")", std::to_string(pending));
  w.sample("scheduler_pending_pods", scheduler + R"(active")", "0");
  w.sample("scheduler_pending_pods", scheduler + R"(backoff")", "0");
}

}  // namespace dagadvisor::openb
