#include <catch2/catch.hpp>

#include "replay/replay.h"
#include "replay_builders.h"

using namespace dagadvisor;
using namespace dagadvisor::testing;

namespace {

replay::ReplayResult replayOk(const replay::ReplayInput& in,
                              replay::SchedulerProfile profile = {}) {
  auto r = replay::replay(in, profile);
  INFO((r.ok() ? "" : r.error().describe()));
  REQUIRE(r.ok());
  return *r;
}

replay::ReplayInput oneNode(double cores = 4) {
  replay::ReplayInput in;
  in.window_end = 10'000;
  in.nodes = {replayNode("n1", cores, 16)};
  return in;
}

}  // namespace

TEST_CASE("a child arrives its hand-off after the parent finished; each starts after its delay") {
  replay::ReplayInput in = oneNode();
  auto a = replayPod("a", 1, 1, 1000, 100);
  auto b = replayPod("b", 1, 1, 0, 50);
  a.start_delay = b.start_delay = 2;
  b.handoff = 5;
  addReplayRun(in, "ns/dag/r1", {a, b}, {{0, 1}});
  const auto r = replayOk(in);
  CHECK(r.pods[0].finished == Approx(1102));
  CHECK(r.pods[1].arrival == Approx(1107));
  CHECK(r.pods[1].started == Approx(1109));
  REQUIRE(r.runs.size() == 1);
  CHECK(r.runs[0].complete);
  CHECK(r.runs[0].makespan == Approx(1159 - 1000));
}

TEST_CASE("a child waits for its last parent") {
  replay::ReplayInput in = oneNode(16);
  addReplayRun(
      in, "r",
      {replayPod("a", 1, 1, 0, 10), replayPod("b", 1, 1, 0, 30), replayPod("c", 1, 1, 0, 1)},
      {{0, 2}, {1, 2}});
  const auto r = replayOk(in);
  CHECK(r.pods[2].arrival == Approx(30));
  CHECK(r.runs[0].makespan == Approx(31));
}

TEST_CASE("an unschedulable pod retries when a pod leaves, not before its backoff ends") {
  replay::ReplayInput in = oneNode();
  in.pods = {replayPod("first", 4, 1, 0, 0.2), replayPod("second", 4, 1, 0.1, 10)};
  const auto r = replayOk(in);
  CHECK(r.pods[1].failed_attempts == 1);
  // Rejected at 0.1; the node frees at 0.2; the 1 s backoff ends at 1.1.
  CHECK(r.pods[1].bound == Approx(1.1));
  CHECK(r.never_scheduled.empty());
}

TEST_CASE("a pod that cannot fit anywhere stays pending to the end") {
  replay::ReplayInput in = oneNode();
  in.pods = {replayPod("huge", 64, 1, 0, 10)};
  const auto r = replayOk(in);
  CHECK_FALSE(r.pods[0].done());
  CHECK(r.never_scheduled == std::vector<replay::ReplayPodId>{0});
}

TEST_CASE("PrioritySort: of the waiting pods the higher priority goes first") {
  replay::ReplayInput in = oneNode();
  auto low = replayPod("running", 4, 1, 0, 10);
  auto older = replayPod("older", 4, 1, 1, 5);
  auto urgent = replayPod("urgent", 4, 1, 2, 5);
  urgent.priority = 10;
  in.pods = {low, older, urgent};
  replay::SchedulerProfile no_preemption;
  no_preemption.preemption = false;
  const auto r = replayOk(in, no_preemption);
  CHECK(r.pods[2].bound == Approx(10));
  CHECK(r.pods[1].bound == Approx(15));
  CHECK(r.preemptions == 0);
}

TEST_CASE("DefaultPreemption evicts a lower-priority pod, which runs again from the start") {
  replay::ReplayInput in = oneNode();
  auto low = replayPod("low", 4, 1, 0, 10);
  auto urgent = replayPod("urgent", 4, 1, 2, 5);
  urgent.priority = 10;
  in.pods = {low, urgent};
  const auto r = replayOk(in);
  CHECK(r.preemptions == 1);
  CHECK(r.pods[1].bound == Approx(2));
  CHECK(r.pods[0].evictions == 1);
  CHECK(r.pods[0].finished == Approx(7 + 10));  // rebound when urgent finished at 7
}

TEST_CASE("no preemption among equal priorities, nor of fixed pods") {
  replay::ReplayInput in = oneNode();
  auto fixed = replayPod("daemon", 4, 1, 0, 0);
  fixed.role = replay::PodRole::kFixed;
  fixed.observed_node = 0;
  fixed.observed_bound = 0;
  fixed.observed_released = 50;
  auto urgent = replayPod("urgent", 4, 1, 10, 5);
  urgent.priority = 10;
  in.pods = {fixed, urgent};
  const auto r = replayOk(in);
  CHECK(r.preemptions == 0);
  CHECK(r.pods[1].bound == Approx(50));  // the fixed pod's observed end frees the node
}

TEST_CASE("preemption picks the node whose victims have the lowest priority") {
  replay::ReplayInput in;
  in.window_end = 1000;
  in.nodes = {replayNode("n1", 4, 16), replayNode("n2", 4, 16)};
  auto mid = replayPod("mid", 4, 1, 0, 100);
  mid.priority = 5;
  mid.observed_node = 0;
  auto low = replayPod("low", 4, 1, 0, 100);
  low.priority = 1;
  low.observed_node = 1;
  auto urgent = replayPod("urgent", 4, 1, 10, 5);
  urgent.priority = 10;
  in.pods = {mid, low, urgent};
  const auto r = replayOk(in);
  REQUIRE(r.pods[0].node == 0u);  // the tie between empty nodes went to the observed node
  REQUIRE(r.pods[1].node == 1u);
  CHECK(r.pods[2].node == 1u);
  CHECK(r.pods[1].evictions == 1);
  CHECK(r.pods[0].evictions == 0);
}

TEST_CASE("a pod of unknown run time holds its node until the window's end") {
  replay::ReplayInput in = oneNode();
  in.window_end = 500;
  auto unknown = replayPod("unknown", 4, 1, 0, 0);
  unknown.basis = replay::RunTimeBasis::kUnknown;
  in.pods = {unknown, replayPod("next", 4, 1, 1, 10)};
  const auto r = replayOk(in);
  CHECK(r.pods[0].finished == Approx(500));
  CHECK(r.pods[1].bound == Approx(500));
}

TEST_CASE("a pod of unknown run time holds its node past the window's end for its lower bound") {
  replay::ReplayInput in = oneNode();
  in.window_end = 500;
  auto late = replayPod("late", 4, 1, 400, 300);  // at least 300 s: as long as one running
  late.basis = replay::RunTimeBasis::kUnknown;
  auto early = replayPod("early", 4, 1, 0, 100);
  early.basis = replay::RunTimeBasis::kUnknown;
  in.pods = {early, late};
  const auto r = replayOk(in);
  CHECK(r.pods[0].finished == Approx(500));  // the window's end comes later than its bound
  CHECK(r.pods[1].bound == Approx(500));
  CHECK(r.pods[1].finished == Approx(800));
}

TEST_CASE("replays are deterministic and keep the observed node where the scores tie") {
  replay::ReplayInput in;
  in.window_end = 1000;
  for (int i = 0; i < 6; ++i) {
    in.nodes.push_back(replayNode("n" + std::to_string(i), 8, 16));
  }
  for (int i = 0; i < 12; ++i) {
    auto p = replayPod("p" + std::to_string(i), 1, 1, i * 100.0, 50);
    p.observed_node = static_cast<replay::ReplayNodeId>(i % 6);
    in.pods.push_back(p);
  }
  const auto a = replayOk(in);
  const auto b = replayOk(in);
  for (std::size_t i = 0; i < in.pods.size(); ++i) {
    CHECK(a.pods[i].node == in.pods[i].observed_node);
    CHECK(a.pods[i].node == b.pods[i].node);
    CHECK(a.pods[i].finished == b.pods[i].finished);
  }
}

TEST_CASE("scored, a pod goes to the less allocated node; by default back to its observed one") {
  replay::ReplayInput in;
  in.window_end = 1000;
  in.nodes = {replayNode("busy", 8, 16), replayNode("idle", 8, 16)};
  auto resident = replayPod("resident", 6, 12, 0, 0);
  resident.role = replay::PodRole::kFixed;
  resident.observed_node = 0;
  auto pod = replayPod("new", 1, 1, 10, 5);
  pod.observed_node = 0;  // observed there, but the scores do not tie
  in.pods = {resident, pod};
  replay::SchedulerProfile scored;
  scored.prefer_observed_node = false;
  CHECK(replayOk(in, scored).pods[1].node == 1u);
  CHECK(replayOk(in).pods[1].node == 0u);  // by default it goes back where it was seen

  in.pods[1].requests.cpu_millis = 4000;  // no longer fits beside the resident
  CHECK(replayOk(in).pods[1].node == 1u);
}

TEST_CASE("an input referring to a missing node is an error") {
  replay::ReplayInput in = oneNode();
  auto p = replayPod("p", 1, 1, 0, 1);
  p.observed_node = 7;
  in.pods = {p};
  CHECK_FALSE(replay::replay(in).ok());
}

namespace {

replay::ReplayPod fixedPod(const std::string& name, replay::ReplayNodeId node, double cores,
                           UnixSeconds from, UnixSeconds to) {
  auto p = replayPod(name, cores, 1, from, 0);
  p.role = replay::PodRole::kFixed;
  p.observed_node = node;
  p.observed_bound = from;
  p.observed_released = to;
  return p;
}

}  // namespace

TEST_CASE("queue order: kube's refreshed timestamp lets a younger pod pass, arrival does not") {
  // n1 is held until 100. Pods leaving n2 (too small for anyone) at 2, 4, 8, 16 and 20 make the
  // waiting pods retry: `old` (arrived at 1) backs off 1, 2, 4, 8, 10 s, so it sits out the
  // retry at 20 and tries again at 26; `young` (arrived at 18) retries at 20. At 100 kube's
  // queue holds young (last tried 20) before old (26); an arrival-ordered queue holds old first.
  replay::ReplayInput in;
  in.window_end = 1000;
  in.nodes = {replayNode("n1", 4, 16), replayNode("n2", 1, 16)};
  in.pods = {fixedPod("holder", 0, 4, 0, 100), replayPod("old", 4, 1, 1, 10),
             replayPod("young", 4, 1, 18, 10)};
  for (double t : {2.0, 4.0, 8.0, 16.0, 20.0}) {
    in.pods.push_back(fixedPod("leaver", 1, 0.1, 0, t));
  }
  const auto kube = replayOk(in);
  CHECK(kube.pods[2].bound == Approx(100));
  CHECK(kube.pods[1].bound == Approx(110));
  CHECK(kube.pods[1].failed_attempts == 7);  // at 1, 2, 4, 8, 16, 26 and 100
  replay::SchedulerProfile arrival;
  arrival.queue_order = replay::QueueOrder::kArrival;
  const auto fifo = replayOk(in, arrival);
  CHECK(fifo.pods[1].bound == Approx(100));
  CHECK(fifo.pods[2].bound == Approx(110));
}

TEST_CASE("preemption reprieves the victims the preemptor fits beside, most important first") {
  // n1 (8 cores): a fixed 2-core pod, `small` (2 cores, priority 1), `big` (4 cores, priority
  // 2). The 4-core preemptor fits once both go; reprieving big first leaves 2 cores, too few,
  // so big is a victim; reprieving small then still leaves 4: small stays.
  replay::ReplayInput in;
  in.window_end = 1000;
  in.nodes = {replayNode("n1", 8, 64)};
  auto fixed = replayPod("daemon", 2, 1, 0, 0);
  fixed.role = replay::PodRole::kFixed;
  fixed.observed_node = 0;
  auto small = replayPod("small", 2, 1, 0, 100);
  small.priority = 1;
  auto big = replayPod("big", 4, 1, 0, 100);
  big.priority = 2;
  auto urgent = replayPod("urgent", 4, 1, 10, 5);
  urgent.priority = 10;
  in.pods = {fixed, small, big, urgent};
  const auto r = replayOk(in);
  CHECK(r.preemptions == 1);
  CHECK(r.pods[2].evictions == 1);
  CHECK(r.pods[1].evictions == 0);
  CHECK(r.pods[3].bound == Approx(10));
}

namespace {

// A parent on a1 (zone-a) and its child, observed on `child_node` (a2 in zone-a, or b1 in
// zone-b), whose observed run of 300 s includes 100 s when it fetched across zones.
replay::ReplayInput parentAndChild(replay::ReplayNodeId child_node, bool zones_known = true) {
  replay::ReplayInput in;
  in.window_end = 10'000;
  in.nodes = {replayNode("a1", 8, 16), replayNode("a2", 8, 16), replayNode("b1", 8, 16)};
  if (zones_known) {
    in.nodes[0].zone = in.nodes[1].zone = "zone-a";
    in.nodes[2].zone = "zone-b";
  }
  auto parent = replayPod("parent", 1, 1, 0, 50);
  parent.observed_node = 0;
  auto child = replayPod("child", 1, 1, 0, 300);
  child.observed_node = child_node;
  child.cross_zone_seconds = 100;
  if (zones_known) {
    child.observed_transfer_seconds = child_node == 2 ? 100 : 0;
  }
  addReplayRun(in, "ns/dag/r1", {parent, child}, {{0, 1}});
  return in;
}

double childRun(const replay::ReplayInput& in) {
  const auto r = replayOk(in);
  return r.pods[1].finished - r.pods[1].started;
}

void pinChildTo(replay::ReplayInput& in, replay::ReplayNodeId node) {
  in.pods[1].node_selector = {{"kubernetes.io/hostname", in.nodes[node].name}};
  in.nodes[node].labels.set("kubernetes.io/hostname", in.nodes[node].name);
}

}  // namespace

TEST_CASE("a task's measured crossing follows where the replay puts it and its parent") {
  replay::ReplayInput crossed = parentAndChild(2);
  CHECK(childRun(crossed) == Approx(300));  // where it was observed: as observed
  pinChildTo(crossed, 1);
  CHECK(childRun(crossed) == Approx(200));  // in its parent's zone: no fetch across zones
  pinChildTo(crossed, 0);
  CHECK(childRun(crossed) == Approx(200));  // on its parent's node alike

  replay::ReplayInput in_zone = parentAndChild(1);
  CHECK(childRun(in_zone) == Approx(300));
  pinChildTo(in_zone, 2);
  CHECK(childRun(in_zone) == Approx(400));  // moved across zones: it pays the crossing

  replay::ReplayInput unknown = parentAndChild(2, false);
  pinChildTo(unknown, 1);
  CHECK(childRun(unknown) == Approx(300));  // no zones known: the run time stays as observed
}

TEST_CASE("priced hand-offs charge each parent on another node by zone, in place of a crossing") {
  // 2 GB from the parent at 20 s/GB within a zone and 90 s/GB across: observed on b1, the child's
  // 300 s include 180 s of fetching across zones.
  replay::ReplayInput in = parentAndChild(2);
  in.pods[1].cross_zone_seconds = 1000;  // unused once priced
  in.pods[1].bytes_per_parent = 2e9;
  in.pods[1].prices = {20e-9, 90e-9};
  in.pods[1].observed_transfer_seconds = 180;
  CHECK(childRun(in) == Approx(300));
  pinChildTo(in, 1);
  CHECK(childRun(in) == Approx(160));  // another node of the parent's zone: 40 s
  pinChildTo(in, 0);
  CHECK(childRun(in) == Approx(120));  // the parent's own node: nothing crosses the network
}

TEST_CASE("a pod a change gave affinity terms leaves its observed node only for a better one") {
  // The observed node n1 fits; a sibling of the same run is bound on n2.
  replay::ReplayInput in;
  in.window_end = 1000;
  in.nodes = {replayNode("n1", 8, 16), replayNode("n2", 8, 16)};
  auto sibling = replayPod("sibling", 1, 1, 0, 500);
  sibling.labels.set("run", "r1");
  sibling.observed_node = 1;
  auto pod = replayPod("pod", 1, 1, 10, 50);
  pod.observed_node = 0;
  in.pods = {sibling, pod};
  CHECK(replayOk(in).pods[1].node == 0u);

  const auto withTerm = [&](const std::string& run) {
    replay::ReplayInput changed = in;
    changed.pods[1].preferred_pod_affinity.push_back(
        {50, false, replay::LabelSelector::equals({{"run", run}}), "kubernetes.io/hostname"});
    return replayOk(changed).pods[1].node;
  };
  CHECK(withTerm("r1") == 1u);  // the term ranks the sibling's node above the observed one
  CHECK(withTerm("r2") == 0u);  // a term matching nothing ranks no node above it: it stays
}
