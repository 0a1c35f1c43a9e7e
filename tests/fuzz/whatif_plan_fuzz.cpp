// The what-if plan (dagadvisor whatif --plan): JSON decoding (app::parsePlanJson) then the checks
// and graph building (graph::compilePlan). Never throws; a compiled plan has one id per task and
// one cost per task and processor.

#include "app/plan_json.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const auto plan = app::parsePlanJson(fuzz::asText(data, size));
  if (!plan) {
    return 0;
  }
  const auto compiled = graph::compilePlan(*plan);
  if (compiled) {
    fuzz::check(compiled->task_ids.size() == plan->tasks.size(), "one id per task");
    fuzz::check(compiled->processor_names.size() == plan->processors.size(),
                "one name per processor");
    fuzz::check(compiled->cost.size() == plan->tasks.size() * plan->processors.size(),
                "one cost per task and processor");
  }
  return 0;
}
