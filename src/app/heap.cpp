#include "app/heap.h"

#include <malloc.h>

namespace dagadvisor::app {

void useOneHeapArena() {
  mallopt(M_ARENA_MAX, 1);
}

void releaseHeapAfter(const report::AnalysisReport* report) {
  const bool window_read = report != nullptr && !report->query_costs.empty() &&
                           report->query_costs.front().read == "window";
  if (!window_read) {
    malloc_trim(0);
  }
}

}  // namespace dagadvisor::app
