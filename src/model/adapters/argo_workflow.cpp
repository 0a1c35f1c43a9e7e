#include <map>
#include <set>
#include <unordered_map>

#include "common/base64.h"
#include "common/gzip.h"
#include "model/adapters/argo_pods.h"
#include "model/adapters/object_json.h"

namespace dagadvisor::model {
namespace {

using detail::json;
using detail::member;
using detail::text;

// Node types that stand for work (a pod, or a step that did not need one). The others (DAG,
// Steps, StepGroup, Retry, TaskGroup) only group and order them.
bool isWorkNode(std::string_view type) {
  return type == "Pod" || type == "Container" || type == "Skipped" || type == "Suspend" ||
         type == "HTTP" || type == "Plugin";
}

class ArgoReader {
 public:
  ArgoReader(const json& nodes, std::string workflow)
      : nodes_(nodes), workflow_(std::move(workflow)) {}

  void read(WorkflowObject& out) {
    for (const auto& [id, node] : nodes_.items()) {
      if (isWorkNode(text(node, "type"))) {
        addAttempt(node);
      }
    }
    for (const auto& [id, node] : nodes_.items()) {
      if (isWorkNode(text(node, "type"))) {
        linkChildren(node);
      }
    }
    for (auto& [id, entry] : tasks_) {
      entry.task.id = id;
      entry.task.parents.assign(entry.parents.begin(), entry.parents.end());
      out.tasks.push_back(std::move(entry.task));
    }
    out.problems.insert(out.problems.end(), problems_.begin(), problems_.end());
  }

 private:
  struct Entry {
    ObjectTask task;
    std::set<std::string> parents;
    double latest_start = -1;
  };

  std::string taskOf(const json& node) const { return argoTaskName(workflow_, text(node, "name")); }

  void addAttempt(const json& node) {
    Entry& entry = tasks_[taskOf(node)];
    const bool ran = text(node, "type") != "Skipped";
    entry.task.attempts += ran ? 1 : 0;
    // Attempts start one after another, so the latest start is the latest attempt.
    const double start = detail::time(node, "startedAt").value_or(0);
    if (start >= entry.latest_start) {
      entry.latest_start = start;
      entry.task.phase = text(node, "phase");
      entry.task.started = detail::time(node, "startedAt");
      entry.task.finished = detail::time(node, "finishedAt");
      entry.task.node = text(node, "hostNodeName");
    }
  }

  // The tasks a link into node `id` reaches: the node's own task for work, else (recursively)
  // the tasks its children start with.
  const std::set<std::string>& entries(const std::string& id, int depth = 0) {
    if (auto it = entries_.find(id); it != entries_.end()) {
      return it->second;
    }
    std::set<std::string>& out = entries_[id];
    const json* node = member(nodes_, id);
    if (node == nullptr) {
      problems_.insert("node " + id + " is referenced but missing from status.nodes");
    } else if (isWorkNode(text(*node, "type"))) {
      out.insert(taskOf(*node));
    } else if (depth < kMaxDepth) {
      for (const std::string& child : childIds(*node)) {
        const auto& reached = entries(child, depth + 1);
        out.insert(reached.begin(), reached.end());
      }
    }
    return out;
  }

  static std::vector<std::string> childIds(const json& node) {
    std::vector<std::string> out;
    if (const json* children = member(node, "children"); children && children->is_array()) {
      for (const json& child : *children) {
        if (child.is_string()) {
          out.push_back(child.get<std::string>());
        }
      }
    }
    return out;
  }

  void linkChildren(const json& node) {
    const std::string parent = taskOf(node);
    for (const std::string& child : childIds(node)) {
      for (const std::string& task : entries(child)) {
        if (task != parent) {
          tasks_[task].parents.insert(parent);
        }
      }
    }
  }

  static constexpr int kMaxDepth = 64;  // nesting deeper than this is a malformed object
  const json& nodes_;
  std::string workflow_;
  std::map<std::string, Entry> tasks_;
  std::unordered_map<std::string, std::set<std::string>> entries_;
  std::set<std::string> problems_;
};

// Argo writes status.compressedNodes as base64 of the gzipped JSON nodes map.
Result<json> decodeCompressedNodes(std::string_view encoded, std::size_t max_bytes) {
  std::string compact;
  for (const char c : encoded) {
    if (c != '\n' && c != '\r' && c != ' ') {  // Go's decoder skips line breaks too
      compact.push_back(c);
    }
  }
  const auto gzipped = decodeBase64(compact);
  if (!gzipped) {
    return makeError("not valid base64", "status.compressedNodes");
  }
  auto inflated = gzipDecompress(*gzipped, max_bytes);
  if (!inflated.ok()) {
    return makeError(inflated.error().message, "status.compressedNodes");
  }
  json nodes = json::parse(*inflated, nullptr, false);
  if (nodes.is_discarded() || !nodes.is_object()) {
    return makeError("the inflated data is not a JSON object", "status.compressedNodes");
  }
  return nodes;
}

void reportMissingNodes(const json& status, WorkflowObject& out) {
  if (const json* version = member(status, "offloadNodeStatusVersion");
      version != nullptr && !version->is_null()) {
    out.problems.push_back(
        "node status is offloaded to the workflow archive (offloadNodeStatusVersion " +
        version->dump() + "); read the workflow through argo-server to get its tasks");
  } else {
    out.problems.push_back("no node status: the workflow has not started, or this is a spec");
  }
}

bool usableNodes(const json* nodes) {
  return nodes != nullptr && nodes->is_object() && !nodes->empty();
}

// The nodes map: status.nodes, else the decoded status.compressedNodes (kept in `storage`).
// nullptr, with the data gap recorded in out.problems, when there is none to read.
const json* nodeMap(const json& status, json& storage, std::size_t max_inflated,
                    WorkflowObject& out) {
  if (const json* nodes = member(status, "nodes"); usableNodes(nodes)) {
    return nodes;
  }
  const json* offloaded = member(status, "offloadNodeStatusVersion");
  const std::string compressed = text(status, "compressedNodes");
  if (compressed.empty() || (offloaded != nullptr && !offloaded->is_null())) {
    reportMissingNodes(status, out);
    return nullptr;
  }
  auto decoded = decodeCompressedNodes(compressed, max_inflated);
  if (!decoded.ok()) {
    out.problems.push_back("compressed node status (status.compressedNodes) not decoded: " +
                           decoded.error().message);
    return nullptr;
  }
  storage = std::move(*decoded);
  if (!usableNodes(&storage)) {
    reportMissingNodes(status, out);
    return nullptr;
  }
  return &storage;
}

}  // namespace

Result<WorkflowObject> parseArgoWorkflow(const json& workflow, std::size_t max_inflated_bytes) {
  if (!workflow.is_object()) {
    return makeError("an Argo Workflow must be a JSON object", "workflow");
  }
  WorkflowObject out;
  out.engine = "argo";
  const json* metadata = member(workflow, "metadata");
  out.name = metadata ? text(*metadata, "name") : "";
  const json* status = member(workflow, "status");
  // Both branches lvalues: a temporary here would leave `nodes` pointing into a dead copy.
  const json no_status = json::object();
  json inflated;
  const json* nodes =
      nodeMap(status != nullptr ? *status : no_status, inflated, max_inflated_bytes, out);
  if (nodes == nullptr) {
    return out;
  }
  if (out.name.empty()) {
    // The root node's name is the workflow's name.
    for (const auto& [id, node] : nodes->items()) {
      if (text(node, "name") == id) {
        out.name = id;
      }
    }
  }
  ArgoReader(*nodes, out.name).read(out);
  detail::normalise(out);
  return out;
}

}  // namespace dagadvisor::model
