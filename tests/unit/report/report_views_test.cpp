#include <catch2/catch.hpp>
#include <regex>
#include <string>

#include "report/gantt_svg.h"
#include "report/graph_svg.h"
#include "report/report_dot.h"
#include "report/report_json.h"
#include "unit/report/sample_report.h"

using nlohmann::json;
namespace report = dagadvisor::report;
namespace t = dagadvisor::testing;

namespace {

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) {
    ++n;
  }
  return n;
}

// The DOT line that declares `id` (its node statement), or "".
std::string dotNodeLine(const std::string& dot, const std::string& id) {
  const std::string start = "  \"" + id + "\" [";
  const auto pos = dot.find(start);
  return pos == std::string::npos ? "" : dot.substr(pos, dot.find('\n', pos) - pos);
}

}  // namespace

TEST_CASE("run detail JSON has task rows, edges, wait share and the what-if") {
  const auto r = t::sampleReport();
  const json run = report::runDetailJson(r->runs[0]);
  CHECK(run.at("wait_share") == 0.25);
  CHECK(run.at("whatif_makespan_seconds") == Approx(480));
  REQUIRE(run.at("tasks_detail").size() == 4);
  const json& transform = run.at("tasks_detail")[1];
  CHECK(transform.at("id") == "transform");
  CHECK(transform.at("node") == "cpu-1");
  CHECK(transform.at("queue_seconds") == 40);
  CHECK(transform.at("on_critical_path") == true);
  CHECK(transform.at("started") == "2026-11-28T08:45:50Z");
  CHECK(run.at("tasks_detail")[3].at("slack_seconds") == 120);
  REQUIRE(run.at("edges_detail").size() == 3);
  CHECK(run.at("edges_detail")[2] ==
        json{{"parent", "extract"}, {"child", "notify"}, {"inferred", true}});
  // The list view stays small: no task rows there.
  CHECK_FALSE(report::runJson(r->runs[0]).contains("tasks_detail"));
}

TEST_CASE("a missing what-if is null, not zero") {
  auto r = t::sampleReport();
  r->runs[0].whatif_makespan_seconds.reset();
  CHECK(report::runJson(r->runs[0]).at("whatif_makespan_seconds").is_null());
}

TEST_CASE("runs are found by full id or by an unambiguous run name") {
  auto r = t::sampleReport();
  CHECK(report::findRun(*r, "etl/daily/r2") == &r->runs[2]);
  CHECK(report::findRun(*r, "2026-11-28") == &r->runs[1]);
  CHECK(report::findRun(*r, "nope") == nullptr);
  r->runs[2].run = "r1";  // now "r1" names two runs
  CHECK(report::findRun(*r, "r1") == nullptr);
  CHECK(report::findRun(*r, "etl/daily/r1") == &r->runs[0]);
}

TEST_CASE("nodes JSON gives allocation per resource, pool and the stranded share") {
  const json nodes = report::nodesJson(*t::sampleReport());
  REQUIRE(nodes.size() == 2);
  CHECK(nodes[0].at("name") == "cpu-1");
  CHECK(nodes[0].at("pool") == "cpu");
  CHECK(nodes[0].at("allocatable").at("cpu_cores") == 16.0);
  CHECK(nodes[0].at("requested").at("memory_bytes") == (20LL << 30));
  CHECK(nodes[0].at("stranded_share") == 0.6875);
  CHECK(nodes[0].at("stranded_resource") == "memory");
  CHECK(nodes[1].at("allocatable").at("gpus") == 8);
}

TEST_CASE("scheduling JSON has quantiles by profile (null when unknown) and queues") {
  const json s = report::schedulingJson(*t::sampleReport());
  CHECK(s.at("present") == true);
  REQUIRE(s.at("latency").size() == 2);
  CHECK(s.at("latency")[0].at("profile") == "default-scheduler");
  CHECK(s.at("latency")[0].at("p99_seconds") == 1.5);
  CHECK(s.at("latency")[1].at("p95_seconds").is_null());
  CHECK(s.at("pending_by_queue").at("unschedulable") == 5);
}

TEST_CASE("DOT: the critical path is red, waits colour the fill, edges are kept") {
  const auto r = t::sampleReport();
  const std::string dot = report::renderDot(r->runs[0]);
  CHECK(dot.rfind("digraph \"etl/daily/r1\" {", 0) == 0);
  CHECK(dotNodeLine(dot, "extract").find("#d62728") != std::string::npos);
  CHECK(dotNodeLine(dot, "notify").find("#d62728") == std::string::npos);
  // notify waited longest (300 s): full orange; load did not wait: white.
  CHECK(dotNodeLine(dot, "notify").find("fillcolor=\"#fd8d3c\"") != std::string::npos);
  CHECK(dotNodeLine(dot, "load").find("fillcolor=\"#ffffff\"") != std::string::npos);
  CHECK(dot.find("\"extract\" -> \"transform\" [color=\"#d62728\"") != std::string::npos);
  CHECK(dot.find("\"extract\" -> \"notify\" [style=dashed]") != std::string::npos);
  CHECK(count(dot, " -> ") == 3);
}

TEST_CASE("DOT: quotes in ids are escaped and big runs are summarised") {
  auto run = t::sampleReport()->runs[0];
  run.task_rows[3].id = "say \"hi\"";
  run.edge_rows[2].child = "say \"hi\"";
  const std::string dot = report::renderDot(run);
  CHECK(dot.find("\"say \\\"hi\\\"\" [") != std::string::npos);
  const std::string capped = report::renderDot(run, 3);
  // The three critical tasks are kept; notify is left out and counted.
  CHECK(dotNodeLine(capped, "say \\\"hi\\\"").empty());
  CHECK_FALSE(dotNodeLine(capped, "load").empty());
  CHECK(capped.find("1 more tasks not drawn") != std::string::npos);
  CHECK(count(capped, " -> ") == 2);
}

TEST_CASE("Graphviz renders the DOT as SVG, and bad DOT is an error") {
  const auto svg = report::renderGraphSvg(report::renderDot(t::sampleReport()->runs[0]));
  REQUIRE(svg.ok());
  CHECK(svg->find("<svg") != std::string::npos);
  CHECK(svg->find(">transform</text>") != std::string::npos);
  CHECK(svg->find("#d62728") != std::string::npos);
  CHECK_FALSE(report::renderGraphSvg("digraph { a -> ").ok());
}

TEST_CASE("Gantt: one row per node, bars per task, the idle gap marked") {
  const std::string svg = report::renderGanttSvg(t::sampleReport()->runs[0]);
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(count(svg, "class=\"task") == 4);
  CHECK(count(svg, "class=\"task critical\"") == 3);
  CHECK(svg.find(">cpu-1</text>") != std::string::npos);
  CHECK(svg.find(">cpu-2</text>") != std::string::npos);
  // cpu-1 is idle between extract (ends at 100 s) and transform (starts at 150 s); cpu-2 is idle
  // between notify (ends at 150 s) and load (starts at 350 s).
  CHECK(count(svg, "class=\"idle\"") == 2);
  CHECK(svg.find("<title>idle 50.0s on cpu-1</title>") != std::string::npos);
  CHECK(svg.find("<title>idle 200.0s on cpu-2</title>") != std::string::npos);
}

TEST_CASE("Gantt: unstarted tasks are skipped, names are escaped, big runs are capped") {
  auto run = t::sampleReport()->runs[0];
  run.task_rows[0].node = "<evil>";
  run.task_rows[3].started.reset();
  const std::string svg = report::renderGanttSvg(run, 2);
  CHECK(svg.find("<evil>") == std::string::npos);
  CHECK(svg.find("&lt;evil&gt;") != std::string::npos);
  CHECK(count(svg, "class=\"task") == 2);
  CHECK(svg.find("1 later tasks not drawn") != std::string::npos);
}
