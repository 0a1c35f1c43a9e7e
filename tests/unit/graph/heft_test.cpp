#include "graph/heft.h"

#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "graph/plan_file.h"
#include "graph/transfer_cost.h"
#include "support/test_support.h"

using dagadvisor::graph::CompiledPlan;
using dagadvisor::graph::compilePlan;
using dagadvisor::graph::edgeIndex;
using dagadvisor::graph::findIdleSlot;
using dagadvisor::graph::HeftProblem;
using dagadvisor::graph::HeftSchedule;
using dagadvisor::graph::Interval;
using dagadvisor::graph::kNoEdge;
using dagadvisor::graph::Plan;
using dagadvisor::graph::scheduleHeft;
using dagadvisor::graph::TaskGraph;
using dagadvisor::graph::TransferCost;
using dagadvisor::model::Edge;
using dagadvisor::model::TaskIndex;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The fixture through a bare-bones decoder: the command's own decoder is tested in unit_app.
CompiledPlan loadPlanFixture(const std::string& name) {
  const auto json = nlohmann::json::parse(
      dagadvisor::testing::readFile(dagadvisor::testing::fixturePath("plans/" + name)));
  Plan plan;
  for (const auto& p : json["processors"]) {
    plan.processors.push_back(p["name"].get<std::string>());
  }
  for (const auto& t : json["tasks"]) {
    plan.tasks.push_back({t["id"].get<std::string>(), t["cost"].get<std::vector<double>>()});
  }
  for (const auto& e : json["edges"]) {
    plan.edges.push_back(
        {e["from"].get<std::string>(), e["to"].get<std::string>(), e["transfer"].get<double>()});
  }
  auto compiled = compilePlan(plan);
  REQUIRE(compiled.ok());
  return std::move(compiled).value();
}

HeftSchedule mustSchedule(const HeftProblem& problem) {
  auto schedule = scheduleHeft(problem);
  INFO((schedule.ok() ? std::string() : schedule.error().describe()));
  REQUIRE(schedule.ok());
  return std::move(schedule).value();
}

// Independent checks of any schedule: durations, precedence with transfers, no overlap, idle
// slots exactly the complement of the busy time, makespan = last finish.
void checkFeasible(const HeftProblem& problem, const HeftSchedule& s) {
  const TaskGraph& g = *problem.graph;
  const std::size_t procs = problem.processors;
  REQUIRE(s.placement.size() == g.size());
  double last = 0;
  std::vector<double> busy_time(procs, 0.0);
  for (TaskIndex t = 0; t < g.size(); ++t) {
    const auto& st = s.placement[t];
    CHECK(st.task == t);
    REQUIRE(st.processor < procs);
    CHECK(st.finish - st.start == Approx(problem.cost[t * procs + st.processor]));
    CHECK(st.start >= 0);
    for (TaskIndex parent : g.parents(t)) {
      const auto& ps = s.placement[parent];
      const double arrive =
          ps.finish + problem.transfer.cost(edgeIndex(g, parent, t), ps.processor, st.processor);
      CHECK(st.start >= arrive - 1e-9);
    }
    for (TaskIndex u = 0; u < t; ++u) {
      const auto& other = s.placement[u];
      if (other.processor == st.processor) {
        const bool apart = other.finish <= st.start + 1e-9 || st.finish <= other.start + 1e-9;
        CHECK(apart);
      }
    }
    busy_time[st.processor] += st.finish - st.start;
    last = std::max(last, st.finish);
  }
  CHECK(s.makespan == Approx(last));
  std::vector<double> idle_time(procs, 0.0);
  for (const auto& slot : s.idle_slots) {
    CHECK(slot.finish > slot.start);
    idle_time[slot.processor] += slot.finish - slot.start;
  }
  for (std::size_t p = 0; p < procs; ++p) {
    CHECK(busy_time[p] + idle_time[p] == Approx(s.makespan));
  }
}

// Upward rank straight from the paper's recursive definition, for cross-checking.
double referenceRank(const HeftProblem& problem, TaskIndex t) {
  const std::size_t procs = problem.processors;
  double w = 0;
  for (std::size_t p = 0; p < procs; ++p) {
    w += problem.cost[t * procs + p];
  }
  w /= static_cast<double>(procs);
  double tail = 0;
  for (TaskIndex c : problem.graph->children(t)) {
    double comm = 0;
    for (std::size_t a = 0; a < procs; ++a) {
      for (std::size_t b = 0; b < procs; ++b) {
        comm += problem.transfer.cost(edgeIndex(*problem.graph, t, c), a, b);
      }
    }
    comm = procs > 1 ? comm / static_cast<double>(procs * (procs - 1)) : 0.0;
    tail = std::max(tail, comm + referenceRank(problem, c));
  }
  return w + tail;
}

struct RandomProblem {
  TaskGraph graph{0, {}};
  HeftProblem problem;
};

RandomProblem randomProblem(std::mt19937& rng, std::size_t n, std::size_t procs,
                            double edge_chance) {
  RandomProblem out;
  std::vector<Edge> edges;
  std::uniform_real_distribution<double> unit(0, 1);
  for (TaskIndex a = 0; a < n; ++a) {
    for (TaskIndex b = a + 1; b < n; ++b) {
      if (unit(rng) < edge_chance) {
        edges.push_back({a, b});
      }
    }
  }
  out.graph = TaskGraph(n, edges);
  std::vector<double> cost(n * procs);
  for (double& c : cost) {
    c = std::floor(1 + unit(rng) * 20);
  }
  std::vector<double> weight(out.graph.edgeCount());
  for (double& w : weight) {
    w = std::floor(unit(rng) * 15);
  }
  out.problem =
      HeftProblem{&out.graph, procs, std::move(cost), TransferCost::uniform(weight), {}, {}};
  return out;
}

}  // namespace

TEST_CASE("findIdleSlot takes the first gap long enough after the ready time", "[heft]") {
  const std::vector<Interval> busy = {{0, 5}, {8, 10}, {20, 30}};
  CHECK(findIdleSlot({}, 7, 3) == 7);
  CHECK(findIdleSlot(busy, 0, 3) == 5);    // gap 5..8 fits exactly
  CHECK(findIdleSlot(busy, 0, 4) == 10);   // 5..8 too short, 10..20 fits
  CHECK(findIdleSlot(busy, 6, 2) == 6);    // ready inside a gap
  CHECK(findIdleSlot(busy, 6, 3) == 10);   // 6..8 too short from the ready time
  CHECK(findIdleSlot(busy, 9, 1) == 10);   // ready while busy
  CHECK(findIdleSlot(busy, 0, 11) == 30);  // nothing fits: after the last task
  CHECK(findIdleSlot(busy, 40, 5) == 40);
  CHECK(findIdleSlot(busy, 3, 0) == 5);  // a zero-length task still waits for a free moment
}

TEST_CASE("HEFT reproduces the Topcuoglu et al. 2002 example", "[heft]") {
  const CompiledPlan plan = loadPlanFixture("topcuoglu2002.json");
  const HeftProblem problem = plan.problem();
  const HeftSchedule s = mustSchedule(problem);

  // The paper's Table 2 (rank_u) and Fig. 3 (makespan 80); task i is index i-1.
  const std::vector<double> paper_rank = {108.000, 77.000, 80.000, 80.000, 69.000,
                                          63.333,  42.667, 35.667, 44.333, 14.667};
  for (std::size_t t = 0; t < paper_rank.size(); ++t) {
    INFO("task " << t + 1);
    CHECK(s.upward_rank[t] == Approx(paper_rank[t]).margin(0.001));
  }
  CHECK(s.makespan == 80);
  // Fig. 3's HEFT schedule: {processor (P1 = 0), start, finish} of tasks 1..10.
  const std::vector<std::array<double, 3>> paper_schedule = {
      {2, 0, 9},   {0, 27, 40}, {2, 9, 28},  {1, 18, 26}, {2, 28, 38},
      {1, 26, 42}, {2, 38, 49}, {0, 57, 62}, {1, 56, 68}, {1, 73, 80}};
  for (std::size_t t = 0; t < paper_schedule.size(); ++t) {
    INFO("task " << t + 1);
    CHECK(static_cast<double>(s.placement[t].processor) == paper_schedule[t][0]);
    CHECK(s.placement[t].start == paper_schedule[t][1]);
    CHECK(s.placement[t].finish == paper_schedule[t][2]);
  }
  CHECK(s.priority == std::vector<TaskIndex>{0, 2, 3, 1, 4, 5, 8, 6, 7, 9});
  CHECK(s.critical_path == std::vector<TaskIndex>{0, 1, 8, 9});
  CHECK(s.critical_path_length == Approx(108));
  checkFeasible(problem, s);
}

TEST_CASE("upward ranks match the recursive definition on random DAGs", "[heft]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t procs = 1 + rng() % 4;
    RandomProblem rp = randomProblem(rng, 1 + rng() % 10, procs, 0.3);
    const HeftSchedule s = mustSchedule(rp.problem);
    for (TaskIndex t = 0; t < rp.graph.size(); ++t) {
      CHECK(s.upward_rank[t] == Approx(referenceRank(rp.problem, t)));
    }
    double top = 0;
    for (double r : s.upward_rank) {
      top = std::max(top, r);
    }
    CHECK(s.critical_path_length == Approx(top));
  }
}

TEST_CASE("HEFT schedules are feasible on random heterogeneous problems", "[heft]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    RandomProblem rp = randomProblem(rng, 1 + rng() % 40, 1 + rng() % 5, 0.15);
    const HeftSchedule s = mustSchedule(rp.problem);
    checkFeasible(rp.problem, s);
    // Priority order is topological: every parent is scheduled before its children.
    std::vector<std::size_t> position(rp.graph.size());
    for (std::size_t i = 0; i < s.priority.size(); ++i) {
      position[s.priority[i]] = i;
    }
    for (TaskIndex t = 0; t < rp.graph.size(); ++t) {
      for (TaskIndex c : rp.graph.children(t)) {
        CHECK(position[t] < position[c]);
      }
    }
  }
}

TEST_CASE("HEFT inserts a late-ranked task into an earlier idle gap", "[heft]") {
  // x runs only on p1, y (its child) only on p0 and waits 20 for the transfer, so p0 idles
  // until 30; z (independent, lowest rank, p0 only) is placed last but fits at time 0.
  TaskGraph g(3, {{0, 1}});
  HeftProblem problem{&g, 2, {kInf, 10, 5, kInf, 3, kInf}, TransferCost::uniform({20}), {}, {}};
  const HeftSchedule s = mustSchedule(problem);
  CHECK(s.priority == std::vector<TaskIndex>{0, 1, 2});
  CHECK(s.placement[1].processor == 0);
  CHECK(s.placement[1].start == 30);
  CHECK(s.placement[2].processor == 0);
  CHECK(s.placement[2].start == 0);
  CHECK(s.makespan == 35);
  REQUIRE(s.idle_slots.size() == 2);
  CHECK(s.idle_slots[0].processor == 0);
  CHECK(s.idle_slots[0].start == 3);
  CHECK(s.idle_slots[0].finish == 30);
  CHECK(s.idle_slots[1].processor == 1);
  CHECK(s.idle_slots[1].start == 10);
  CHECK(s.idle_slots[1].finish == 35);
  checkFeasible(problem, s);
}

TEST_CASE("HEFT keeps a child on its parent's processor when the transfer costs more", "[heft]") {
  TaskGraph g(2, {{0, 1}});
  // Child is faster on p1 (4 vs 6) but the transfer (10) outweighs it.
  HeftProblem problem{&g, 2, {5, 5, 6, 4}, TransferCost::uniform({10}), {}, {}};
  const HeftSchedule s = mustSchedule(problem);
  CHECK(s.placement[0].processor == 0);  // finish-time tie: lower processor
  CHECK(s.placement[1].processor == 0);
  CHECK(s.makespan == 11);
}

TEST_CASE("HEFT breaks ties deterministically", "[heft]") {
  TaskGraph g(3, {});
  HeftProblem problem{&g, 2, {4, 4, 4, 4, 4, 4}, {}, {}, {}};
  const HeftSchedule s = mustSchedule(problem);
  CHECK(s.priority == std::vector<TaskIndex>{0, 1, 2});
  CHECK(s.placement[0].processor == 0);
  CHECK(s.placement[1].processor == 1);
  CHECK(s.placement[2].processor == 0);
  CHECK(s.placement[2].start == 4);
  CHECK(s.makespan == 8);
}

TEST_CASE("a zero-cost parent is scheduled before its equally ranked child", "[heft]") {
  // Task 2 (cost 0) is the parent of task 0: equal ranks, topological order must win.
  TaskGraph g(3, {{2, 0}, {0, 1}});
  HeftProblem problem{&g, 1, {3, 2, 0}, {}, {}, {}};
  const HeftSchedule s = mustSchedule(problem);
  CHECK(s.priority == std::vector<TaskIndex>{2, 0, 1});
  CHECK(s.critical_path == std::vector<TaskIndex>{2, 0, 1});
  CHECK(s.makespan == 5);
}

TEST_CASE("HEFT rejects malformed problems with a field", "[heft]") {
  TaskGraph g(2, {{0, 1}});
  TaskGraph cyclic(2, {{0, 1}, {1, 0}});
  auto error = [](const HeftProblem& p) {
    auto r = scheduleHeft(p);
    REQUIRE_FALSE(r.ok());
    return r.error().field;
  };
  CHECK(error({nullptr, 1, {}, {}, {}, {}}) == "graph");
  CHECK(error({&g, 0, {}, {}, {}, {}}) == "processors");
  CHECK(error({&g, 2, {1, 2, 3}, {}, {}, {}}) == "cost");
  CHECK(error({&g, 1, {1, -2}, {}, {}, {}}) == "cost[1]");
  CHECK(error({&g, 1, {1, std::nan("")}, {}, {}, {}}) == "cost[1]");
  CHECK(error({&g, 2, {1, 1, kInf, kInf}, {}, {}, {}}) == "cost");
  CHECK(error({&g, 1, {1, 1}, TransferCost::uniform({1, 2}), {}, {}}) == "transfer");
  CHECK(error({&g, 1, {1, 1}, TransferCost::between({1}, 3, {}, {}), {}, {}}) == "transfer");
  CHECK(error({&cyclic, 1, {1, 1}, {}, {}, {}}) == "graph");
  TaskGraph empty(0, {});
  auto none = scheduleHeft({&empty, 2, {}, {}, {}, {}});
  REQUIRE(none.ok());
  CHECK(none->makespan == 0);
  CHECK(none->placement.empty());
}

TEST_CASE("transfer cost models: uniform, zoned and the edge numbering", "[heft]") {
  TaskGraph g(4, {{2, 3}, {0, 2}, {0, 1}});  // edge order: 0→1, 0→2, 2→3
  CHECK(edgeIndex(g, 0, 1) == 0);
  CHECK(edgeIndex(g, 0, 2) == 1);
  CHECK(edgeIndex(g, 2, 3) == 2);
  CHECK(edgeIndex(g, 1, 3) == kNoEdge);
  CHECK(edgeIndex(g, 9, 3) == kNoEdge);

  const TransferCost none;
  CHECK(none.cost(1, 0, 1) == 0);
  CHECK(none.mean(1, 4) == 0);

  const auto uniform = TransferCost::uniform({7, 8, 9});
  CHECK(uniform.cost(1, 0, 1) == 8);
  CHECK(uniform.cost(1, 1, 1) == 0);
  CHECK(uniform.mean(2, 3) == 9);
  CHECK(uniform.mean(2, 1) == 0);

  // Zones a, a, b: ordered pairs (0,1),(1,0) cost ×1; the four cross pairs ×2 → mean ×10/6.
  const auto zoned = TransferCost::zoned({3}, {"a", "a", "b"}, 1, 2);
  CHECK(zoned.cost(0, 0, 1) == 3);
  CHECK(zoned.cost(0, 2, 0) == 6);
  CHECK(zoned.cost(0, 2, 2) == 0);
  CHECK(zoned.mean(0, 3) == Approx(5));

  const auto linear = TransferCost::between({4}, 2, {0, 0.5, 0.25, 0}, {0, 1, 3, 0});
  CHECK(linear.cost(0, 0, 1) == 3);  // 1 + 4 × 0.5
  CHECK(linear.cost(0, 1, 0) == 4);  // 3 + 4 × 0.25
  CHECK(linear.mean(0, 2) == Approx(3.5));
}

TEST_CASE("HEFT on 10,000 tasks and 16 processors (timing)", "[.][heft][perf]") {
  std::mt19937 rng(3);
  const std::size_t n = 10000;
  std::vector<Edge> edges;
  for (TaskIndex t = 1; t < n; ++t) {
    for (int k = 0; k < 3; ++k) {  // about 3 parents each among the previous 200 tasks
      const TaskIndex back = 1 + rng() % std::min<TaskIndex>(t, 200);
      edges.push_back({t - back, t});
    }
  }
  TaskGraph g(n, edges);
  std::vector<double> cost(n * 16);
  for (double& c : cost) {
    c = 1 + rng() % 100;
  }
  std::vector<double> weight(g.edgeCount());
  for (double& w : weight) {
    w = rng() % 50;
  }
  HeftProblem problem{&g, 16, std::move(cost), TransferCost::uniform(std::move(weight)), {}, {}};
  const auto begin = std::chrono::steady_clock::now();
  const HeftSchedule s = mustSchedule(problem);
  const auto ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  WARN("HEFT " << n << " tasks, " << g.edgeCount() << " edges, 16 processors: " << ms
               << " ms, makespan " << s.makespan);
  CHECK(s.makespan > 0);
}
