#include "app/heap.h"

#include <catch2/catch.hpp>

namespace dagadvisor::app {
namespace {

report::AnalysisReport readBy(const char* read) {
  report::AnalysisReport report;
  report.query_costs.push_back({});
  report.query_costs.back().read = read;
  return report;
}

TEST_CASE("the heap is kept after a window read and given back after any other cycle",
          "[app][heap]") {
  const report::AnalysisReport window = readBy("window");
  CHECK(keepsHeapAfter(&window));
  const report::AnalysisReport full = readBy("full");
  CHECK_FALSE(keepsHeapAfter(&full));
  CHECK_FALSE(keepsHeapAfter(nullptr));  // a failed cycle: it may have read a full answer
  const report::AnalysisReport unread;   // a reader that reports no query costs (a snapshot)
  CHECK_FALSE(keepsHeapAfter(&unread));
}

}  // namespace
}  // namespace dagadvisor::app
