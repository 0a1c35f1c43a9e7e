#include "ingestion/kubernetes_objects.h"

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/adapters/object_json.h"
#include "model/adapters/scheduling_objects.h"

namespace dagadvisor::ingestion {
namespace {

using model::detail::json;
using model::detail::member;
using model::detail::text;

constexpr std::string_view kArgo = "argoproj.io/v1alpha1";
// v1 since Tekton Pipelines 0.44; older installations serve only v1beta1.
constexpr std::array<std::string_view, 2> kTekton = {"tekton.dev/v1", "tekton.dev/v1beta1"};
constexpr std::string_view kPipelineRunLabel = "tekton.dev/pipelineRun";
constexpr std::string_view kScheduling = "scheduling.k8s.io/v1";

using sources::kubeListPath;

std::string metadataText(const json& item, std::string_view key) {
  const json* metadata = member(item, "metadata");
  return metadata != nullptr ? text(*metadata, key) : std::string();
}

std::string labelOf(const json& item, std::string_view key) {
  const json* metadata = member(item, "metadata");
  const json* labels = metadata != nullptr ? member(*metadata, "labels") : nullptr;
  return labels != nullptr ? text(*labels, key) : std::string();
}

enum class ListStatus { kRead, kNotServed, kFailed };

// Hands each item of one LIST to `on_item`, a page at a time, so that only one page's objects
// are parsed at once. 404 (not served) is the caller's to report; 403, an unreachable API and
// pages that are not lists are warnings.
template <class OnItem>
ListStatus listItems(sources::KubeListSource& lists, const std::string& path,
                     std::string_view resource, std::vector<std::string>& warnings,
                     OnItem&& on_item) {
  auto list = lists.list(path, "");
  if (!list) {
    warnings.push_back("kubernetes: " + list.error().describe());
    return ListStatus::kFailed;
  }
  if (list->status == 404) {
    return ListStatus::kNotServed;
  }
  if (list->status == 403) {
    warnings.push_back("kubernetes: LIST " + path + " is forbidden (403): grant get and list on " +
                       std::string(resource) + " (see docs/data-sources.md)");
    return ListStatus::kFailed;
  }
  for (const std::string& page : list->pages) {
    json root = json::parse(page, nullptr, /*allow_exceptions=*/false);
    json* items = root.is_object() ? &root["items"] : nullptr;
    if (items == nullptr || !items->is_array()) {
      warnings.push_back("kubernetes: LIST " + path + ": a page is not a JSON list, skipped");
      continue;
    }
    for (json& item : *items) {
      on_item(item);
    }
  }
  return ListStatus::kRead;
}

// The items of every namespace's LIST of one resource. A 404 means the resource type is not
// served at all, so the other namespaces are not asked.
struct Listed {
  std::vector<json> items;
  bool not_served = false;
  std::string first_path;
};

Listed listEverywhere(sources::KubeListSource& lists, std::string_view group_version,
                      std::string_view resource, const std::vector<std::string>& namespaces,
                      std::vector<std::string>& warnings) {
  Listed out;
  for (const std::string& ns : namespaces) {
    const std::string path = kubeListPath(group_version, ns, resource);
    if (out.first_path.empty()) {
      out.first_path = path;
    }
    const ListStatus status = listItems(lists, path, resource, warnings,
                                        [&](json& item) { out.items.push_back(std::move(item)); });
    if (status == ListStatus::kNotServed) {
      out.not_served = true;
      return out;
    }
  }
  return out;
}

void addObject(Result<model::WorkflowObject> parsed, const json& item, model::ObjectFetch& out) {
  const std::string ns = metadataText(item, "namespace");
  if (!parsed) {
    out.warnings.push_back("kubernetes: object " + ns + "/" + metadataText(item, "name") +
                           " not read: " + parsed.error().describe());
    return;
  }
  if (!parsed->name.empty()) {
    out.objects.push_back(model::SourcedObject{std::move(*parsed), ns, model::ObjectScope::kRun});
  }
}

}  // namespace

KubernetesObjects::KubernetesObjects(sources::KubeListSource& lists,
                                     config::KubernetesSource settings)
    : lists_(lists), settings_(std::move(settings)) {
  if (settings_.namespaces.empty()) {
    settings_.namespaces.emplace_back();  // "" = cluster-wide
  }
}

model::ObjectFetch KubernetesObjects::fetch(const std::vector<model::WorkflowRun>& /*runs*/) {
  model::ObjectFetch out;
  if (settings_.argo_workflows) {
    fetchArgo(out);
  }
  if (settings_.tekton_pipeline_runs) {
    fetchTekton(out);
  }
  return out;
}

void KubernetesObjects::fetchArgo(model::ObjectFetch& out) {
  Listed listed = listEverywhere(lists_, kArgo, "workflows", settings_.namespaces, out.warnings);
  if (listed.not_served) {
    out.warnings.push_back("kubernetes: Argo Workflows: " + lists_.whyNotServed(listed.first_path) +
                           ": Argo runs keep dependencies inferred from timing");
  }
  for (const json& item : listed.items) {
    addObject(model::parseArgoWorkflow(item), item, out);
  }
}

void KubernetesObjects::fetchTekton(model::ObjectFetch& out) {
  Listed runs;
  std::string_view version;
  for (std::string_view candidate : kTekton) {
    runs = listEverywhere(lists_, candidate, "pipelineruns", settings_.namespaces, out.warnings);
    version = candidate;
    if (!runs.not_served) {
      break;
    }
  }
  if (runs.not_served) {
    out.warnings.push_back(
        "kubernetes: Tekton PipelineRuns: " + lists_.whyNotServed(runs.first_path) +
        ": Tekton runs keep dependencies inferred from timing");
    return;
  }
  // TaskRuns by namespace and PipelineRun, so each PipelineRun gets its own in one look-up.
  std::unordered_map<std::string, std::vector<json>> task_runs;
  if (settings_.tekton_task_runs) {
    Listed listed = listEverywhere(lists_, version, "taskruns", settings_.namespaces, out.warnings);
    for (json& item : listed.items) {
      const std::string owner = labelOf(item, kPipelineRunLabel);
      if (!owner.empty()) {
        task_runs[metadataText(item, "namespace") + "/" + owner].push_back(std::move(item));
      }
    }
  }
  static const std::vector<json> kNone;
  for (const json& item : runs.items) {
    const auto it =
        task_runs.find(metadataText(item, "namespace") + "/" + metadataText(item, "name"));
    addObject(model::parseTektonPipelineRun(item, it != task_runs.end() ? it->second : kNone), item,
              out);
  }
}

model::SchedulingFetch KubernetesObjects::fetchScheduling() {
  model::SchedulingFetch out;
  fetchPriorityClasses(out);
  fetchPendingPods(out);
  return out;
}

void KubernetesObjects::fetchPriorityClasses(model::SchedulingFetch& out) {
  const std::string path = kubeListPath(kScheduling, "", "priorityclasses");
  std::vector<model::PriorityClass> classes;
  const ListStatus status =
      listItems(lists_, path, "priorityclasses", out.warnings, [&](const json& item) {
        if (auto parsed = model::parsePriorityClass(item)) {
          classes.push_back(std::move(*parsed));
        }
      });
  if (status == ListStatus::kNotServed) {
    out.warnings.push_back("kubernetes: PriorityClasses: " + lists_.whyNotServed(path) +
                           ": PriorityClass values are not known");
  }
  if (status == ListStatus::kRead) {
    out.specs.priority_classes = std::move(classes);
  }
}

void KubernetesObjects::fetchPendingPods(model::SchedulingFetch& out) {
  std::vector<model::PendingPodSpec> pods;
  bool any_read = false;
  for (const std::string& ns : settings_.namespaces) {
    // Only the pods the diagnosis reads: the server filters, so a large cluster sends few.
    const std::string path =
        kubeListPath("v1", ns, "pods?" + std::string(sources::kPendingPodsQuery));
    const ListStatus status = listItems(lists_, path, "pods", out.warnings, [&](const json& item) {
      if (auto parsed = model::parsePendingPodSpec(item)) {
        pods.push_back(std::move(*parsed));
      }
    });
    if (status == ListStatus::kNotServed) {
      out.warnings.push_back("kubernetes: pending pods: " + lists_.whyNotServed(path));
    }
    any_read = any_read || status == ListStatus::kRead;
  }
  if (any_read) {
    out.specs.pending_pods = std::move(pods);
  }
}

}  // namespace dagadvisor::ingestion
