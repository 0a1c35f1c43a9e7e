#include "sources/kubernetes/kube_object_files.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/test_support.h"
#include "temp_dir.h"

namespace dagadvisor::sources {
namespace {

using nlohmann::json;

std::string write(const testing::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir / name;
  std::ofstream(path) << text;
  return path;
}

// What `kubectl get … -o json` prints for several kinds: a v1 List of mixed items.
json kubectlList(std::vector<json> items) {
  return {{"apiVersion", "v1"},
          {"kind", "List"},
          {"metadata", {{"resourceVersion", ""}}},
          {"items", std::move(items)}};
}

json pipelineRun(const std::string& ns, const std::string& name, const json& labels = {}) {
  json run = testing::workflowFixture("tekton-chains-pipelinerun-childrefs.json");
  run["apiVersion"] = "tekton.dev/v1";
  run["kind"] = "PipelineRun";
  run["metadata"] = {{"name", name}, {"namespace", ns}};
  if (!labels.is_null()) {
    run["metadata"]["labels"] = labels;
  }
  return run;
}

json pod(const std::string& name, const std::string& phase) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "ml"}}},
          {"status", {{"phase", phase}}}};
}

std::vector<std::string> namesIn(const KubeList& list) {
  std::vector<std::string> out;
  for (const std::string& page : list.pages) {
    const json parsed = json::parse(page);
    for (const json& item : parsed["items"]) {
      out.push_back(item["metadata"]["name"]);
    }
  }
  return out;
}

Result<KubeList> listOf(KubeObjectFiles& files, const std::string& path,
                        const std::string& selector = "") {
  return files.list(path, selector);
}

}  // namespace

TEST_CASE("kubectl's JSON answers the LISTs of the kinds it holds, by namespace",
          "[sources][kubernetes]") {
  testing::TempDir dir;
  const json workflow = testing::workflowFixture("argo-dag_retry_succeeded.json");  // default
  const std::string mixed =
      write(dir, "objects.json",
            kubectlList({pipelineRun("ci", "build-1"), pipelineRun("science", "align-1"), workflow,
                         json{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}}})
                .dump());
  // A second file, as `kubectl get pod NAME -o json` prints one object.
  const std::string single = write(dir, "pod.json", pod("trainer-0", "Pending").dump());
  auto opened = KubeObjectFiles::open({mixed, single});
  REQUIRE(opened.ok());
  KubeObjectFiles& files = **opened;

  auto all = listOf(files, "/apis/tekton.dev/v1/pipelineruns");
  REQUIRE(all.ok());
  CHECK(all->status == 200);
  CHECK(all->items == 2);
  CHECK(namesIn(*all) == std::vector<std::string>{"build-1", "align-1"});
  auto science = listOf(files, "/apis/tekton.dev/v1/namespaces/science/pipelineruns");
  REQUIRE(science.ok());
  CHECK(namesIn(*science) == std::vector<std::string>{"align-1"});
  auto nowhere = listOf(files, "/apis/tekton.dev/v1/namespaces/nowhere/pipelineruns");
  REQUIRE(nowhere.ok());
  CHECK(nowhere->status == 200);  // the kind is known: this namespace has none of it
  CHECK(nowhere->items == 0);
  auto argo = listOf(files, "/apis/argoproj.io/v1alpha1/namespaces/default/workflows");
  REQUIRE(argo.ok());
  CHECK(namesIn(*argo) == std::vector<std::string>{workflow["metadata"]["name"]});

  // Kinds the files hold nothing of are not known, as a resource the server does not serve.
  for (const char* path : {"/apis/tekton.dev/v1beta1/pipelineruns", "/apis/tekton.dev/v1/taskruns",
                           "/apis/scheduling.k8s.io/v1/priorityclasses"}) {
    auto absent = listOf(files, path);
    REQUIRE(absent.ok());
    CHECK(absent->status == 404);
    CHECK(absent->pages.empty());
  }
  CHECK(files.describe() ==
        "object files " + mixed + ", " + single + " (1 objects of kinds not read)");
}

TEST_CASE("kubectl's JSON answers the pending pods' field selector and equality label selectors",
          "[sources][kubernetes]") {
  testing::TempDir dir;
  const std::string path =
      write(dir, "pods.json",
            kubectlList({pod("a", "Pending"), pod("b", "Running"), pod("c", "Pending")}).dump());
  auto opened = KubeObjectFiles::open({path});
  REQUIRE(opened.ok());
  auto pending =
      listOf(**opened, "/api/v1/namespaces/ml/pods?fieldSelector=status.phase%3DPending");
  REQUIRE(pending.ok());
  CHECK(namesIn(*pending) == std::vector<std::string>{"a", "c"});
  auto every = listOf(**opened, "/api/v1/pods");
  REQUIRE(every.ok());
  CHECK(every->items == 3);

  const std::string runs =
      write(dir, "runs.json",
            kubectlList({pipelineRun("ci", "x", {{"tekton.dev/pipeline", "build"}}),
                         pipelineRun("ci", "y", {{"tekton.dev/pipeline", "test"}}),
                         pipelineRun("ci", "z")})
                .dump());
  auto labelled = KubeObjectFiles::open({runs});
  REQUIRE(labelled.ok());
  auto build = listOf(**labelled, "/apis/tekton.dev/v1/pipelineruns", "tekton.dev/pipeline=build");
  REQUIRE(build.ok());
  CHECK(namesIn(*build) == std::vector<std::string>{"x"});
  auto doubled =
      listOf(**labelled, "/apis/tekton.dev/v1/pipelineruns", "tekton.dev/pipeline==test");
  REQUIRE(doubled.ok());
  CHECK(namesIn(*doubled) == std::vector<std::string>{"y"});

  // What the files cannot answer as the server would is an error, never a wrong answer.
  auto set_based = listOf(**labelled, "/apis/tekton.dev/v1/pipelineruns", "env in (a,b)");
  REQUIRE_FALSE(set_based.ok());
  CHECK(set_based.error().message.find("key=value") != std::string::npos);
  auto other_field = listOf(**opened, "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1");
  REQUIRE_FALSE(other_field.ok());
  CHECK(other_field.error().field == "LIST /api/v1/pods?fieldSelector=spec.nodeName%3Dn1");
}

TEST_CASE("object files that cannot be read are errors naming the file", "[sources][kubernetes]") {
  testing::TempDir dir;
  const std::string missing = dir / "missing.json";
  auto gone = KubeObjectFiles::open({missing});
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().field == missing);

  const std::string yaml = write(dir, "objects.yaml", "apiVersion: v1\nkind: List\nitems: []\n");
  auto not_json = KubeObjectFiles::open({yaml});
  REQUIRE_FALSE(not_json.ok());
  CHECK(not_json.error().field == yaml);
  CHECK(not_json.error().message.find("-o json") != std::string::npos);

  const std::string bad_items =
      write(dir, "bad.json", R"({"apiVersion":"v1","kind":"List","items":{"a":1}})");
  auto not_list = KubeObjectFiles::open({bad_items});
  REQUIRE_FALSE(not_list.ok());
  CHECK(not_list.error().field == bad_items);

  const std::string array = write(dir, "array.json", "[1, 2]");
  CHECK_FALSE(KubeObjectFiles::open({array}).ok());
  CHECK_FALSE(KubeObjectFiles::open({dir.path()}).ok());  // a directory is not a file
}

}  // namespace dagadvisor::sources
