#include "analysis/node_eligibility.h"

#include <catch2/catch.hpp>

#include "support/builders.h"

using namespace dagadvisor;
using analysis::NodeEligibility;
using analysis::selectorMatches;
using analysis::toleratesTaint;
using model::Taint;
using model::Toleration;
using testing::makeNode;
using testing::makePod;
using testing::ownedBy;

namespace {

Toleration toleration(std::string key, std::string op, std::string value, std::string effect) {
  return {std::move(key), std::move(op), std::move(value), std::move(effect), std::nullopt};
}

model::Node withTaint(const std::string& name, Taint taint) {
  return makeNode(name, 16, 64, 0, [&](model::Node& n) { n.taints.push_back(std::move(taint)); });
}

model::Node withPool(const std::string& name, const std::string& pool) {
  return makeNode(name, 16, 64, 0, [&](model::Node& n) { n.labels.set("pool", pool); });
}

// Whether the cluster's only pending pod may land on node `name`.
bool mayLand(const model::ClusterSnapshot& cluster, const std::string& name) {
  const NodeEligibility eligibility(cluster, "nvidia.com/gpu");
  const std::string groups = eligibility.groupsFor(cluster.pod(cluster.pendingPods().at(0)));
  return eligibility.eligible(groups, *cluster.findNode(name));
}

}  // namespace

TEST_CASE("tolerations match taints as Kubernetes' ToleratesTaint does", "[eligibility]") {
  const Taint gpu{"nvidia.com/gpu", "present", "NoSchedule"};
  SECTION("a key-less Exists tolerates every taint, whatever its effect") {
    CHECK(toleratesTaint(toleration("", "Exists", "", ""), gpu));
    CHECK(toleratesTaint(toleration("", "Exists", "", ""), {"spot", "true", "NoExecute"}));
  }
  SECTION("a key-less Exists with an effect tolerates only that effect") {
    CHECK(toleratesTaint(toleration("", "Exists", "", "NoSchedule"), gpu));
    CHECK_FALSE(toleratesTaint(toleration("", "Exists", "", "NoExecute"), gpu));
  }
  SECTION("an empty effect matches every effect of the key") {
    CHECK(toleratesTaint(toleration("nvidia.com/gpu", "Exists", "", ""), gpu));
    CHECK(toleratesTaint(toleration("nvidia.com/gpu", "Exists", "", ""),
                         {"nvidia.com/gpu", "present", "NoExecute"}));
    CHECK_FALSE(toleratesTaint(toleration("CriticalAddonsOnly", "Exists", "", ""), gpu));
  }
  SECTION("Equal compares the value; an empty operator is Equal") {
    CHECK(toleratesTaint(toleration("nvidia.com/gpu", "Equal", "present", "NoSchedule"), gpu));
    CHECK_FALSE(toleratesTaint(toleration("nvidia.com/gpu", "Equal", "absent", "NoSchedule"), gpu));
    CHECK(toleratesTaint(toleration("nvidia.com/gpu", "", "present", "NoSchedule"), gpu));
    CHECK_FALSE(toleratesTaint(toleration("nvidia.com/gpu", "", "", "NoSchedule"), gpu));
  }
  SECTION("Exists ignores the value") {
    CHECK(toleratesTaint(toleration("nvidia.com/gpu", "Exists", "anything", "NoSchedule"), gpu));
  }
  SECTION("an operator this version does not know tolerates nothing") {
    CHECK_FALSE(toleratesTaint(toleration("nvidia.com/gpu", "Gt", "900", "NoSchedule"), gpu));
  }
}

TEST_CASE("a node selector matches a node carrying every key with the same value",
          "[eligibility]") {
  model::LabelSet labels;
  labels.set("kubernetes.io/os", "linux");
  labels.set("pool", "cpu");
  model::LabelSet selector;
  CHECK(selectorMatches(selector, labels));   // an empty selector selects every node
  selector.set("kubernetes_io_os", "linux");  // as kube-state-metrics spells the key
  CHECK(selectorMatches(selector, labels));
  selector.set("pool", "gpu");
  CHECK_FALSE(selectorMatches(selector, labels));
  model::LabelSet missing;
  missing.set("disktype", "ssd");
  CHECK_FALSE(selectorMatches(missing, labels));
}

TEST_CASE("known tolerations replace the inference", "[eligibility]") {
  const std::vector<model::Node> nodes = {withTaint("infra", {"dedicated", "infra", "NoSchedule"}),
                                          makeNode("plain", 16, 64)};
  // A pod of the same Job sat on the tainted node: the inference says the pending one tolerates.
  std::vector<model::Pod> pods = {makePod("ml", "job-0", "infra", 1, 1, 0, ownedBy("Job", "etl")),
                                  makePod("ml", "job-1", "", 1, 1, 0, ownedBy("Job", "etl"))};
  SECTION("not known: inferred from the owner") {
    model::ClusterSnapshot cluster(5000, nodes, pods);
    CHECK(mayLand(cluster, "infra"));
  }
  SECTION("known to have none: the tainted node is excluded, the plain one is not") {
    pods[1].tolerations.emplace();
    model::ClusterSnapshot cluster(5000, nodes, pods);
    CHECK_FALSE(mayLand(cluster, "infra"));
    CHECK(mayLand(cluster, "plain"));
  }
  SECTION("known with an Equal toleration of another value: excluded") {
    pods[1].tolerations = {{toleration("dedicated", "Equal", "gpu", "NoSchedule")}};
    model::ClusterSnapshot cluster(5000, nodes, pods);
    CHECK_FALSE(mayLand(cluster, "infra"));
  }
  SECTION("known with the matching Equal toleration: allowed") {
    pods[1].tolerations = {{toleration("dedicated", "Equal", "infra", "NoSchedule")}};
    model::ClusterSnapshot cluster(5000, nodes, pods);
    CHECK(mayLand(cluster, "infra"));
  }
}

TEST_CASE("a GPU pod with known tolerations lacking the GPU key is kept off GPU-tainted nodes",
          "[eligibility]") {
  const model::Node gpu = makeNode("gpu-1", 16, 64, 4, [](model::Node& n) {
    n.taints.push_back({"nvidia.com/gpu", "present", "NoSchedule"});
  });
  model::Pod train = makePod("ml", "train", "", 4, 8, 1);
  train.tolerations = {{toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute")}};
  model::ClusterSnapshot cluster(5000, {gpu}, {train});
  // The ExtendedResourceToleration inference would have allowed it; the real list does not.
  CHECK_FALSE(mayLand(cluster, "gpu-1"));
}

TEST_CASE("PreferNoSchedule taints never exclude a node", "[eligibility]") {
  model::Pod pod = makePod("ml", "p", "", 1, 1);
  pod.tolerations.emplace();
  model::ClusterSnapshot cluster(5000, {withTaint("soft", {"spot", "true", "PreferNoSchedule"})},
                                 {pod});
  CHECK(mayLand(cluster, "soft"));
}

TEST_CASE("node selectors are checked when known, and only then", "[eligibility]") {
  const std::vector<model::Node> nodes = {withPool("c1", "cpu"), withPool("g1", "gpu"),
                                          makeNode("bare", 16, 64)};
  model::Pod pod = makePod("ml", "p", "", 1, 1);
  SECTION("not known: every node") {
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK(mayLand(cluster, "c1"));
    CHECK(mayLand(cluster, "g1"));
    CHECK(mayLand(cluster, "bare"));
  }
  SECTION("pool=gpu: only the node with that label value") {
    pod.node_selector.emplace().set("pool", "gpu");
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK_FALSE(mayLand(cluster, "c1"));
    CHECK(mayLand(cluster, "g1"));
    CHECK_FALSE(mayLand(cluster, "bare"));  // no such label at all
  }
  SECTION("a key no node shows is not checked: node labels are allow-listed") {
    pod.node_selector.emplace().set("disktype", "ssd");
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK(mayLand(cluster, "c1"));
    CHECK(mayLand(cluster, "bare"));
    CHECK(analysis::unseenSelectorKeys(cluster) == std::vector<std::string>{"disktype"});
  }
  SECTION("known empty: every node") {
    pod.node_selector.emplace();
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK(mayLand(cluster, "bare"));
  }
}

namespace {

model::NodeSelectorRequirement requirement(std::string key, std::string op,
                                           std::vector<std::string> values = {}) {
  return {std::move(key), std::move(op), std::move(values)};
}

model::Node labelled(const std::string& name,
                     const std::vector<std::pair<std::string, std::string>>& labels) {
  return makeNode(name, 16, 64, 0, [&](model::Node& n) {
    for (const auto& [key, value] : labels) {
      n.labels.set(key, value);
    }
  });
}

}  // namespace

TEST_CASE("node affinity requirements follow Kubernetes' operators", "[eligibility][affinity]") {
  using analysis::requirementMatches;
  const std::optional<std::string> a = "a";
  const std::optional<std::string> none;
  SECTION("In and NotIn; NotIn holds without the label") {
    CHECK(requirementMatches(requirement("k", "In", {"a", "b"}), a));
    CHECK_FALSE(requirementMatches(requirement("k", "In", {"b"}), a));
    CHECK_FALSE(requirementMatches(requirement("k", "In", {"a"}), none));
    CHECK(requirementMatches(requirement("k", "NotIn", {"b"}), a));
    CHECK_FALSE(requirementMatches(requirement("k", "NotIn", {"a"}), a));
    CHECK(requirementMatches(requirement("k", "NotIn", {"a"}), none));
  }
  SECTION("Exists and DoesNotExist ignore the value") {
    CHECK(requirementMatches(requirement("k", "Exists"), a));
    CHECK_FALSE(requirementMatches(requirement("k", "Exists"), none));
    CHECK(requirementMatches(requirement("k", "DoesNotExist"), none));
    CHECK_FALSE(requirementMatches(requirement("k", "DoesNotExist"), a));
  }
  SECTION("Gt and Lt compare integers, strictly; anything else fails") {
    CHECK(requirementMatches(requirement("k", "Gt", {"7"}), std::string("8")));
    CHECK_FALSE(requirementMatches(requirement("k", "Gt", {"8"}), std::string("8")));
    CHECK(requirementMatches(requirement("k", "Lt", {"10"}), std::string("-3")));
    CHECK_FALSE(requirementMatches(requirement("k", "Lt", {"10"}), std::string("10")));
    CHECK_FALSE(requirementMatches(requirement("k", "Gt", {"7"}), std::string("8x")));
    CHECK_FALSE(requirementMatches(requirement("k", "Gt", {"7"}), none));
    CHECK_FALSE(requirementMatches(requirement("k", "Gt", {"7", "9"}), std::string("8")));
  }
  SECTION("an operator the API does not define matches nothing") {
    CHECK_FALSE(requirementMatches(requirement("k", "Equal", {"a"}), a));
  }
}

TEST_CASE("required node affinity: terms ORed, requirements ANDed, unseen keys not checked",
          "[eligibility][affinity]") {
  const std::vector<model::Node> nodes = {
      labelled("a1", {{"topology.kubernetes.io/zone", "a"}, {"gpu-count", "8"}}),
      labelled("b1", {{"topology.kubernetes.io/zone", "b"}, {"gpu-count", "2"}}),
      labelled("c1", {{"topology.kubernetes.io/zone", "c"}})};
  model::Pod pod = makePod("ml", "p", "", 1, 1);
  const auto zoneIn = [](std::vector<std::string> zones) {
    return requirement("topology.kubernetes.io/zone", "In", std::move(zones));
  };
  SECTION("not known (no API source): every node") {
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK(mayLand(cluster, "a1"));
    CHECK(mayLand(cluster, "c1"));
  }
  SECTION("known to have none: every node") {
    pod.required_node_affinity.emplace();
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK(mayLand(cluster, "b1"));
  }
  SECTION("the expressions of one term must all hold") {
    pod.required_node_affinity = {
        {{zoneIn({"a", "b"}), requirement("gpu-count", "Gt", {"4"})}, {}}};
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK(mayLand(cluster, "a1"));
    CHECK_FALSE(mayLand(cluster, "b1"));  // zone b, but 2 GPUs
    CHECK_FALSE(mayLand(cluster, "c1"));
  }
  SECTION("any term may hold") {
    pod.required_node_affinity = {{{zoneIn({"c"})}, {}},
                                  {{requirement("gpu-count", "Lt", {"4"})}, {}}};
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK_FALSE(mayLand(cluster, "a1"));
    CHECK(mayLand(cluster, "b1"));
    CHECK(mayLand(cluster, "c1"));
  }
  SECTION("an empty term matches no node") {
    pod.required_node_affinity = {model::NodeSelectorTerm{}};
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK_FALSE(mayLand(cluster, "a1"));
  }
  SECTION("a key no node shows is not checked, and named") {
    pod.required_node_affinity = {
        {{requirement("cloud.google.com/gke-nodepool", "In", {"x"}), zoneIn({"b"})}, {}}};
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK_FALSE(mayLand(cluster, "a1"));  // the zone is still checked
    CHECK(mayLand(cluster, "b1"));
    CHECK(analysis::unseenAffinityKeys(cluster) ==
          std::vector<std::string>{"cloud_google_com_gke_nodepool"});
  }
  SECTION("matchFields metadata.name pins a DaemonSet pod to its node") {
    pod.required_node_affinity = {{{}, {requirement("metadata.name", "In", {"b1"})}}};
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK_FALSE(mayLand(cluster, "a1"));
    CHECK(mayLand(cluster, "b1"));
    CHECK_FALSE(mayLand(cluster, "c1"));
    const NodeEligibility eligibility(cluster, "nvidia.com/gpu");
    CHECK(eligibility.exclusion(cluster.pod(0), *cluster.findNode("a1")) ==
          "required node affinity (metadata.name In [b1])");
    CHECK(eligibility.exclusion(cluster.pod(0), *cluster.findNode("b1")).empty());
  }
  SECTION("NotIn on a name keeps the pod off that node only") {
    pod.required_node_affinity = {{{}, {requirement("metadata.name", "NotIn", {"a1"})}}};
    model::ClusterSnapshot cluster(5000, nodes, {pod});
    CHECK_FALSE(mayLand(cluster, "a1"));
    CHECK(mayLand(cluster, "b1"));
    CHECK(mayLand(cluster, "c1"));
  }
}
