#include "sources/kubernetes/kube_object_files.h"

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <utility>

#include "sources/snapshot/snapshot_format.h"

namespace dagadvisor::sources {
namespace {

using nlohmann::json;

// The kinds the daemon LISTs, with their resource names (the API server's plural).
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kResources = {{
    {"Workflow", "workflows"},
    {"PipelineRun", "pipelineruns"},
    {"TaskRun", "taskruns"},
    {"PriorityClass", "priorityclasses"},
    {"Pod", "pods"},
}};

constexpr std::string_view kPendingSelector = "fieldSelector=status.phase%3DPending";

std::string_view resourceOf(std::string_view kind) {
  for (const auto& [k, resource] : kResources) {
    if (k == kind) {
      return resource;
    }
  }
  return {};
}

// "v1" is the core group, served under /api; every other group under /apis.
std::string groupVersionPath(std::string_view api_version) {
  return (api_version == "v1" ? "/api/" : "/apis/") + std::string(api_version);
}

std::string textAt(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string namespaceOf(const json& object) {
  const auto metadata = object.find("metadata");
  return metadata != object.end() && metadata->is_object() ? textAt(*metadata, "namespace")
                                                           : std::string();
}

// A LIST path split into the resource's cluster-wide path and the namespace it names ("" for
// a cluster-wide LIST): "/apis/g/v/namespaces/ns/r" → {"/apis/g/v/r", "ns"}.
struct ListTarget {
  std::string resource_path;
  std::string namespace_;
};

ListTarget targetOf(std::string_view path) {
  constexpr std::string_view kNamespaces = "/namespaces/";
  const auto at = path.find(kNamespaces);
  if (at == std::string_view::npos) {
    return {std::string(path), {}};
  }
  const std::string_view rest = path.substr(at + kNamespaces.size());
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos) {
    return {std::string(path), {}};
  }
  return {std::string(path.substr(0, at)) + std::string(rest.substr(slash)),
          std::string(rest.substr(0, slash))};
}

// `key=value` (or `key==value`) terms, comma-separated; nullopt for any other selector syntax.
std::optional<std::vector<std::pair<std::string, std::string>>> equalityTerms(
    std::string_view selector) {
  std::vector<std::pair<std::string, std::string>> terms;
  while (!selector.empty()) {
    const auto comma = selector.find(',');
    std::string_view term = selector.substr(0, comma);
    selector = comma == std::string_view::npos ? std::string_view() : selector.substr(comma + 1);
    const auto eq = term.find('=');
    if (eq == std::string_view::npos || term.find_first_of("!()") != std::string_view::npos) {
      return std::nullopt;
    }
    std::string_view value = term.substr(eq + 1);
    if (!value.empty() && value.front() == '=') {
      value.remove_prefix(1);
    }
    terms.emplace_back(std::string(term.substr(0, eq)), std::string(value));
  }
  return terms;
}

bool labelsMatch(const json& object,
                 const std::vector<std::pair<std::string, std::string>>& terms) {
  if (terms.empty()) {
    return true;
  }
  const auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) {
    return false;
  }
  const auto labels = metadata->find("labels");
  if (labels == metadata->end() || !labels->is_object()) {
    return false;
  }
  for (const auto& [key, value] : terms) {
    if (textAt(*labels, key.c_str()) != value || !labels->contains(key)) {
      return false;
    }
  }
  return true;
}

bool pending(const json& pod) {
  const auto status = pod.find("status");
  return status != pod.end() && status->is_object() && textAt(*status, "phase") == "Pending";
}

}  // namespace

Result<std::unique_ptr<KubeObjectFiles>> KubeObjectFiles::open(
    const std::vector<std::string>& paths) {
  std::unique_ptr<KubeObjectFiles> out(new KubeObjectFiles(paths));
  for (const std::string& path : paths) {
    auto text = readWholeFile(path);
    if (!text) {
      return makeError(text.error().message, path);
    }
    if (auto indexed = out->index(path, *text); !indexed.ok()) {
      return indexed.error();
    }
  }
  return out;
}

Result<std::unique_ptr<KubeObjectFiles>> KubeObjectFiles::fromText(const std::string& name,
                                                                   std::string_view text) {
  std::unique_ptr<KubeObjectFiles> out(new KubeObjectFiles({name}));
  if (auto indexed = out->index(name, text); !indexed.ok()) {
    return indexed.error();
  }
  return out;
}

Result<void> KubeObjectFiles::index(const std::string& name, std::string_view text) {
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return makeError("not a JSON object: give what `kubectl get … -o json` prints", name);
  }
  const std::string kind = textAt(root, "kind");
  const bool is_list = kind.size() >= 4 && kind.ends_with("List") && root.contains("items");
  if (is_list && !root["items"].is_array()) {
    return makeError("\"items\" is not a list", name);
  }
  json single = json::array();
  if (!is_list) {
    single.push_back(std::move(root));
  }
  for (json& object : is_list ? root["items"] : single) {
    const std::string_view resource =
        object.is_object() ? resourceOf(textAt(object, "kind")) : std::string_view();
    const std::string api_version = object.is_object() ? textAt(object, "apiVersion") : "";
    if (resource.empty() || api_version.empty()) {
      ++ignored_;
      continue;
    }
    add(groupVersionPath(api_version) + "/" + std::string(resource), namespaceOf(object),
        object.dump());
  }
  return {};
}

void KubeObjectFiles::add(std::string resource_path, std::string namespace_, std::string item) {
  by_resource_[std::move(resource_path)].push_back(Stored{std::move(namespace_), std::move(item)});
}

Result<KubeList> KubeObjectFiles::list(const std::string& path, const std::string& label_selector) {
  const auto query_at = path.find('?');
  const std::string_view query = query_at == std::string::npos
                                     ? std::string_view()
                                     : std::string_view(path).substr(query_at + 1);
  if (!query.empty() && query != kPendingSelector) {
    return makeError("the object files cannot answer the query \"" + std::string(query) + "\"",
                     "LIST " + path);
  }
  const auto terms = equalityTerms(label_selector);
  if (!terms) {
    return makeError(
        "the object files answer only key=value label selectors, not \"" + label_selector + "\"",
        "LIST " + path);
  }
  const ListTarget target = targetOf(std::string_view(path).substr(0, query_at));
  const auto found = by_resource_.find(target.resource_path);
  if (found == by_resource_.end()) {
    return KubeList{{}, 0, 404};
  }
  KubeList out;
  std::string page = R"({"apiVersion":"v1","kind":"List","metadata":{},"items":[)";
  for (const Stored& stored : found->second) {
    if (!target.namespace_.empty() && stored.namespace_ != target.namespace_) {
      continue;
    }
    if (!query.empty() || !terms->empty()) {  // parsed again only when something filters
      const json object = json::parse(stored.item, nullptr, false);
      if ((!query.empty() && !pending(object)) || !labelsMatch(object, *terms)) {
        continue;
      }
    }
    page.append(out.items == 0 ? "" : ",").append(stored.item);
    ++out.items;
  }
  page += "]}";
  out.pages.push_back(std::move(page));
  return out;
}

std::string KubeObjectFiles::describe() const {
  std::string out = "object files ";
  for (std::size_t i = 0; i < paths_.size(); ++i) {
    out.append(i == 0 ? "" : ", ").append(paths_[i]);
  }
  if (ignored_ > 0) {
    out += " (" + std::to_string(ignored_) + " objects of kinds not read)";
  }
  return out;
}

}  // namespace dagadvisor::sources
