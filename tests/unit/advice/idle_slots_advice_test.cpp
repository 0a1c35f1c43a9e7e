#include <catch2/catch.hpp>

#include "advice/recommender.h"
#include "analysis/detectors/idle_slots.h"

using namespace dagadvisor;

namespace {

analysis::Finding idleFinding(const std::string& run, std::optional<graph::WhatIfReading> whatif) {
  analysis::IdleSlotsEvidence evidence;
  evidence.scope = {"etl", "daily", run, {}, {}};
  evidence.ready_tasks.push_back({"load", "etl", run + "-load", 600, {1000, 1 << 30, 0}, {"n1"}});
  evidence.lost_slot_seconds = 600;
  evidence.makespan_seconds = 3000;  // elapsed: the run is unfinished
  evidence.whatif_makespan_seconds = 1200;
  evidence.whatif = whatif;
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = analysis::Severity::kWarning;
  f.target = "run/etl/daily/" + run;
  f.impact = 600;
  return f;
}

std::string impactOf(const analysis::Finding& f) {
  const auto recs = advice::recommend({f}, config::Config{});
  REQUIRE(recs.size() == 1);
  return recs.front().impact;
}

}  // namespace

TEST_CASE("idle-slots claims a what-if gain only where the reading is one") {
  // An estimate of the whole unfinished run is not a gain, whatever elapsed − what-if says.
  const std::string estimate =
      impactOf(idleFinding("r1", graph::WhatIfReading{graph::WhatIfVerdict::kEstimate, 0}));
  CHECK(estimate.find("saves") == std::string::npos);
  CHECK(impactOf(idleFinding("r2", std::nullopt)).find("saves") == std::string::npos);
  const std::string gain =
      impactOf(idleFinding("r3", graph::WhatIfReading{graph::WhatIfVerdict::kEstimatedGain, 900}));
  CHECK(gain.find("saves at least 15 min") != std::string::npos);
}
