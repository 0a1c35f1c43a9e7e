// objects.json: the PipelineRuns `kubectl get pipelineruns -A -o json` would print for the
// simulated cluster, checked against the history and the labels of the runs' pods.
#include "engine_objects.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "sim_test_support.h"

using namespace dagadvisor::sim;
using namespace dagadvisor::sim::test;
using nlohmann::json;

namespace {

const json* itemNamed(const json& list, const std::string& name) {
  for (const json& item : list.at("items")) {
    if (item.at("metadata").at("name") == name) {
      return &item;
    }
  }
  return nullptr;
}

std::string podLabel(const Pod& p, const std::string& key) {
  const std::string* value = labelValue(p.labels, key);
  return value != nullptr ? *value : "<missing " + key + ">";
}

std::vector<const Pod*> podsOfRun(const History& h, const Run& r) {
  std::vector<const Pod*> out;
  for (const Pod& p : h.pods) {
    if (p.kind == PodKind::kTask && &h.runs[static_cast<std::size_t>(p.run)] == &r) {
      out.push_back(&p);
    }
  }
  return out;
}

void requireIdentityOfPods(const json& item, const History& h, const Run& r) {
  const json& meta = item.at("metadata");
  CHECK(meta.at("namespace") == r.ns);
  for (const Pod* p : podsOfRun(h, r)) {
    INFO(p->name);
    CHECK(meta.at("name") == podLabel(*p, "tekton.dev/pipelineRun"));
    CHECK(meta.at("uid") == podLabel(*p, "tekton.dev/pipelineRunUID"));
    CHECK(meta.at("namespace") == p->ns);
    CHECK(meta.at("labels").at("tekton.dev/pipeline") == podLabel(*p, "tekton.dev/pipeline"));
    CHECK(item.at("spec").at("pipelineRef").at("name") == podLabel(*p, "tekton.dev/pipeline"));
  }
}

void requirePipelineOfScenario(const json& item, const WorkflowSpec& w) {
  const json& tasks = item.at("status").at("pipelineSpec").at("tasks");
  REQUIRE(tasks.size() == w.tasks.size());
  for (std::size_t i = 0; i < w.tasks.size(); ++i) {
    INFO(w.tasks[i].id);
    CHECK(tasks[i].at("name") == w.tasks[i].id);
    CHECK(tasks[i].at("taskRef") == json{{"name", w.tasks[i].id}, {"kind", "Task"}});
    if (w.tasks[i].parents.empty()) {
      CHECK_FALSE(tasks[i].contains("runAfter"));
    } else {
      CHECK(tasks[i].at("runAfter").get<std::vector<std::string>>() == w.tasks[i].parents);
    }
  }
}

void requireChildrenOfPods(const json& item, const History& h, const Run& r, double t) {
  std::set<std::string> want;
  for (const Pod* p : podsOfRun(h, r)) {
    if (p->created <= t) {
      want.insert(podLabel(*p, "tekton.dev/taskRun"));
    }
  }
  std::set<std::string> got;
  for (const json& ref : item.at("status").value("childReferences", json::array())) {
    CHECK(ref.at("apiVersion") == "tekton.dev/v1");
    CHECK(ref.at("kind") == "TaskRun");
    got.insert(ref.at("name").get<std::string>());
  }
  CHECK(got == want);
}

void requireStatusOfRun(const json& item, const Run& r, double t) {
  const json& status = item.at("status");
  const json& condition = status.at("conditions").at(0);
  CHECK(condition.at("type") == "Succeeded");
  if (r.finished <= t) {
    CHECK(status.contains("completionTime"));
    CHECK(condition.at("status") == "True");
    CHECK(condition.at("reason") == "Succeeded");
    CHECK(condition.at("message") == "Tasks Completed: 8 (Failed: 0, Cancelled 0), Skipped: 0");
  } else {
    CHECK_FALSE(status.contains("completionTime"));
    CHECK(condition.at("status") == "Unknown");
    CHECK(condition.at("reason") == "Running");
  }
}

// The List at t against the history: one PipelineRun per Tekton run arrived by then.
void requireListMatchesHistory(const json& list, const History& h, double t) {
  CHECK(list.at("apiVersion") == "v1");
  CHECK(list.at("kind") == "List");
  CHECK(list.at("metadata") == json{{"resourceVersion", ""}});
  std::size_t arrived = 0;
  for (const Run& r : h.runs) {
    if (r.engine != Engine::kTekton || r.arrival > t) {
      CHECK(itemNamed(list, r.name) == nullptr);
      continue;
    }
    ++arrived;
    INFO(r.name << " at t=" << t);
    const json* item = itemNamed(list, r.name);
    REQUIRE(item != nullptr);
    CHECK(item->at("apiVersion") == "tekton.dev/v1");
    CHECK(item->at("kind") == "PipelineRun");
    requireIdentityOfPods(*item, h, r);
    requirePipelineOfScenario(*item, h.scenario->workflows[static_cast<std::size_t>(r.workflow)]);
    requireChildrenOfPods(*item, h, r, t);
    requireStatusOfRun(*item, r, t);
  }
  CHECK(list.at("items").size() == arrived);
}

}  // namespace

TEST_CASE("objects.json: a PipelineRun per Tekton run, as its pods and the scenario say",
          "[objects]") {
  const Scenario s = loadShipped("split-dependencies");
  const History h = simulate(s, Policy::kBaseline);
  REQUIRE(h.runs.size() == 4);

  SECTION("at the end of the window") {
    const json list = pipelineRunList(h);
    CHECK(list.at("items").size() == 4);
    requireListMatchesHistory(list, h, writtenWindowEnd(h));
  }
  SECTION("when the first run finished: later runs are running or not created yet") {
    double first = kNever;
    for (const Run& r : h.runs) {
      first = std::min(first, r.finished);
    }
    REQUIRE(first < h.end);
    const json list = pipelineRunList(h, first);
    int running = 0;
    for (const json& item : list.at("items")) {
      running += item.at("status").contains("completionTime") ? 0 : 1;
    }
    CHECK(running > 0);
    requireListMatchesHistory(list, h, first);
  }
}

TEST_CASE("objects.json: a scenario without Tekton lists no PipelineRun", "[objects]") {
  const Scenario s = loadShipped("seed");
  const json list = pipelineRunList(simulate(s, Policy::kBaseline));
  CHECK(list == json{{"apiVersion", "v1"},
                     {"kind", "List"},
                     {"metadata", {{"resourceVersion", ""}}},
                     {"items", json::array()}});
}
