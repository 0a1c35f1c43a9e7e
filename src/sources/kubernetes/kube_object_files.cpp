#include "sources/kubernetes/kube_object_files.h"

#include <algorithm>
#include <array>
#include <map>
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

std::string_view resourceOf(std::string_view kind) {
  for (const auto& [k, resource] : kResources) {
    if (k == kind) {
      return resource;
    }
  }
  return {};
}

std::string textAt(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json* metadataOf(const json& object) {
  const auto metadata = object.find("metadata");
  return metadata != object.end() && metadata->is_object() ? &*metadata : nullptr;
}

// The object's labels with string values: what a label selector can match.
std::map<std::string, std::string> labelsOf(const json& object) {
  std::map<std::string, std::string> out;
  const json* metadata = metadataOf(object);
  if (metadata == nullptr) {
    return out;
  }
  const auto labels = metadata->find("labels");
  if (labels == metadata->end() || !labels->is_object()) {
    return out;
  }
  for (const auto& [key, value] : labels->items()) {
    if (value.is_string()) {
      out.emplace(key, value.get<std::string>());
    }
  }
  return out;
}

std::string phaseOf(const json& object) {
  const auto status = object.find("status");
  return status != object.end() && status->is_object() ? textAt(*status, "phase") : std::string();
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

bool labelsMatch(const std::map<std::string, std::string>& labels,
                 const std::vector<std::pair<std::string, std::string>>& terms) {
  return std::all_of(terms.begin(), terms.end(), [&](const auto& term) {
    const auto it = labels.find(term.first);
    return it != labels.end() && it->second == term.second;
  });
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
    const json* metadata = metadataOf(object);
    by_resource_[kubeListPath(api_version, "", resource)].push_back(
        Stored{metadata != nullptr ? textAt(*metadata, "namespace") : std::string(), object.dump(),
               phaseOf(object), labelsOf(object)});
  }
  return {};
}

Result<KubeList> KubeObjectFiles::list(const std::string& path, const std::string& label_selector) {
  const auto query_at = path.find('?');
  const std::string_view query = query_at == std::string::npos
                                     ? std::string_view()
                                     : std::string_view(path).substr(query_at + 1);
  if (!query.empty() && query != kPendingPodsQuery) {
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
    if ((!query.empty() && stored.phase != "Pending") || !labelsMatch(stored.labels, *terms)) {
      continue;
    }
    page.append(out.items == 0 ? "" : ",").append(stored.item);
    ++out.items;
  }
  page += "]}";
  out.pages.push_back(std::move(page));
  return out;
}

std::string KubeObjectFiles::whyNotServed(const std::string& /*path*/) const {
  return "none in the " + describe();
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
