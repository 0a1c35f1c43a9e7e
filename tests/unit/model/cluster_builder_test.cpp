#include "model/cluster_builder.h"

#include <catch2/catch.hpp>

using namespace dagadvisor;
using model::ClusterBuilder;
using model::QueryId;
using sources::LabelView;
using sources::SampleView;

namespace {

void feed(ClusterBuilder& b, QueryId id, std::vector<LabelView> labels, double value) {
  SampleView s;
  s.labels = labels.data();
  s.label_count = labels.size();
  s.value = value;
  b.add(id, s);
}

}  // namespace

TEST_CASE("kube-state-metrics samples become nodes and pods in model units", "[model]") {
  ClusterBuilder b(1000);
  feed(b, QueryId::kNodeAllocatable, {{"node", "gpu-1"}, {"resource", "cpu"}}, 31.5);
  feed(b, QueryId::kNodeAllocatable, {{"node", "gpu-1"}, {"resource", "memory"}}, 1024.0);
  feed(b, QueryId::kNodeAllocatable, {{"node", "gpu-1"}, {"resource", "nvidia_com_gpu"}}, 4);
  feed(b, QueryId::kNodeLabels, {{"node", "gpu-1"}, {"label_accelerator", "nvidia-tesla"}}, 1);
  feed(b, QueryId::kNodeTaints,
       {{"node", "gpu-1"},
        {"key", "nvidia.com/gpu"},
        {"value", "present"},
        {"effect", "NoSchedule"}},
       1);
  // Labels only, no allocatable: not a node we can reason about.
  feed(b, QueryId::kNodeLabels, {{"node", "ghost"}, {"label_x", "y"}}, 1);

  const std::vector<LabelView> pod = {{"namespace", "ml"}, {"pod", "train-0"}, {"uid", "u1"}};
  auto with = [&](std::vector<LabelView> extra) {
    extra.insert(extra.begin(), pod.begin(), pod.end());
    return extra;
  };
  // The pod's info series before binding (node="") and after: the bound one must win.
  feed(b, QueryId::kPodInfo, with({{"node", ""}, {"created_by_kind", "Job"}}), 1);
  feed(b, QueryId::kPodInfo, with({{"node", "gpu-1"}, {"created_by_kind", "Job"}}), 1);
  feed(b, QueryId::kPodLive, with({}), 1);
  feed(b, QueryId::kPodPhase, with({{"phase", "Running"}}), 1);
  feed(b, QueryId::kPodRequests, with({{"resource", "cpu"}}), 0.25);
  feed(b, QueryId::kPodRequests, with({{"resource", "memory"}}), 512);
  feed(b, QueryId::kPodRequests, with({{"resource", "nvidia_com_gpu"}}), 1);
  feed(b, QueryId::kPodLabels, with({{"label_dag_id", "train"}}), 1);
  feed(b, QueryId::kPodAnnotations, with({{"annotation_workflow_dependencies", "a,b"}}), 1);
  feed(b, QueryId::kPodOwner, with({{"owner_kind", "Workflow"}, {"owner_name", "wf-1"}}), 1);
  feed(b, QueryId::kPodCreated, with({}), 900);
  feed(b, QueryId::kPodStarted, with({}), 950);

  const model::ClusterSnapshot snap = std::move(b).build();
  REQUIRE(snap.nodes().size() == 1);
  const model::Node& node = snap.node(0);
  CHECK(node.allocatable == model::ResourceVector{31'500, 1024, 4});
  CHECK(node.labels.get("accelerator") == "nvidia-tesla");
  REQUIRE(node.taints.size() == 1);
  CHECK(node.taints[0].effect == "NoSchedule");

  REQUIRE(snap.pods().size() == 1);
  const model::Pod& p = snap.pod(0);
  CHECK(p.node == 0);
  CHECK(p.phase == model::PodPhase::kRunning);
  CHECK(p.requests == model::ResourceVector{250, 512, 1});
  CHECK(p.labels.get("dag-id") == "train");
  CHECK(p.annotations.get("workflow.dependencies") == "a,b");
  CHECK(p.owner_kind == "Workflow");
  CHECK(p.created == 900);
  CHECK(p.started == 950);
  CHECK_FALSE(p.finished.has_value());
  CHECK(snap.requestedOn(0) == model::ResourceVector{250, 512, 1});
  CHECK(snap.podsOn(0).size() == 1);
}

TEST_CASE("a pod deleted before the analysis time holds nothing", "[model]") {
  ClusterBuilder b(1000);
  feed(b, QueryId::kNodeAllocatable, {{"node", "n1"}, {"resource", "cpu"}}, 4);
  const std::vector<LabelView> gone = {
      {"namespace", "a"}, {"pod", "worker"}, {"uid", "u"}, {"node", "n1"}};
  feed(b, QueryId::kPodInfo, gone, 1);
  feed(b, QueryId::kPodPhase, {gone[0], gone[1], gone[2], {"phase", "Running"}}, 1);
  feed(b, QueryId::kPodRequests, {gone[0], gone[1], gone[2], {"resource", "cpu"}}, 2);
  feed(b, QueryId::kPodCompleted, {gone[0], gone[1], gone[2]}, 990);
  const auto snap = std::move(b).build();
  REQUIRE(snap.pods().size() == 1);
  CHECK(snap.pod(0).phase == model::PodPhase::kSucceeded);
  CHECK(snap.podsOn(0).empty());
  CHECK(snap.requestedOn(0).cpu_millis == 0);
}
