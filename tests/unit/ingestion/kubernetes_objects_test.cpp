#include "ingestion/kubernetes_objects.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "sources/kubernetes/kube_object_files.h"
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
  CHECK(testing::anyContains(fetch.warnings, "Argo Workflows: not installed (404 on "));
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

namespace {

// A YAML node as the API server's JSON: plain scalars that read as integers or booleans are
// numbers and booleans, quoted ones stay strings (yaml-cpp tags those "!").
json jsonOf(const YAML::Node& node) {
  if (node.IsMap()) {
    json out = json::object();
    for (const auto& entry : node) {
      out[entry.first.as<std::string>()] = jsonOf(entry.second);
    }
    return out;
  }
  if (node.IsSequence()) {
    json out = json::array();
    for (const auto& item : node) {
      out.push_back(jsonOf(item));
    }
    return out;
  }
  if (!node.IsScalar()) {
    return nullptr;
  }
  const std::string text = node.Scalar();
  if (node.Tag() != "!") {
    if (text == "true" || text == "false") {
      return text == "true";
    }
    if (!text.empty() && text.find_first_not_of("-0123456789") == std::string::npos) {
      return std::stoll(text);
    }
    if (text == "null" || text == "~") {
      return nullptr;
    }
  }
  return text;
}

// The objects of a fixture file under tests/fixtures/objects/: every document, and the items
// of a `kind: List`.
std::vector<json> objectsOf(const std::string& file) {
  std::vector<json> out;
  for (const YAML::Node& doc : YAML::LoadAllFromFile(testing::fixturePath("objects/" + file))) {
    json object = jsonOf(doc);
    if (object.value("kind", "") == "List") {
      for (json& item : object["items"]) {
        out.push_back(std::move(item));
      }
    } else {
      out.push_back(std::move(object));
    }
  }
  return out;
}

const model::PendingPodSpec* podNamed(const std::vector<model::PendingPodSpec>& pods,
                                      std::string_view name) {
  auto it = std::find_if(pods.begin(), pods.end(), [&](const auto& p) { return p.name == name; });
  return it == pods.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("PriorityClasses and pending pods are listed and parsed from real objects",
          "[model][kubernetes][scheduling]") {
  TableLists lists;
  std::vector<json> classes = objectsOf("priorityclass-kwok-low-high.yaml");
  const std::vector<json> all_fields = objectsOf("priorityclass-k8s-api-testdata-allfields.yaml");
  classes.insert(classes.end(), all_fields.begin(), all_fields.end());
  lists.add("/apis/scheduling.k8s.io/v1/priorityclasses", {listOf(classes)});
  // Two pages: the kind cluster's PodList, then the all-fields Pod.
  lists.add("/api/v1/pods?fieldSelector=status.phase%3DPending",
            {listOf(objectsOf("podlist-nri-kubernetes-kind-1_35.yaml")),
             listOf(objectsOf("pod-k8s-api-testdata-allfields.yaml"))});
  ingestion::KubernetesObjects source(lists, config::KubernetesSource{});
  const model::SchedulingFetch fetch = source.fetchScheduling();
  CHECK(fetch.warnings.empty());

  REQUIRE(fetch.specs.priority_classes);
  const auto& pcs = *fetch.specs.priority_classes;
  REQUIRE(pcs.size() == 3);
  CHECK(pcs[0].name == "low-priority");
  CHECK(pcs[0].value == 100);
  CHECK(pcs[0].preemption_policy == "PreemptLowerPriority");  // unset: the API's default
  CHECK_FALSE(pcs[0].global_default);
  CHECK(pcs[1].value == 200);
  CHECK(pcs[2].value == 2);
  CHECK(pcs[2].preemption_policy == "preemptionPolicyValue");
  CHECK(pcs[2].global_default);

  REQUIRE(fetch.specs.pending_pods);
  const auto& pods = *fetch.specs.pending_pods;
  CHECK(pods.size() == 26);
  // A DaemonSet pod: the scheduler-injected matchFields pin it to its node.
  const model::PendingPodSpec* kindnet = podNamed(pods, "kindnet-zkpn8");
  REQUIRE(kindnet != nullptr);
  CHECK(kindnet->namespace_ == "kube-system");
  REQUIRE(kindnet->priority);
  CHECK(*kindnet->priority == 0);
  REQUIRE(kindnet->required_node_affinity.size() == 1);
  const auto& fields = kindnet->required_node_affinity[0].match_fields;
  REQUIRE(fields.size() == 1);
  CHECK(fields[0].key == "metadata.name");
  CHECK(fields[0].operator_ == "In");
  CHECK(fields[0].values == std::vector<std::string>{"datagen-1-35"});
  CHECK(kindnet->required_node_affinity[0].match_expressions.empty());
  const model::PendingPodSpec* coredns = podNamed(pods, "coredns-7d764666f9-qdcxt");
  REQUIRE(coredns != nullptr);
  CHECK(coredns->priority_class == "system-cluster-critical");
  CHECK(*coredns->priority == 2000000000);
  CHECK(coredns->required_node_affinity.empty());  // pod anti-affinity only: not node affinity
  // Every field set: the required terms, not the preferred ones.
  const auto all = std::find_if(pods.begin(), pods.end(), [](const auto& p) {
    return p.priority_class == "priorityClassNameValue";
  });
  REQUIRE(all != pods.end());
  CHECK(*all->priority == 25);
  REQUIRE(all->required_node_affinity.size() == 1);
  CHECK(all->required_node_affinity[0].match_expressions.size() == 1);
  CHECK(all->required_node_affinity[0].match_expressions[0].key == "keyValue");
  CHECK(all->required_node_affinity[0].match_fields.size() == 1);
}

TEST_CASE("scheduling LISTs that fail leave their family not known, with a warning",
          "[model][kubernetes][scheduling]") {
  TableLists lists;
  config::KubernetesSource settings;
  settings.namespaces = {"ci", "ml"};
  lists.refuse("/apis/scheduling.k8s.io/v1/priorityclasses", 403);
  lists.refuse("/api/v1/namespaces/ci/pods?fieldSelector=status.phase%3DPending", 403);
  SECTION("one namespace read: its pods are known") {
    lists.add("/api/v1/namespaces/ml/pods?fieldSelector=status.phase%3DPending", {listOf({})});
    ingestion::KubernetesObjects source(lists, settings);
    const model::SchedulingFetch fetch = source.fetchScheduling();
    CHECK_FALSE(fetch.specs.priority_classes);
    REQUIRE(fetch.specs.pending_pods);
    CHECK(fetch.specs.pending_pods->empty());
    CHECK(testing::anyContains(fetch.warnings, "priorityclasses is forbidden (403)"));
    CHECK(testing::anyContains(fetch.warnings, "/namespaces/ci/pods"));
  }
  SECTION("none read: not known") {
    ingestion::KubernetesObjects source(lists, settings);
    const model::SchedulingFetch fetch = source.fetchScheduling();
    CHECK_FALSE(fetch.specs.pending_pods);
    CHECK(testing::anyContains(fetch.warnings, "connection refused"));
  }
}

TEST_CASE("what kubectl get -o json printed gives the same objects and facts as the API",
          "[model][kubernetes][scheduling]") {
  // One file per kubectl command, as a user without API access from the daemon would write them:
  // kubectl get pipelineruns,taskruns -A -o json; kubectl get priorityclasses,pods -A -o json.
  json run = withMetadata(testing::workflowFixture("tekton-chains-pipelinerun-childrefs.json"),
                          "chains-run", "ci");
  run["apiVersion"] = "tekton.dev/v1";
  run["kind"] = "PipelineRun";
  std::vector<json> tekton{run};
  for (const char* fixture :
       {"tekton-chains-taskrun1-build.json", "tekton-chains-taskrun2-git-clone.json"}) {
    json task_run = testing::workflowFixture(fixture);
    task_run["apiVersion"] = "tekton.dev/v1";
    task_run["kind"] = "TaskRun";
    task_run["metadata"]["namespace"] = "ci";
    task_run["metadata"]["labels"]["tekton.dev/pipelineRun"] = "chains-run";
    tekton.push_back(std::move(task_run));
  }
  std::vector<json> scheduling = objectsOf("priorityclass-kwok-low-high.yaml");
  for (json& pod : objectsOf("podlist-nri-kubernetes-kind-1_35.yaml")) {
    pod["apiVersion"] = "v1";  // a PodList's items carry no apiVersion; kubectl's List items do
    pod["kind"] = "Pod";
    scheduling.push_back(std::move(pod));
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string tekton_file = (dir / "dagadvisor-kubectl-tekton.json").string();
  const std::string scheduling_file = (dir / "dagadvisor-kubectl-scheduling.json").string();
  std::ofstream(tekton_file) << listOf(tekton).dump();
  std::ofstream(scheduling_file) << listOf(scheduling).dump();
  auto files = sources::KubeObjectFiles::open({tekton_file, scheduling_file});
  std::filesystem::remove(tekton_file);
  std::filesystem::remove(scheduling_file);
  REQUIRE(files.ok());

  ingestion::KubernetesObjects source(**files, config::KubernetesSource{});
  const model::ObjectFetch fetch = source.fetch({});
  REQUIRE(fetch.objects.size() == 1);
  const model::ObjectTask* built = fetch.objects[0].object.find("build");
  REQUIRE(built != nullptr);
  CHECK(fetch.objects[0].namespace_ == "ci");
  CHECK(built->parents == std::vector<std::string>{"git-clone"});
  REQUIRE(built->started.has_value());  // from the TaskRun in the same file
  CHECK(*built->started == Approx(1617011400));
  // No Argo Workflow in the files: not known, so Argo runs keep their inferred edges. The
  // warning says the files hold none, not that Argo is not installed.
  CHECK(testing::anyContains(fetch.warnings, "Argo Workflows: none in the object files "));
  CHECK_FALSE(testing::anyContains(fetch.warnings, "not installed"));

  const model::SchedulingFetch facts = source.fetchScheduling();
  REQUIRE(facts.specs.priority_classes);
  CHECK(facts.specs.priority_classes->size() == 2);
  REQUIRE(facts.specs.pending_pods);  // the server's field selector, applied to the file
  REQUIRE(facts.specs.pending_pods->size() == 1);
  CHECK(facts.specs.pending_pods->front().name == "e2e-container-pending");
}
