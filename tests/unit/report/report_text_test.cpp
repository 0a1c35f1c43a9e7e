#include "report/report_text.h"

#include <catch2/catch.hpp>

#include "report/report_yaml.h"
#include "unit/report/sample_report.h"

namespace report = dagadvisor::report;
namespace t = dagadvisor::testing;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the text report shows the header, ranked recommendations and the patch indented") {
  report::TextOptions details;
  details.details = true;
  const std::string text = report::renderText(*t::sampleReport(), details);
  CHECK(contains(text, "prod-eu"));
  CHECK(contains(text, "prometheus http://127.0.0.1:9090"));
  CHECK(contains(text, "2026-11-28T09:00:00Z"));
  CHECK(contains(text, "12 (4 with GPUs)"));
  CHECK(contains(text, "7 pending"));
  CHECK(contains(text, "20 requested of 32"));
  CHECK(contains(text, "warning:    partial data: 3 pods without labels"));
  CHECK(contains(text, "1. [critical] Taint GPU nodes so that non-GPU pods stop holding them"));
  CHECK(contains(text, "gpu-node-hoarding-3f9a1c2b"));
  CHECK(contains(text, "impact:   frees 8 GPUs for 3 pending GPU pods (modelled)"));
  CHECK(contains(text, "evidence: free_gpus=8, pending_gpu_pods=3"));
  CHECK(contains(text, "\n     spec:\n       taints:\n         - key: nvidia.com/gpu\n"));
  CHECK(text.find("1. [critical]") < text.find("2. [warning]"));
  CHECK(text.find("2. [warning]") < text.find("3. [info]"));
}

TEST_CASE("by default each recommendation is one table row; evidence and patches come on request") {
  const std::string text = report::renderText(*t::sampleReport());
  CHECK(contains(text, "GAIN (modelled)"));
  const auto row = text.find("1  critical");
  REQUIRE(row != std::string::npos);
  const std::string line = text.substr(row, text.find('\n', row) - row);
  CHECK(contains(line, "gpu-node-hoarding-3f9a1c2b"));
  CHECK(contains(line, "cluster/prod-eu"));
  CHECK(contains(line, "frees 8 GPUs for 3 pending GPU pods"));
  CHECK(text.find("gpu-node-hoarding-3f9a1c2b") < text.find("dag-stacking-aa11"));
  CHECK_FALSE(contains(text, "taints:"));    // no patch
  CHECK_FALSE(contains(text, "evidence:"));  // no evidence
  CHECK(contains(text, "--details"));
  CHECK(contains(text, "RUNS (3)"));

  report::TextOptions one;
  one.recommendation_id = "dag-stacking-aa11";
  const std::string single = report::renderText(*t::sampleReport(), one);
  CHECK(contains(single, "2. [warning] Fix dag-stacking"));
  CHECK_FALSE(contains(single, "gpu-node-hoarding-3f9a1c2b"));
  CHECK_FALSE(contains(single, "RUNS ("));
}

TEST_CASE("a long gain is cut on one line, never inside a UTF-8 character") {
  auto r = t::sampleReport();
  // 69 + 2 bytes fit in the 71 before the ellipsis; the next "é" would be cut in two.
  r->recommendations[0].impact = std::string(69, 'x') + "ééééé more\nsecond line";
  const std::string text = report::renderText(*r);
  const auto row = text.find("1  critical");
  REQUIRE(row != std::string::npos);
  const std::string line = text.substr(row, text.find('\n', row) - row);
  CHECK(contains(line, std::string(69, 'x') + "é…"));
  CHECK_FALSE(contains(line, std::string(69, 'x') + "éé"));
  CHECK_FALSE(contains(text, "second line"));
}

TEST_CASE("detectors without data are listed as giving no advice, with the reason") {
  auto r = t::sampleReport();
  CHECK_FALSE(contains(report::renderText(*r), "NO ADVICE"));
  r->detectors.push_back({"over-request", 0.001, true, "", 0, "no usage samples"});
  const std::string text = report::renderText(*r);
  CHECK(contains(text, "NO ADVICE (1)"));
  CHECK(contains(text, "  over-request: no advice, because no usage samples\n"));
}

TEST_CASE("the runs table lists the longest runs first with their figures") {
  const std::string text = report::renderText(*t::sampleReport());
  CHECK(contains(text, "CRITICAL PATH TASKS"));
  CHECK(contains(text, "extract > transform > load"));
  const auto table = text.find("RUNS (3)");
  REQUIRE(table != std::string::npos);
  const auto ml = text.find("ml/train/2026-11-28", table);
  const auto r2 = text.find("etl/daily/r2", table);
  const auto r1 = text.find("etl/daily/r1", table);
  REQUIRE(ml != std::string::npos);
  CHECK(ml < r2);
  CHECK(r2 < r1);
  const std::string ml_line = text.substr(ml, text.find('\n', ml) - ml);
  CHECK(contains(ml_line, "2h"));
  CHECK(contains(ml_line, "1h"));
  CHECK(contains(ml_line, "50%"));

  report::TextOptions one_run;
  one_run.max_runs = 1;
  const std::string limited = report::renderText(*t::sampleReport(), one_run);
  CHECK(contains(limited, "ml/train/2026-11-28"));
  CHECK_FALSE(contains(limited, "etl/daily/r1"));
  CHECK(contains(limited, "and 2 shorter runs"));
}

TEST_CASE("an empty report renders without recommendations or runs") {
  const std::string text = report::renderText(dagadvisor::report::AnalysisReport{});
  CHECK(contains(text, "RECOMMENDATIONS (0)"));
  CHECK(contains(text, "RUNS (0)"));
}

TEST_CASE("durations read as people write them") {
  CHECK(report::humanSeconds(0.25) == "250ms");
  CHECK(report::humanSeconds(42.4) == "42s");
  CHECK(report::humanSeconds(5405) == "1h30m5s");
  CHECK(report::humanSeconds(0) == "0s");
  CHECK(report::humanSeconds(std::numeric_limits<double>::quiet_NaN()) == "-");
}

TEST_CASE("the YAML report has the JSON field names and the patch as a literal block") {
  const std::string yaml = report::renderYaml(*t::sampleReport(), t::kSampleDataTime + 2, false);
  CHECK(contains(yaml, "cluster: prod-eu"));
  CHECK(contains(yaml, "stale: false"));
  INFO(yaml);
  CHECK(contains(yaml, "data_time: \"2026-11-28T09:00:00Z\""));  // quoted: not a YAML date
  CHECK(contains(yaml, "run: \"2026-11-28\""));
  CHECK(contains(yaml, "analysis_seconds: 0.42\n"));  // shortest spelling, not 0.4199999…
  CHECK(contains(yaml, "problems: []"));
  CHECK(contains(yaml, "id: gpu-node-hoarding-3f9a1c2b"));
  CHECK(contains(yaml, "patch_yaml: |\n"));
  CHECK(contains(yaml, "  kind: Node\n"));
  CHECK(contains(yaml, "makespan_seconds: 7200"));
}

namespace {

// ml/train/2026-11-28 still running after 7200 s, its what-if an estimate for the whole run.
std::shared_ptr<report::AnalysisReport> reportWithUnfinishedRun(
    dagadvisor::graph::WhatIfReading reading) {
  auto r = t::sampleReport();
  report::RunSummary& ml = r->runs[1];
  ml.finished = false;
  ml.whatif_basis = "estimated";
  ml.whatif_makespan_seconds = 9000;
  ml.whatif_reading = reading;
  return r;
}

std::string lineOf(const std::string& text, const std::string& start) {
  const auto at = text.find(start, text.find("RUNS ("));
  REQUIRE(at != std::string::npos);
  return text.substr(at, text.find('\n', at) - at);
}

}  // namespace

TEST_CASE("the runs table marks unfinished runs and calls their time elapsed") {
  namespace g = dagadvisor::graph;
  const std::string text =
      report::renderText(*reportWithUnfinishedRun({g::WhatIfVerdict::kEstimate, 0}));
  CHECK(contains(text, "RUNS (3, 1 unfinished)"));
  const std::string ml = lineOf(text, "ml/train/2026-11-28");
  CHECK(contains(ml, "unfinished"));
  CHECK(contains(ml, "2h elapsed"));
  CHECK(contains(ml, "2h30m est. for the whole run"));
  CHECK_FALSE(contains(ml, "saves"));
  // A finished run: its makespan, and the what-if's gain (600 s → 480 s).
  const std::string r1 = lineOf(text, "etl/daily/r1");
  CHECK(contains(r1, "finished"));
  CHECK_FALSE(contains(r1, "elapsed"));
  CHECK(contains(r1, "8m, saves 2m"));
  CHECK(contains(text, "An unfinished run has no makespan yet"));
}

TEST_CASE("the runs table shows a what-if as a gain only when it is one") {
  namespace g = dagadvisor::graph;
  const auto past = reportWithUnfinishedRun({g::WhatIfVerdict::kEstimatedGain, 600});
  CHECK(contains(lineOf(report::renderText(*past), "ml/train"), "2h30m est., saves >= 10m"));
  const auto bound = reportWithUnfinishedRun({g::WhatIfVerdict::kLowerBound, 0});
  CHECK(contains(lineOf(report::renderText(*bound), "ml/train"), ">= 2h30m, no gain known"));
  auto slower = t::sampleReport();
  slower->runs[0].whatif_makespan_seconds = 700;
  slower->runs[0].whatif_reading = g::WhatIfReading{g::WhatIfVerdict::kNoGain, 0};
  CHECK(contains(lineOf(report::renderText(*slower), "etl/daily/r1"), "11m40s, no gain"));
}
