#include "patches.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>

namespace dagadvisor::sim {
namespace {

using nlohmann::json;

constexpr std::size_t kListedTargets = 8;  // pods named in the report per patch; the rest counted

std::string kindOf(const json& patch) {
  return patch.value("/object/kind"_json_pointer, std::string());
}

bool isArgoObject(const std::string& kind) {
  return kind == "WorkflowTemplate" || kind == "Workflow";
}

bool holdsObject(const std::string& kind) {
  return kind == "Node" || kind == "PriorityClass" || kind == "DaemonSet" || kind == "Deployment" ||
         isArgoObject(kind);
}

bool named(const json& patch, const std::string& name) {
  const json& names = patch["object"].value("names", json::array());
  return std::find(names.begin(), names.end(), name) != names.end();
}

// kubectl's JSON patch (evanphx/json-patch): a `test` for null passes on a missing path, which
// is how a guarded "create the list if there is none" variant is written.
bool applyVariant(json& object, const json& ops) {
  json effective = json::array();
  for (const auto& op : ops) {
    if (op.value("op", "") == "test" && op.contains("value") && op["value"].is_null()) {
      json::json_pointer path(op.value("path", ""));
      if (!object.contains(path) || object[path].is_null()) {
        continue;
      }
      return false;
    }
    effective.push_back(op);
  }
  try {
    object = object.patch(effective);
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

// Strategic merge as kubectl applies it to the fields the advice touches: maps merge, null
// deletes, `containers` merge by name, every other list is replaced whole.
void strategicMerge(json& target, const json& patch) {
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      target.erase(key);
    } else if (value.is_object() && target.contains(key) && target[key].is_object()) {
      strategicMerge(target[key], value);
    } else if (key == "containers" && value.is_array() && target.contains(key)) {
      for (const auto& container : value) {
        auto same = std::find_if(target[key].begin(), target[key].end(), [&](const json& c) {
          return c.value("name", "") == container.value("name", "");
        });
        if (same == target[key].end()) {
          target[key].push_back(container);
        } else {
          strategicMerge(*same, container);
        }
      }
    } else {
      target[key] = value;
    }
  }
}

// A patch of existing Pods themselves (the object is the pods, by name): its variants are at the
// Pod's root, and it selects no other pods.
bool namesPod(const json& patch, const json& pod) {
  const json& meta = pod["metadata"];
  return kindOf(patch) == "Pod" &&
         patch["object"].value("namespace", "") == meta.value("namespace", "") &&
         named(patch, meta.value("name", ""));
}

bool selectsPods(const json& patch) {
  const bool named_pods =
      kindOf(patch) == "Pod" && !patch["object"].value("names", json::array()).empty();
  return (patch.contains("pods") && patch["pods"].is_object()) || named_pods;
}

bool podSelected(const json& selector, const json& pod) {
  const json& meta = pod["metadata"];
  if (selector.value("namespace", "") != meta.value("namespace", "")) {
    return false;
  }
  const json labels = meta.value("labels", json::object());
  const json wanted = selector.value("match_labels", json::object());
  for (const auto& [k, v] : wanted.items()) {
    if (!labels.contains(k) || labels[k] != v) {
      return false;
    }
  }
  const json names = selector.value("names", json::array());
  return names.empty() ||
         std::find(names.begin(), names.end(), meta.value("name", "")) != names.end();
}

std::string objectText(const json& patch) {
  const json& o = patch["object"];
  std::string names;
  for (const auto& n : o.value("names", json::array())) {
    names += (names.empty() ? "" : ",") + n.get<std::string>();
  }
  std::string ns = o.value("namespace", "");
  std::string text = o.value("kind", "?") + " " + (ns.empty() ? "" : ns + "/") + names;
  if (names.empty() && patch.contains("pods")) {
    std::string labels;
    const json selected = patch["pods"].value("match_labels", json::object());
    for (const auto& [k, v] : selected.items()) {
      labels += (labels.empty() ? "" : ",") + k + "=" + v.get<std::string>();
    }
    text += labels.empty() ? "*" : "{" + labels + "}";
  }
  return text;
}

// "YYYY-MM-DDTHH:MM:SSZ", as the daemon writes its times.
std::optional<std::int64_t> unixOf(const json& text) {
  std::tm tm{};
  if (!text.is_string() ||
      std::sscanf(text.get<std::string>().c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year,
                  &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(timegm(&tm));
}

std::optional<std::pair<std::int64_t, std::int64_t>> replayedWindow(const json& document) {
  const json window = document.value("/prediction/window"_json_pointer, json());
  if (!window.is_object()) {
    return std::nullopt;
  }
  const auto start = unixOf(window.value("start", json()));
  const auto end = unixOf(window.value("end", json()));
  if (!start || !end) {
    return std::nullopt;
  }
  return std::make_pair(*start, *end);
}

}  // namespace

std::optional<Advice> adviceFrom(const json& document, const std::vector<std::string>& ids,
                                 std::string& error) {
  if (!document.is_object() || !document.contains("recommendations") ||
      !document["recommendations"].is_array()) {
    error = "expected an object with a recommendations list (dagadvisor analyze --output json)";
    return std::nullopt;
  }
  Advice advice;
  advice.window = replayedWindow(document);
  const std::set<std::string> wanted(ids.begin(), ids.end());
  std::set<std::string> missing = wanted;
  for (const auto& rec : document["recommendations"]) {
    const std::string id = rec.value("id", "");
    if (!wanted.empty() && !wanted.count(id)) {
      continue;
    }
    missing.erase(id);
    for (const auto& note : rec.value("notes", json::array())) {
      advice.notes.push_back(id + ": " +
                             (note.is_string() ? note.get<std::string>() : note.dump()));
    }
    for (json patch : rec.value("patches", json::array())) {
      if (!patch.is_object() || !patch.contains("object") || !patch["object"].is_object()) {
        error = "recommendation " + id + ": a patch without an object";
        return std::nullopt;
      }
      patch["recommendation"] = id;
      advice.patches.push_back(std::move(patch));
    }
  }
  if (!missing.empty()) {
    error = "no recommendation with id " + *missing.begin();
    return std::nullopt;
  }
  std::stable_sort(advice.patches.begin(), advice.patches.end(), [](const json& a, const json& b) {
    return a.value("step", 0) < b.value("step", 0);
  });
  return advice;
}

std::optional<Advice> loadAdvice(const std::string& path, const std::vector<std::string>& ids,
                                 std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = path + ": cannot read";
    return std::nullopt;
  }
  json document = json::parse(in, nullptr, false);
  if (document.is_discarded()) {
    error = path + ": not JSON";
    return std::nullopt;
  }
  auto advice = adviceFrom(document, ids, error);
  if (!advice) {
    error = path + ": " + error;
    return std::nullopt;
  }
  advice->source = path;
  return advice;
}

Advice remediesAdvice(const Scenario& scenario) {
  std::string error;
  Advice advice = adviceFrom(builtinRemedies(scenario), {}, error).value_or(Advice{"", {}, {}});
  advice.source = "remedied";
  return advice;
}

AdviceApplier::AdviceApplier(const Advice& advice)
    : patches_(advice.patches), outcomes_(advice.patches.size()) {
  for (std::size_t i = 0; i < patches_.size(); ++i) {
    const json& p = patches_[i];
    const std::string kind = kindOf(p);
    if (p.contains("needs_value") && !p["needs_value"].is_null()) {
      outcomes_[i].skipped = "needs a value chosen per run (" + p["needs_value"].dump() + ")";
    } else if (!holdsObject(kind) && !selectsPods(p)) {
      outcomes_[i].skipped = "the simulator holds no " + kind + " and the patch selects no pods";
    }
  }
}

bool AdviceApplier::applyTo(std::size_t index, json& object, const char* variantsKey,
                            const char* documentKey, const std::string& name) {
  const json& p = patches_[index];
  const std::string type = p.value("type", "json");
  bool ok = false;
  if (type == "json") {
    for (const auto& variant : p.value(variantsKey, json::array())) {
      json candidate = object;
      if (applyVariant(candidate, variant)) {
        object = std::move(candidate);
        ok = true;
        break;
      }
    }
  } else if (type == "strategic-merge" && p.contains(documentKey)) {
    strategicMerge(object, p[documentKey]);
    ok = true;
  }
  (ok ? outcomes_[index].applied : outcomes_[index].failed).push_back(name);
  return ok;
}

void AdviceApplier::patchNode(json& node) {
  const std::string name = node["metadata"]["name"];
  for (std::size_t i = 0; i < patches_.size(); ++i) {
    if (outcomes_[i].skipped.empty() && kindOf(patches_[i]) == "Node" && named(patches_[i], name)) {
      applyTo(i, node, "variants", "document", name);
    }
  }
}

void AdviceApplier::createPriorityClasses(std::vector<PriorityClassSpec>& classes) {
  for (std::size_t i = 0; i < patches_.size(); ++i) {
    const json& p = patches_[i];
    if (!outcomes_[i].skipped.empty() || kindOf(p) != "PriorityClass") {
      continue;
    }
    const json doc = p.value("document", json::object());
    const std::string name = doc.value("/metadata/name"_json_pointer, std::string());
    bool exists = std::any_of(classes.begin(), classes.end(),
                              [&](const PriorityClassSpec& c) { return c.name == name; });
    if (p.value("type", "") != "create" || name.empty() || exists || !doc.contains("value")) {
      outcomes_[i].failed.push_back(name.empty() ? "<unnamed>" : name);  // kubectl create fails
      continue;
    }
    classes.push_back({name, doc["value"].get<int>(),
                       doc.value("preemptionPolicy", std::string("PreemptLowerPriority")),
                       doc.value("globalDefault", false)});
    outcomes_[i].applied.push_back(name);
  }
}

void AdviceApplier::patchWorkload(json& object) {
  const std::string kind = object["kind"];
  const std::string ns = object["metadata"]["namespace"];
  const std::string name = object["metadata"]["name"];
  for (std::size_t i = 0; i < patches_.size(); ++i) {
    const json& p = patches_[i];
    if (outcomes_[i].skipped.empty() && kindOf(p) == kind &&
        p["object"].value("namespace", "") == ns && named(p, name)) {
      applyTo(i, object, "variants", "document", ns + "/" + name);
    }
  }
}

const json& AdviceApplier::argoObject(const std::string& kind, const std::string& ns,
                                      const std::string& name, const json& from) {
  const std::string key = kind + " " + ns + "/" + name;
  auto it = argoObjects_.find(key);
  if (it == argoObjects_.end()) {
    json object = from;
    object["apiVersion"] = "argoproj.io/v1alpha1";
    object["kind"] = kind;
    object["metadata"] = json{{"name", name}, {"namespace", ns}};
    patchWorkload(object);
    it = argoObjects_.emplace(key, std::move(object)).first;
  }
  return it->second;
}

namespace {

// The workflow-wide field `wide` of the Workflow's spec, unless the step's template sets its own.
void setFromWorkflow(json& podSpec, const json& spec, const json& step, const std::string& field,
                     const std::string& wide) {
  if (step.contains(field)) {
    podSpec[field] = step[field];
  } else if (spec.contains(wide)) {
    podSpec[field] = spec[wide];
  }
}

json workflowTemplateOf(const std::vector<std::string>& steps) {
  json templates = json::array();
  for (const std::string& step : steps) {
    templates.push_back(json{{"name", step}, {"container", json{{"name", "main"}}}});
  }
  return json{{"spec", json{{"templates", templates}}}};
}

}  // namespace

void AdviceApplier::applyArgoWorkflow(json& pod, const std::string& ns,
                                      const std::string& workflowTemplate,
                                      const std::string& workflow,
                                      const std::vector<std::string>& steps,
                                      const std::string& step) {
  const json& made =
      argoObject("WorkflowTemplate", ns, workflowTemplate, workflowTemplateOf(steps));
  const json spec = argoObject("Workflow", ns, workflow, made).value("spec", json::object());
  json stepTemplate = json::object();
  for (const auto& t : spec.value("templates", json::array())) {
    if (t.value("name", "") == step) {
      stepTemplate = t;
    }
  }
  json& podSpec = pod["spec"];
  setFromWorkflow(podSpec, spec, stepTemplate, "tolerations", "tolerations");
  setFromWorkflow(podSpec, spec, stepTemplate, "affinity", "affinity");
  setFromWorkflow(podSpec, spec, stepTemplate, "priorityClassName", "podPriorityClassName");
  json selector = spec.value("nodeSelector", json::object());
  selector.update(stepTemplate.value("nodeSelector", json::object()));
  if (!selector.empty()) {
    podSpec["nodeSelector"].update(selector);
  }
}

void AdviceApplier::patchTaskPod(json& pod) {
  const std::string name = pod["metadata"]["name"];
  for (std::size_t i = 0; i < patches_.size(); ++i) {
    const json& p = patches_[i];
    if (!outcomes_[i].skipped.empty() || holdsObject(kindOf(p))) {
      continue;  // Argo objects reach their pods in applyArgoWorkflow
    }
    if (p.contains("pods") && p["pods"].is_object() && podSelected(p["pods"], pod)) {
      applyTo(i, pod, "pod_variants", "pod_document", name);
    } else if (namesPod(p, pod)) {
      applyTo(i, pod, "variants", "document", name);
    }
  }
}

json AdviceApplier::report() const {
  json out = json::array();
  for (std::size_t i = 0; i < patches_.size(); ++i) {
    const json& p = patches_[i];
    const Outcome& o = outcomes_[i];
    std::string status = !o.skipped.empty()                      ? "skipped"
                         : o.applied.empty() && o.failed.empty() ? "matched nothing"
                         : o.applied.empty()                     ? "all variants failed"
                         : o.failed.empty()                      ? "applied"
                                                                 : "partly applied";
    auto listed = [](const std::vector<std::string>& v) {
      return json(std::vector<std::string>(
          v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), kListedTargets))));
    };
    json entry{{"recommendation", p.value("recommendation", "")},
               {"step", p.value("step", 0)},
               {"purpose", p.value("purpose", "")},
               {"object", p["object"]},
               {"type", p.value("type", "")},
               {"status", status},
               {"applied_to", o.applied.size()},
               {"applied_to_names", listed(o.applied)},
               {"failed_on", o.failed.size()},
               {"failed_on_names", listed(o.failed)}};
    if (p.contains("pods")) {
      entry["pods"] = p["pods"];
    }
    if (!o.skipped.empty()) {
      entry["reason"] = o.skipped;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

std::vector<std::string> describeReport(const json& report) {
  std::vector<std::string> lines;
  for (const auto& e : report) {
    std::string line = "patch " + e.value("recommendation", "") + " step " +
                       std::to_string(e.value("step", 0)) + " " + objectText(e) + ": " +
                       e.value("status", "");
    const bool toPods = !holdsObject(e["object"].value("kind", ""));
    if (e["applied_to"].get<std::size_t>() > 0) {
      line += ", applied to " + std::to_string(e["applied_to"].get<std::size_t>()) +
              (toPods ? " pods as they were created" : "");
    }
    if (e["failed_on"].get<std::size_t>() > 0) {
      line += ", every variant failed on " + std::to_string(e["failed_on"].get<std::size_t>());
    }
    if (e.contains("reason")) {
      line += " (" + e["reason"].get<std::string>() + ")";
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace dagadvisor::sim
