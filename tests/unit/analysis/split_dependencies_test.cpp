#include "analysis/detectors/split_dependencies.h"

#include <catch2/catch.hpp>

#include "run_fixture.h"

using namespace dagadvisor;
using testing::RunFixture;
using testing::TaskSpec;
using testing::zonedNode;

namespace {

// fetch → split → {align-1, align-2} → merge. align-1 is the long branch, so the critical path
// is fetch, split, align-1, merge. The nodes: a1 and a2 in zone-a, b1 in zone-b, x unzoned.
const std::vector<model::Edge> kDiamond = {{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}};

RunFixture diamond(const std::vector<std::string>& node_of_task) {
  RunFixture fx;
  fx.nodes = {zonedNode("a1", "zone-a"), zonedNode("a2", "zone-a"), zonedNode("b1", "zone-b"),
              zonedNode("x", "")};
  const double start[] = {0, 100, 200, 200, 1200};
  const double finish[] = {100, 200, 1200, 500, 1300};
  const char* ids[] = {"fetch", "split", "align-1", "align-2", "merge"};
  std::vector<TaskSpec> tasks;
  for (std::size_t i = 0; i < 5; ++i) {
    tasks.push_back({ids[i], node_of_task[i], start[i], finish[i]});
  }
  fx.addRun("science", "genome", "r1", tasks, kDiamond);
  return fx;
}

// The cases below test the edge counting; the transfer-cost floor has its own tests.
config::Config noFloor() {
  config::Config config;
  config.detectors.get<analysis::SplitDependenciesSettings>().min_run_transfer = config::Seconds(0);
  return config;
}

std::vector<analysis::Finding> detectSplitDependencies(RunFixture& fx,
                                                       const config::Config& config = noFloor()) {
  return fx.detect(analysis::SplitDependencies(), config);
}

}  // namespace

TEST_CASE("a run spread over zones is reported with its edges and transfer estimate",
          "[detector][split-dependencies]") {
  // fetch→split, split→align-2 and align-1→merge cross zones; the two others stay on a node.
  RunFixture fx = diamond({"a1", "b1", "b1", "a2", "a2"});
  const auto findings = detectSplitDependencies(fx);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "split-dependencies");
  CHECK(f.target == "run/science/genome/r1");
  // One run of the DAG: nothing to compare its run times with, so the cost is modelled only.
  CHECK(f.severity == analysis::Severity::kInfo);
  CHECK_THAT(f.summary, Catch::Contains("transfer cost unmeasured"));
  CHECK_THAT(f.summary, Catch::Contains("modelled: 90 s"));
  const auto& e = f.evidenceAs<analysis::SplitDependenciesEvidence>();
  CHECK(e.basis == analysis::TransferBasis::kModelled);
  CHECK(e.cross_zone_tasks == 3);  // split, align-2, merge
  CHECK(e.measured_tasks == 0);
  CHECK(e.measured_transfer_seconds == 0);
  // Every split parent had finished when its child was scheduled: no pod affinity reaches them.
  CHECK(e.sequential_split_edges == 3);
  CHECK(e.inferred_split_edges == 0);
  CHECK(e.scope.namespace_ == "science");
  CHECK(e.scope.dag == "genome");
  CHECK(e.scope.run == "r1");
  CHECK(e.edges == 5);
  CHECK(e.placedEdges() == 5);
  CHECK(e.same_node_edges == 2);
  CHECK(e.splitNodeEdges() == 3);
  CHECK(e.cross_zone_edges == 3);
  CHECK(e.same_zone_split_edges == 0);
  CHECK(e.split_share == Approx(0.6));
  CHECK(e.modelled_transfer_seconds == Approx(90));  // 3 × 30 s
  CHECK(e.critical_path_split_edges == 2);           // fetch→split, align-1→merge
  CHECK(e.critical_path_modelled_transfer_seconds == Approx(60));
  REQUIRE(e.split_edges.size() == 3);
  CHECK(e.split_edges[0].parent == "fetch");
  CHECK(e.split_edges[0].parent_zone == "zone-a");
  CHECK(e.split_edges[0].child_zone == "zone-b");
  CHECK(f.impact == Approx(90));
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["namespace"] == "science");
  CHECK(json["run"] == "r1");
  CHECK(json["placed_edges"] == 5);
  CHECK(json["split_node_edges"] == 3);
  CHECK(json["modelled_transfer_seconds"].get<double>() == Approx(90));
  CHECK(json["transfer_basis"] == "modelled");
  CHECK(json["sequential_split_edges"] == 3);
  CHECK(json["split_edges"][0]["modelled_transfer_seconds"].get<double>() == Approx(30));
  CHECK(json["split_edges"][0]["parent"] == "fetch");
  CHECK(json["split_edges"][0]["child_zone"] == "zone-b");
}

TEST_CASE("crossings are priced from the received bytes where the cluster priced hand-offs",
          "[detector][split-dependencies]") {
  // fetch→split, split→align-2 and align-1→merge cross zones, align-2→merge stays on a2.
  RunFixture fx = diamond({"a1", "b1", "b1", "a2", "a2"});
  const auto& diamond_run = fx.runs.front();
  fx.received[diamond_run.tasks[1].pod] = testing::fetched(2, 180, 100);  // split: 2 GB across
  fx.received[diamond_run.tasks[3].pod] = testing::fetched(1, 90, 300);   // align-2: 1 GB across
  fx.received[diamond_run.tasks[4].pod] = testing::fetched(4, 0, 100);    // merge: 2 GB a parent
  // Three more hand-offs of each kind price 20 s/GB within a zone and 90 s/GB across.
  for (int i = 0; i < 6; ++i) {
    const std::string run = "p" + std::to_string(i);
    fx.addRun("science", "copy", run,
              {{"parent", "a1", 0, 100}, {"child", i < 3 ? "a2" : "b1", 100, 1100}}, {{0, 1}});
    fx.received[fx.runs.back().tasks[1].pod] =
        i < 3 ? testing::fetched(1, 20, 1000) : testing::fetched(1, 90, 1000);
  }
  const auto findings = detectSplitDependencies(fx);
  const auto genome = std::find_if(findings.begin(), findings.end(), [](const auto& f) {
    return f.target == "run/science/genome/r1";
  });
  REQUIRE(genome != findings.end());
  const auto& e = genome->evidenceAs<analysis::SplitDependenciesEvidence>();
  CHECK(e.priced_cross_zone_edges == 3);
  // Each crossing's bytes at 90 − 20 s/GB: split's 2 GB, align-2's 1 GB, merge's 2 of its 4.
  CHECK(e.priced_crossing_seconds == Approx((2 + 1 + 2) * 70));
  CHECK_THAT(genome->summary, Catch::Contains("priced from the received bytes: 350 s more"));

  // Without enough hand-offs of a kind to price it, nothing is priced.
  RunFixture unpriced = diamond({"a1", "b1", "b1", "a2", "a2"});
  unpriced.received[unpriced.runs.front().tasks[1].pod] = testing::fetched(2, 180, 100);
  const auto plain = detectSplitDependencies(unpriced);
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].evidenceAs<analysis::SplitDependenciesEvidence>().priced_cross_zone_edges == 0);
  CHECK_THAT(plain[0].summary, !Catch::Contains("priced"));
}

TEST_CASE("the cost model comes from the configuration", "[detector][split-dependencies]") {
  RunFixture fx = diamond({"a1", "b1", "b1", "a2", "a2"});
  config::Config config = noFloor();
  config.analysis.transfer.cross_zone = config::Seconds(100);
  config.analysis.transfer.same_node = config::Seconds(1);
  const auto findings = detectSplitDependencies(fx, config);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].evidenceAs<analysis::SplitDependenciesEvidence>().modelled_transfer_seconds ==
        Approx(302));
}

TEST_CASE("a run on one node, or one that is not placed yet, stays silent",
          "[detector][split-dependencies]") {
  SECTION("every task on one node") {
    RunFixture fx = diamond({"a1", "a1", "a1", "a1", "a1"});
    CHECK(detectSplitDependencies(fx).empty());
  }
  SECTION("no task placed") {
    RunFixture fx = diamond({"", "", "", "", ""});
    CHECK(detectSplitDependencies(fx).empty());
  }
  SECTION("no runs at all") {
    RunFixture fx;
    fx.nodes = {zonedNode("a1", "zone-a")};
    CHECK(detectSplitDependencies(fx).empty());
  }
}

TEST_CASE("the split-share threshold and min_split_edges hold at their edges",
          "[detector][split-dependencies]") {
  // align-2 alone on a2, same zone: split→align-2 and align-2→merge split, 2 of 5 = 0.4.
  RunFixture fx = diamond({"a1", "a1", "a1", "a2", "a1"});
  config::Config config = noFloor();
  CHECK(detectSplitDependencies(fx, config).empty());  // 0.4 < 0.5 and no cross-zone edge
  config.detectors.get<analysis::SplitDependenciesSettings>().min_split_share = 0.4;
  const auto findings = detectSplitDependencies(fx, config);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == analysis::Severity::kInfo);  // no zone crossed
  const auto& e = findings[0].evidenceAs<analysis::SplitDependenciesEvidence>();
  CHECK(e.same_zone_split_edges == 2);
  CHECK(e.modelled_transfer_seconds == Approx(10));
  config.detectors.get<analysis::SplitDependenciesSettings>().min_split_edges = 3;
  CHECK(detectSplitDependencies(fx, config).empty());
}

TEST_CASE("enough cross-zone edges fire below the share threshold, edge included",
          "[detector][split-dependencies]") {
  RunFixture fx = diamond({"a1", "a1", "a1", "b1", "a1"});  // 2 cross-zone edges of 5
  config::Config config = noFloor();
  REQUIRE(config.detectors.get<analysis::SplitDependenciesSettings>().min_cross_zone_edges == 2);
  const auto findings = detectSplitDependencies(fx, config);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].evidenceAs<analysis::SplitDependenciesEvidence>().cross_zone_edges == 2);
  config.detectors.get<analysis::SplitDependenciesSettings>().min_cross_zone_edges = 3;
  CHECK(detectSplitDependencies(fx, config).empty());
}

TEST_CASE("partial placement: unplaced edges are left out, unknown zones are not cross-zone",
          "[detector][split-dependencies]") {
  SECTION("merge still pending: its edges are not counted") {
    RunFixture fx = diamond({"a1", "b1", "b1", "a2", ""});
    const auto findings = detectSplitDependencies(fx);
    REQUIRE(findings.size() == 1);
    const auto& e = findings[0].evidenceAs<analysis::SplitDependenciesEvidence>();
    CHECK(e.placedEdges() == 3);
    CHECK(e.unplaced_edges == 2);
    CHECK(e.split_share == Approx(2.0 / 3));
  }
  SECTION("an unzoned node and a node gone from the snapshot") {
    RunFixture fx = diamond({"x", "ghost", "ghost", "x", "x"});
    const auto findings = detectSplitDependencies(fx);
    REQUIRE(findings.size() == 1);
    const auto& e = findings[0].evidenceAs<analysis::SplitDependenciesEvidence>();
    CHECK(e.zone_unknown_edges == 3);  // ghost → ghost is one node, whatever its zone
    CHECK(e.cross_zone_edges == 0);
    CHECK(findings[0].severity == analysis::Severity::kInfo);
    CHECK(e.modelled_transfer_seconds == Approx(15));  // costed as same zone
    CHECK_FALSE(e.split_edges[0].child_zone);
    CHECK(findings[0].evidenceJson()["split_edges"][0]["child_zone"].is_null());
  }
}

TEST_CASE("a task pointing at no pod is skipped, not a crash", "[detector][split-dependencies]") {
  RunFixture fx = diamond({"a1", "b1", "b1", "a2", "a2"});
  fx.build();
  fx.runs[0].tasks[4].pod = 999;  // after build: the graph was measured, the detector reads again
  analysis::FindingSink sink;
  analysis::SplitDependencies().analyze({*fx.cluster, fx.graphs, noFloor()}, sink);
  REQUIRE(sink.findings().size() == 1);
  CHECK(sink.findings()[0].evidenceAs<analysis::SplitDependenciesEvidence>().unplaced_edges == 2);
}

TEST_CASE("the transfer-cost floor: a run is reported only from min_run_transfer on",
          "[detector][split-dependencies]") {
  RunFixture fx = diamond({"a1", "b1", "b1", "a2", "a2"});  // 3 cross-zone edges: 90 s
  config::Config config;
  REQUIRE(config.detectors.get<analysis::SplitDependenciesSettings>().min_run_transfer.count() ==
          45);
  REQUIRE(detectSplitDependencies(fx, config).size() == 1);  // over the default floor
  config.detectors.get<analysis::SplitDependenciesSettings>().min_run_transfer =
      config::Seconds(90);
  REQUIRE(detectSplitDependencies(fx, config).size() == 1);  // exactly at the floor
  config.detectors.get<analysis::SplitDependenciesSettings>().min_run_transfer =
      config::Seconds(90.5);
  CHECK(detectSplitDependencies(fx, config).empty());
  // The floor reads the cost model: dearer cross-zone hops lift the same run over it.
  config.analysis.transfer.cross_zone = config::Seconds(31);
  CHECK(detectSplitDependencies(fx, config).size() == 1);
}

TEST_CASE("a split inside one zone stays under the default floor",
          "[detector][split-dependencies]") {
  // align-2 alone on a2: two same-zone edges, 10 s in all, under the 45 s floor.
  RunFixture fx = diamond({"a1", "a1", "a1", "a2", "a1"});
  config::Config config;
  config.detectors.get<analysis::SplitDependenciesSettings>().min_split_share = 0.4;
  CHECK(detectSplitDependencies(fx, config).empty());
  config.detectors.get<analysis::SplitDependenciesSettings>().min_run_transfer =
      config::Seconds(10);
  CHECK(detectSplitDependencies(fx, config).size() == 1);
}

TEST_CASE("a run with many split edges lists the five costliest, cross-zone first",
          "[detector][split-dependencies]") {
  // root on a1 fans out to 12 children: 3 on b-nodes (cross zone), 9 on other a-nodes.
  RunFixture fx;
  fx.nodes = {zonedNode("a0", "zone-a")};
  std::vector<TaskSpec> tasks = {{"root", "a0", 0, 100}};
  std::vector<model::Edge> edges;
  for (int i = 1; i <= 12; ++i) {
    const std::string node = (i % 4 == 0 ? "b" : "a") + std::to_string(i);
    fx.nodes.push_back(zonedNode(node, i % 4 == 0 ? "zone-b" : "zone-a"));
    tasks.push_back({"child-" + std::to_string(i), node, 100, 200});
    edges.push_back({0, static_cast<model::TaskIndex>(i)});
  }
  fx.addRun("etl", "fan", "r1", tasks, edges);
  const auto findings = detectSplitDependencies(fx);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::SplitDependenciesEvidence>();
  CHECK(e.splitNodeEdges() == 12);
  CHECK(e.cross_zone_edges == 3);
  CHECK(e.modelled_transfer_seconds == Approx(3 * 30 + 9 * 5));
  REQUIRE(e.split_edges.size() == 5);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(e.split_edges[i].child_zone == "zone-b");
  }
  CHECK(e.split_edges[3].child_zone == "zone-a");
}

namespace {

// `runs` runs of fetch → {w1, w2}; fetch on a1, the workers on a2 (same zone) in even runs and
// on b1 (another zone) in odd ones. Run times differ from run to run (no ties); the cross-zone
// runs' workers take `cross_zone_extra` seconds longer.
RunFixture fanOutRuns(int runs, double cross_zone_extra) {
  RunFixture fx;
  fx.nodes = {zonedNode("a1", "zone-a"), zonedNode("a2", "zone-a"), zonedNode("b1", "zone-b")};
  for (int i = 0; i < runs; ++i) {
    const bool cross = i % 2 == 1;
    const std::string node = cross ? "b1" : "a2";
    const double extra = cross ? cross_zone_extra : 0;
    const double w1 = 500 + 3 * i + extra;
    const double w2 = 400 + 3 * i + extra;
    fx.addRun("etl", "fan", "r" + std::to_string(i),
              {{"fetch", "a1", 0, 100}, {"w1", node, 100, 100 + w1}, {"w2", node, 100, 100 + w2}},
              {{0, 1}, {0, 2}});
  }
  return fx;
}

}  // namespace

TEST_CASE("runs that span zones without any transfer slowdown get no warning",
          "[detector][split-dependencies]") {
  RunFixture fx = fanOutRuns(8, 0);
  const auto findings = detectSplitDependencies(fx, config::Config{});
  REQUIRE(findings.size() == 4);  // the odd runs: 2 cross-zone edges, 60 s modelled
  for (const analysis::Finding& f : findings) {
    CHECK(f.severity == analysis::Severity::kInfo);
    const auto& e = f.evidenceAs<analysis::SplitDependenciesEvidence>();
    CHECK(e.basis == analysis::TransferBasis::kMeasured);
    CHECK(e.measured_tasks == 2);
    CHECK(e.slowed_tasks == 0);
    CHECK(e.measured_transfer_seconds == 0);
    CHECK(e.modelled_transfer_seconds == Approx(60));
    CHECK(f.impact == Approx(60));
    REQUIRE(e.crossing_tasks.size() == 2);
    CHECK(e.crossing_tasks[0].in_zone_runs == 4);
    CHECK(e.crossing_tasks[0].cross_zone_runs == 4);
    CHECK(e.crossing_tasks[0].p_value > 0.05);
    CHECK_THAT(f.summary, Catch::Contains("measured: 0 s of slowdown"));
  }
}

TEST_CASE("a slowdown the runs show is measured, and warns with its sample sizes",
          "[detector][split-dependencies]") {
  RunFixture fx = fanOutRuns(8, 100);
  const auto findings = detectSplitDependencies(fx, config::Config{});
  REQUIRE(findings.size() == 4);
  const analysis::Finding& f = findings[0];
  CHECK(f.severity == analysis::Severity::kWarning);
  const auto& e = f.evidenceAs<analysis::SplitDependenciesEvidence>();
  CHECK(e.basis == analysis::TransferBasis::kMeasured);
  CHECK(e.slowed_tasks == 2);
  // Hodges-Lehmann: the median of the 16 differences (cross − in zone) is 103 s per worker.
  CHECK(e.measured_transfer_seconds == Approx(206));
  CHECK(f.impact == Approx(206));
  REQUIRE(e.crossing_tasks.size() == 2);
  const analysis::ListedCrossingTask& w = e.crossing_tasks[0];
  CHECK(w.in_zone_runs == 4);
  CHECK(w.cross_zone_runs == 4);
  CHECK(w.shift_seconds == Approx(103));
  CHECK(w.p_value == Approx(1.0 / 70));  // every cross-zone run longer: 1 of C(8, 4) orderings
  const auto json = f.evidenceJson();
  CHECK(json["transfer_basis"] == "measured");
  CHECK(json["measured_transfer_seconds"].get<double>() == Approx(206));
  CHECK(json["crossing_tasks"][0]["in_zone_runs"] == 4);
  CHECK_THAT(f.summary, Catch::Contains("measured: 206 s of slowdown"));
}

TEST_CASE("too few runs on one side leave the cost modelled", "[detector][split-dependencies]") {
  RunFixture fx = fanOutRuns(5, 100);  // 3 runs in zone, 2 across zones
  const auto findings = detectSplitDependencies(fx, config::Config{});
  REQUIRE(findings.size() == 2);
  for (const analysis::Finding& f : findings) {
    CHECK(f.severity == analysis::Severity::kInfo);
    CHECK(f.evidenceAs<analysis::SplitDependenciesEvidence>().basis ==
          analysis::TransferBasis::kModelled);
  }
  RunFixture more = fanOutRuns(6, 100);  // 3 a side: measured
  const auto measured = detectSplitDependencies(more, config::Config{});
  REQUIRE(measured.size() == 3);
  CHECK(measured[0].severity == analysis::Severity::kWarning);
}
