#include "sources/kubernetes/kubernetes_source.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "loopback_server.h"
#include "support/test_support.h"
#include "temp_dir.h"

namespace dagadvisor::sources {
namespace {

using testing::LoopbackServer;
using testing::Reply;
using testing::SeenRequest;

// Serves the real PodList two items a page, as an API server with limit=2 would.
void servePodPages(const std::string& route) {
  static const nlohmann::json list = nlohmann::json::parse(
      testing::readFile(testing::fixturePath("kubernetes/ray-podlist1.json")));
  LoopbackServer::instance().route(route, [](const SeenRequest& request, std::size_t) {
    const bool second = request.query.find("continue=page-2") != std::string::npos;
    nlohmann::json page = {
        {"apiVersion", "v1"}, {"kind", "PodList"}, {"metadata", nlohmann::json::object()}};
    const auto& items = list["items"];
    page["items"] =
        second ? nlohmann::json::array({items[2]}) : nlohmann::json::array({items[0], items[1]});
    if (!second) {
      page["metadata"]["continue"] = "page-2";
    }
    return Reply{200, "application/json", page.dump(), {}};
  });
}

std::string writeKubeconfig(const testing::TempDir& dir, const std::string& server,
                            const std::string& user) {
  const std::string path = dir / "kubeconfig";
  std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: test\n"
                         "clusters:\n- name: c1\n  cluster:\n    server: "
                      << server << "/\n"
                      << "contexts:\n- name: test\n  context: {cluster: c1, user: u1}\n"
                      << "users:\n- name: u1\n  user:\n"
                      << user;
  return path;
}

TEST_CASE("a LIST follows continue tokens with limit and label selector", "[kubernetes]") {
  servePodPages("/k8s/api/v1/pods");
  testing::TempDir dir;
  auto& server = LoopbackServer::instance();
  auto access =
      kubeAccessFromKubeconfig(writeKubeconfig(dir, server.url("/k8s"), "    token: sa-token-1\n"));
  REQUIRE(access.ok());
  KubernetesSource source(*access, 2);
  auto pods = source.list("/api/v1/pods", "workflows.argoproj.io/workflow");
  REQUIRE(pods.ok());
  CHECK(pods->items == 3);
  REQUIRE(pods->pages.size() == 2);
  CHECK(nlohmann::json::parse(pods->pages[1])["items"][0]["metadata"]["name"] ==
        "raycluster-autoscaler-worker-small-group-dkz2r");
  const auto seen = server.seen("/k8s/api/v1/pods");
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].method == "GET");
  CHECK_THAT(seen[0].query, Catch::Contains("limit=2"));
  CHECK_THAT(seen[0].query, Catch::Contains("labelSelector=workflows.argoproj.io%2Fworkflow"));
  CHECK_THAT(seen[1].query, Catch::Contains("continue=page-2"));
  CHECK(seen[0].header("Authorization") == "Bearer sa-token-1");
}

// A proxy in front of the API server may echo the request's credentials into what it returns;
// here into an object's name and a label, as the token alone (no "Bearer").
TEST_CASE("an echo of the kubeconfig's token in a LIST's objects is redacted", "[kubernetes]") {
  auto& server = LoopbackServer::instance();
  server.route("/k8s-echo/apis/argoproj.io/v1alpha1/workflows", [](const SeenRequest& request,
                                                                   std::size_t) {
    const std::string token = request.header("Authorization").substr(7);
    nlohmann::json item = {{"metadata", {{"name", "wf-" + token}, {"labels", {{"echo", token}}}}}};
    nlohmann::json page = {{"kind", "WorkflowList"},
                           {"metadata", nlohmann::json::object()},
                           {"items", nlohmann::json::array({item})}};
    return Reply{200, "application/json", page.dump(), {}};
  });
  testing::TempDir dir;
  auto access = kubeAccessFromKubeconfig(
      writeKubeconfig(dir, server.url("/k8s-echo"), "    token: echoed-sa-token-7\n"));
  REQUIRE(access.ok());
  KubernetesSource source(*access, 10);
  auto workflows = source.list("/apis/argoproj.io/v1alpha1/workflows", "");
  REQUIRE(workflows.ok());
  REQUIRE(workflows->pages.size() == 1);
  CHECK_THAT(workflows->pages[0], !Catch::Contains("echoed-sa-token-7"));
  const auto item = nlohmann::json::parse(workflows->pages[0])["items"][0];
  CHECK(item["metadata"]["name"] == "wf-<redacted>");
  CHECK(item["metadata"]["labels"]["echo"] == "<redacted>");
}

TEST_CASE("a missing resource is a 404 list; a non-list body is an error naming the resource",
          "[kubernetes]") {
  auto& server = LoopbackServer::instance();
  server.route("/k8s-bad/apis/argoproj.io/v1alpha1/workflows", [](const SeenRequest&, std::size_t) {
    return Reply{404, "application/json", R"({"kind":"Status","code":404})", {}};
  });
  server.route("/k8s-bad/api/v1/nodes", [](const SeenRequest&, std::size_t) {
    return Reply{200, "application/json", R"({"kind":"Status"})", {}};
  });
  KubernetesSource source(KubeAccess{server.url("/k8s-bad"), {}});
  auto missing = source.list("/apis/argoproj.io/v1alpha1/workflows");
  REQUIRE(missing.ok());
  CHECK(missing->absent());
  CHECK(missing->status == 404);
  CHECK(missing->pages.empty());
  auto odd = source.list("/api/v1/nodes");
  REQUIRE_FALSE(odd.ok());
  CHECK_THAT(odd.error().message, Catch::Contains("no \"items\""));
}

TEST_CASE("kubeconfig: relative token files, inline certificates, refused exec plugins",
          "[kubernetes]") {
  testing::TempDir dir;
  auto with_files = kubeAccessFromKubeconfig(writeKubeconfig(
      dir, "https://api.example:6443", "    tokenFile: token\n    client-key-data: a2V5\n"));
  REQUIRE(with_files.ok());
  CHECK(with_files->server == "https://api.example:6443");
  CHECK(with_files->http.bearer_token_file == dir / "token");
  CHECK(with_files->http.client_key_pem == "key");
  CHECK(with_files->http.tls_verify);
  CHECK_THAT(with_files->describe(), !Catch::Contains("token"));

  auto exec = kubeAccessFromKubeconfig(
      writeKubeconfig(dir, "https://api.example:6443", "    exec:\n      command: aws\n"));
  REQUIRE_FALSE(exec.ok());
  CHECK_THAT(exec.error().message, Catch::Contains("exec"));

  auto broken = kubeAccessFromKubeconfig(dir / "missing-kubeconfig");
  REQUIRE_FALSE(broken.ok());
  CHECK_THAT(broken.error().message, Catch::Contains("missing-kubeconfig"));
}

TEST_CASE("in-cluster access reads the service-account mount", "[kubernetes]") {
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  CHECK_FALSE(kubeAccessInCluster("/nonexistent").ok());
  ::setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto access = kubeAccessInCluster("/sa");
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  REQUIRE(access.ok());
  CHECK(access->server == "https://[fd00::1]:443");
  CHECK(access->http.bearer_token_file == "/sa/token");
  CHECK(access->http.ca_file == "/sa/ca.crt");
}

}  // namespace
}  // namespace dagadvisor::sources
