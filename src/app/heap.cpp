#include "app/heap.h"

#include <malloc.h>

namespace dagadvisor::app {

void useOneHeapArena() {
  mallopt(M_ARENA_MAX, 1);
}

bool keepsHeapAfter(const report::AnalysisReport* report) {
  return report != nullptr && !report->query_costs.empty() &&
         report->query_costs.front().read == "window";
}

void releaseHeapAfter(const report::AnalysisReport* report) {
  if (!keepsHeapAfter(report)) {
    malloc_trim(0);
  }
}

}  // namespace dagadvisor::app
