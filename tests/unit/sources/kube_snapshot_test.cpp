#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "loopback_server.h"
#include "sources/kubernetes/kubernetes_source.h"
#include "sources/snapshot/snapshot_source.h"
#include "sources/snapshot/snapshot_writer.h"
#include "support/test_support.h"
#include "temp_dir.h"

namespace dagadvisor::sources {
namespace {

using nlohmann::json;
using testing::LoopbackServer;
using testing::Reply;
using testing::SeenRequest;

constexpr UnixSeconds kListedAt = 1795856400;

// Serves `items` as the API server does with limit=1: one object per page, the next page named
// by a continue token that the server checks.
void servePaged(const std::string& route, std::vector<json> items, const std::string& kind) {
  LoopbackServer::instance().route(route, [items, kind](const SeenRequest& request, std::size_t) {
    std::size_t page = 0;
    if (auto at = request.query.find("continue=page-"); at != std::string::npos) {
      page = std::stoul(request.query.substr(at + 14));
    }
    if (page >= items.size()) {
      return Reply{410, "application/json", R"({"kind":"Status","code":410})", {}};
    }
    json body = {{"apiVersion", "v1"},
                 {"kind", kind},
                 {"metadata", {{"resourceVersion", "9926"}}},
                 {"items", json::array({items[page]})}};
    if (page + 1 < items.size()) {
      body["metadata"]["continue"] = "page-" + std::to_string(page + 1);
    }
    return Reply{200, "application/json", body.dump(), {}};
  });
}

// A metrics source with nothing recorded: these tests record only Kubernetes LISTs.
class NoMetrics final : public MetricsSource {
 public:
  Result<QueryBody> instantQuery(const Query& query, UnixSeconds) override {
    return makeError("no " + query.name);
  }
  std::string describe() const override { return "no metrics"; }
};

// Three real Workflows, read when a test first needs them (never during static initialisation).
const std::vector<json>& workflows() {
  static const std::vector<json> kWorkflows = {
      testing::workflowFixture("argo-dag-disable-fail-fast.json"),
      testing::workflowFixture("argo-dag_retry_succeeded.json"),
      testing::workflowFixture("argo-steps-failed-retries.json")};
  return kWorkflows;
}

TEST_CASE("real Argo Workflows are LISTed page by page", "[kubernetes]") {
  servePaged("/k8s-wf/apis/argoproj.io/v1alpha1/workflows", workflows(), "WorkflowList");
  auto& server = LoopbackServer::instance();
  KubernetesSource source(KubeAccess{server.url("/k8s-wf"), {}}, 1);
  auto list = source.list("/apis/argoproj.io/v1alpha1/workflows");
  REQUIRE(list.ok());
  CHECK(list->status == 200);
  CHECK(list->items == 3);
  REQUIRE(list->pages.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(json::parse(list->pages[i])["items"][0] == workflows()[i]);
  }
  const auto seen = server.seen("/k8s-wf/apis/argoproj.io/v1alpha1/workflows");
  REQUIRE(seen.size() == 3);
  CHECK_THAT(seen[0].query, Catch::Contains("limit=1") && !Catch::Contains("continue"));
  CHECK_THAT(seen[2].query, Catch::Contains("continue=page-2"));
}

TEST_CASE("forbidden and failing LISTs: 403 is a status, a 500 an error naming the path",
          "[kubernetes]") {
  auto& server = LoopbackServer::instance();
  server.route("/k8s-deny/apis/tekton.dev/v1/pipelineruns", [](const SeenRequest&, std::size_t) {
    return Reply{403, "application/json", R"({"kind":"Status","code":403})", {}};
  });
  server.route("/k8s-deny/apis/tekton.dev/v1/taskruns", [](const SeenRequest&, std::size_t) {
    return Reply{500, "text/plain", "etcd is sad", {}};
  });
  KubernetesSource source(KubeAccess{server.url("/k8s-deny"), {}}, 0);
  auto denied = source.list("/apis/tekton.dev/v1/pipelineruns");
  REQUIRE(denied.ok());
  CHECK(denied->status == 403);
  CHECK(denied->pages.empty());
  // page_size 0: no limit parameter at all.
  CHECK(server.seen("/k8s-deny/apis/tekton.dev/v1/pipelineruns")[0].query.find("limit") ==
        std::string::npos);
  auto failed = source.list("/apis/tekton.dev/v1/taskruns");
  REQUIRE_FALSE(failed.ok());
  CHECK_THAT(failed.error().message,
             Catch::Contains("/apis/tekton.dev/v1/taskruns") && Catch::Contains("500"));
}

TEST_CASE("Kubernetes LISTs are recorded into the snapshot and replayed offline",
          "[kubernetes][snapshot]") {
  json pipeline_run = testing::workflowFixture("tekton-chains-pipelinerun-childrefs.json");
  pipeline_run["metadata"] = {{"name", "chains-run"}, {"namespace", "ci"}};
  servePaged("/k8s-rec/apis/argoproj.io/v1alpha1/workflows", workflows(), "WorkflowList");
  servePaged("/k8s-rec/apis/tekton.dev/v1beta1/pipelineruns", {pipeline_run}, "PipelineRunList");
  auto& server = LoopbackServer::instance();
  KubernetesSource live(KubeAccess{server.url("/k8s-rec"), {}}, 2);
  testing::TempDir dir;
  NoMetrics metrics;
  SnapshotWriter writer(metrics, dir / "snap");
  KubeListSource& recording = writer.recordKubernetes(live);
  auto workflows = recording.list("/apis/argoproj.io/v1alpha1/workflows", "");
  auto v1 = recording.list("/apis/tekton.dev/v1/pipelineruns", "");  // no route: 404
  auto v1beta1 = recording.list("/apis/tekton.dev/v1beta1/pipelineruns", "");
  REQUIRE((workflows.ok() && v1.ok() && v1beta1.ok()));
  REQUIRE(v1->status == 404);
  CHECK(writer.recordedKubeLists() == 3);
  REQUIRE(writer.finish(kListedAt).ok());

  auto snapshot = SnapshotSource::open(dir / "snap");
  REQUIRE(snapshot.ok());
  CHECK((*snapshot)->manifest().kubernetes.size() == 3);
  const KubeListSourcePtr replay = (*snapshot)->kubernetes();
  REQUIRE(replay != nullptr);
  const std::size_t requests_before =
      server.seen("/k8s-rec/apis/argoproj.io/v1alpha1/workflows").size();
  auto replayed = replay->list("/apis/argoproj.io/v1alpha1/workflows", "");
  REQUIRE(replayed.ok());
  CHECK(replayed->pages == workflows->pages);  // byte for byte, one page per object
  CHECK(replayed->pages.size() == 3);
  CHECK(server.seen("/k8s-rec/apis/argoproj.io/v1alpha1/workflows").size() == requests_before);
  auto absent = replay->list("/apis/tekton.dev/v1/pipelineruns", "");
  REQUIRE(absent.ok());
  CHECK(absent->status == 404);
  auto tekton = replay->list("/apis/tekton.dev/v1beta1/pipelineruns", "");
  REQUIRE(tekton.ok());
  CHECK(json::parse(tekton->pages.at(0))["items"][0] == pipeline_run);
  auto missing = replay->list("/apis/argoproj.io/v1alpha1/namespaces/ci/workflows", "");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("not recorded") &&
                                          Catch::Contains("/apis/tekton.dev/v1/pipelineruns"));
}

TEST_CASE("manifests: the kubernetes part is optional and checked field by field", "[snapshot]") {
  const std::string head =
      R"({"format":1,"recorded_at":1795857000,"at":1795856400,"source":"s","queries":[])";
  auto old = parseManifest(head + "}");
  REQUIRE(old.ok());
  CHECK(old->kubernetes.empty());
  CHECK(renderManifest(*old).find("kubernetes") == std::string::npos);

  auto good = parseManifest(
      head + R"(,"kubernetes":[{"path":"/apis/x/v1/ys","status":200,"files":["kube_0_0.json"]}]})");
  REQUIRE(good.ok());
  REQUIRE(good->kubernetes.size() == 1);
  CHECK(good->kubernetes[0].files == std::vector<std::string>{"kube_0_0.json"});
  auto again = parseManifest(renderManifest(*good));
  REQUIRE(again.ok());
  CHECK(again->kubernetes[0].path == "/apis/x/v1/ys");

  auto escaping = parseManifest(
      head + R"(,"kubernetes":[{"path":"/a","status":200,"files":["../etc/passwd"]}]})");
  REQUIRE_FALSE(escaping.ok());
  CHECK(escaping.error().field == "kubernetes[0].files[0]");
  auto status = parseManifest(head + R"(,"kubernetes":[{"path":"/a","status":500,"files":[]}]})");
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().field == "kubernetes[0].status");
  auto path = parseManifest(head + R"(,"kubernetes":[{"path":"a","status":200,"files":[]}]})");
  REQUIRE_FALSE(path.ok());
  CHECK(path.error().field == "kubernetes[0].path");
}

}  // namespace
}  // namespace dagadvisor::sources
