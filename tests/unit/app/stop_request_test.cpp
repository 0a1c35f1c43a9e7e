#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "app/analysis_cycle.h"
#include "app/setup.h"
#include "common/cancellation.h"
#include "support/test_support.h"

namespace app = dagadvisor::app;
namespace ingestion = dagadvisor::ingestion;

namespace {

const std::string kStopTestScenario =
    std::string(DAGADVISOR_SOURCE_DIR) + "/config/scenarios/default";

// A reader whose read is followed by a stop request, as a SIGTERM during the fetch would be.
class StopAfterRead : public ingestion::ClusterReader {
 public:
  explicit StopAfterRead(ingestion::ClusterReader& inner) : inner_(inner) {}
  dagadvisor::Result<dagadvisor::model::ClusterSnapshot> read(
      dagadvisor::UnixSeconds at, ingestion::FetchStats& stats) override {
    auto snapshot = inner_.read(at, stats);
    dagadvisor::Cancellation::process()->cancel("the test stops the process");
    return snapshot;
  }
  std::string describe() const override { return inner_.describe(); }
  dagadvisor::sources::MetricsSource& recordedAnswers() override {
    return inner_.recordedAnswers();
  }
  void recordInto(dagadvisor::sources::SnapshotWriter& writer) override {
    inner_.recordInto(writer);
  }

 private:
  ingestion::ClusterReader& inner_;
};

// Runs `child` in a forked process, whose stop request cannot reach the tests after this one,
// and returns its exit code.
int exitCodeOf(const std::function<int()>& child) {
  const pid_t pid = fork();
  if (pid == 0) {
    _exit(child());
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}

// 0: the cycle ended with the stop's error; 1: it published a report; 2: another error.
int cycleStoppedDuringTheFetch() {
  dagadvisor::config::Config config;
  config.sources.snapshot_dir = kStopTestScenario;
  auto setup = app::openSource(config);
  if (!setup.ok() || !setup->recorded_at) {
    return 3;
  }
  StopAfterRead reader(*setup->reader);
  dagadvisor::ManualClock clock(*setup->recorded_at);
  auto report = app::runAnalysisCycle(reader, config, *setup->recorded_at, clock, nullptr);
  if (report.ok()) {
    return 1;
  }
  return report.error().describe().find("stopped: the test stops the process") != std::string::npos
             ? 0
             : 2;
}

}  // namespace

TEST_CASE(
    "a stop requested during the fetch ends the cycle with the stop, not a published analysis") {
  CHECK(exitCodeOf(cycleStoppedDuringTheFetch) == 0);
}
