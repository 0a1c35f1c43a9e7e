#include "ingestion/kubernetes_objects.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

using namespace dagadvisor;
using nlohmann::json;

namespace {

json listOf(std::vector<json> items) {
  return {{"kind", "List"}, {"metadata", json::object()}, {"items", std::move(items)}};
}

// LISTs answered from a table of paths; a path not in it fails like an unreachable API.
class TableLists final : public sources::KubeListSource {
 public:
  std::map<std::string, sources::KubeList> lists;
  std::vector<std::string> asked;

  void add(const std::string& path, const std::vector<json>& pages) {
    sources::KubeList list;
    for (const json& page : pages) {
      list.pages.push_back(page.dump());
    }
    lists[path] = std::move(list);
  }
  void refuse(const std::string& path, int status) { lists[path].status = status; }

  Result<sources::KubeList> list(const std::string& path, const std::string&) override {
    asked.push_back(path);
    auto it = lists.find(path);
    if (it == lists.end()) {
      return makeError("connection refused: LIST " + path);
    }
    return it->second;
  }
  std::string describe() const override { return "table"; }
};

json withMetadata(json object, const std::string& name, const std::string& ns,
                  const json& labels = json::object()) {
  object["metadata"] = {{"name", name}, {"namespace", ns}, {"labels", labels}};
  return object;
}

const model::SourcedObject* find(const model::ObjectFetch& fetch, std::string_view name) {
  auto it = std::find_if(fetch.objects.begin(), fetch.objects.end(),
                         [&](const auto& o) { return o.object.name == name; });
  return it == fetch.objects.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("Argo Workflows and Tekton PipelineRuns (v1beta1 fallback) become objects",
          "[model][kubernetes]") {
  TableLists lists;
  lists.add("/apis/argoproj.io/v1alpha1/workflows",
            {listOf({testing::workflowFixture("argo-dag-disable-fail-fast.json")}),
             listOf({testing::workflowFixture("argo-dag_retry_succeeded.json")})});
  lists.refuse("/apis/tekton.dev/v1/pipelineruns", 404);
  lists.add(
      "/apis/tekton.dev/v1beta1/pipelineruns",
      {listOf({withMetadata(testing::workflowFixture("tekton-chains-pipelinerun-childrefs.json"),
                            "chains-run", "ci")})});
  // The TaskRuns name their PipelineRun by label, as Tekton's controller sets it.
  json build = testing::workflowFixture("tekton-chains-taskrun1-build.json");
  build["metadata"]["namespace"] = "ci";
  build["metadata"]["labels"]["tekton.dev/pipelineRun"] = "chains-run";
  json clone = testing::workflowFixture("tekton-chains-taskrun2-git-clone.json");
  clone["metadata"]["namespace"] = "ci";
  clone["metadata"]["labels"]["tekton.dev/pipelineRun"] = "chains-run";
  json stranger = clone;
  stranger["metadata"]["labels"]["tekton.dev/pipelineRun"] = "another-run";
  lists.add("/apis/tekton.dev/v1beta1/taskruns", {listOf({build, clone, stranger})});

  ingestion::KubernetesObjects source(lists, config::KubernetesSource{});
  const model::ObjectFetch fetch = source.fetch({});
  CHECK(fetch.warnings.empty());
  REQUIRE(fetch.objects.size() == 3);
  const auto* argo = find(fetch, "dag-disable-fail-fast-r6xdc");
  REQUIRE(argo != nullptr);
  CHECK(argo->namespace_ == "default");
  CHECK(argo->object.engine == "argo");
  CHECK(argo->object.edgeCount() == 4);  // A → B, C; B → D → E
  const auto* tekton = find(fetch, "chains-run");
  REQUIRE(tekton != nullptr);
  CHECK(tekton->namespace_ == "ci");
  const model::ObjectTask* built = tekton->object.find("build");
  REQUIRE(built != nullptr);
  CHECK(built->parents == std::vector<std::string>{"git-clone"});
  // Timings come from the TaskRun: 2021-03-29T09:50:00Z – 09:50:15Z.
  REQUIRE(built->started.has_value());
  CHECK(*built->started == Approx(1617011400));
  CHECK(*built->finished == Approx(1617011415));
  CHECK(std::find(lists.asked.begin(), lists.asked.end(), "/apis/tekton.dev/v1/taskruns") ==
        lists.asked.end());
}

TEST_CASE("missing engines, forbidden namespaces and a dead API are warnings",
          "[model][kubernetes]") {
  TableLists lists;
  config::KubernetesSource settings;
  settings.namespaces = {"ci", "ml"};
  lists.refuse("/apis/argoproj.io/v1alpha1/namespaces/ci/workflows", 404);
  lists.refuse("/apis/tekton.dev/v1/namespaces/ci/pipelineruns", 403);
  lists.add(
      "/apis/tekton.dev/v1/namespaces/ml/pipelineruns",
      {listOf({withMetadata(testing::workflowFixture("tekton-chains-pipelinerun-childrefs.json"),
                            "r1", "ml"),
               withMetadata(json{{"spec", json::object()}}, "broken", "ml")})});
  // TaskRuns of ci and ml are not in the table: the API "refuses the connection".

  ingestion::KubernetesObjects source(lists, settings);
  const model::ObjectFetch fetch = source.fetch({});
  REQUIRE(fetch.objects.size() == 1);
  CHECK(fetch.objects[0].object.name == "r1");
  CHECK(testing::anyContains(fetch.warnings, "Argo Workflows are not installed"));
  CHECK(testing::anyContains(fetch.warnings, "/namespaces/ci/pipelineruns is forbidden (403)"));
  CHECK(testing::anyContains(
      fetch.warnings, "connection refused: LIST /apis/tekton.dev/v1/namespaces/ml/taskruns"));
  CHECK(testing::anyContains(fetch.warnings, "ml/broken not read"));
  // A 404 means the resource type is not served: the second namespace is not asked.
  CHECK(std::count(lists.asked.begin(), lists.asked.end(),
                   "/apis/argoproj.io/v1alpha1/namespaces/ml/workflows") == 0);
}

TEST_CASE("only the configured object kinds are listed", "[model][kubernetes]") {
  TableLists lists;
  config::KubernetesSource settings;
  settings.argo_workflows = false;
  settings.tekton_task_runs = false;
  lists.add("/apis/tekton.dev/v1/pipelineruns", {listOf({})});
  ingestion::KubernetesObjects source(lists, settings);
  const model::ObjectFetch fetch = source.fetch({});
  CHECK(fetch.objects.empty());
  CHECK(fetch.warnings.empty());
  CHECK(lists.asked == std::vector<std::string>{"/apis/tekton.dev/v1/pipelineruns"});
}
