#include "replay/selectors.h"

#include <catch2/catch.hpp>

using namespace dagadvisor;
using replay::SelectorOp;

TEST_CASE("label requirements follow Kubernetes' operators, NotIn matching an absent key") {
  model::LabelSet labels;
  labels.set("node-type", "gpu");
  CHECK(replay::LabelRequirement{"node-type", SelectorOp::kIn, {"cpu", "gpu"}}.matches(labels));
  CHECK_FALSE(replay::LabelRequirement{"node-type", SelectorOp::kIn, {"cpu"}}.matches(labels));
  CHECK(replay::LabelRequirement{"node-type", SelectorOp::kNotIn, {"cpu"}}.matches(labels));
  CHECK_FALSE(replay::LabelRequirement{"node-type", SelectorOp::kNotIn, {"gpu"}}.matches(labels));
  CHECK(replay::LabelRequirement{"zone", SelectorOp::kNotIn, {"a"}}.matches(labels));
  CHECK(replay::LabelRequirement{"node-type", SelectorOp::kExists, {}}.matches(labels));
  CHECK_FALSE(replay::LabelRequirement{"zone", SelectorOp::kExists, {}}.matches(labels));
  CHECK(replay::LabelRequirement{"zone", SelectorOp::kDoesNotExist, {}}.matches(labels));
}

TEST_CASE("selector keys match in either spelling, as kube-state-metrics exports them") {
  model::LabelSet labels;
  labels.set("topology.kubernetes.io/zone", "a");
  CHECK(replay::LabelSelector::equals({{"topology.kubernetes.io/zone", "a"}}).matches(labels));
  CHECK(replay::LabelSelector::equals({{"topology_kubernetes_io_zone", "a"}}).matches(labels));
  CHECK_FALSE(
      replay::LabelSelector::equals({{"topology.kubernetes.io/zone", "b"}}).matches(labels));
  CHECK(replay::LabelSelector{}.matches(labels));
}

TEST_CASE("required node affinity matches any of its terms, and no term means no constraint") {
  model::LabelSet gpu;
  gpu.set("node-type", "gpu");
  replay::RequiredNodeAffinity affinity;
  CHECK(affinity.matches(gpu));
  affinity.terms.push_back(replay::LabelSelector::equals({{"node-type", "cpu"}}));
  CHECK_FALSE(affinity.matches(gpu));
  affinity.terms.push_back(replay::LabelSelector::equals({{"node-type", "gpu"}}));
  CHECK(affinity.matches(gpu));
}

TEST_CASE("tolerations match key, value and effect; empty key with Exists matches all") {
  const model::Taint taint{"nvidia.com/gpu", "present", "NoSchedule"};
  using replay::TolerationOp;
  CHECK(
      replay::Toleration{"nvidia.com/gpu", TolerationOp::kEqual, "present", "NoSchedule"}.tolerates(
          taint));
  CHECK_FALSE(
      replay::Toleration{"nvidia.com/gpu", TolerationOp::kEqual, "absent", "NoSchedule"}.tolerates(
          taint));
  CHECK_FALSE(
      replay::Toleration{"nvidia.com/gpu", TolerationOp::kEqual, "present", "NoExecute"}.tolerates(
          taint));
  CHECK(replay::Toleration{"nvidia.com/gpu", TolerationOp::kExists, "", ""}.tolerates(taint));
  CHECK(replay::Toleration{"", TolerationOp::kExists, "", ""}.tolerates(taint));
  CHECK_FALSE(replay::Toleration{"other", TolerationOp::kExists, "", ""}.tolerates(taint));
}
