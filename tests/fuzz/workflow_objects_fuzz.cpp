// The Kubernetes workflow object parsers (Argo Workflow, Tekton PipelineRun with its TaskRuns,
// KFP pipeline) on any JSON: tolerant of every shape (no exception), and what they return is
// normalised. A compressed Argo node status inflates under a small cap, so gzip bombs stay cheap.

#include <nlohmann/json.hpp>
#include <vector>

#include "model/adapters/workflow_objects.h"
#include "workflow_object_check.h"

namespace {

using namespace dagadvisor;

void checkIfParsed(const Result<model::WorkflowObject>& parsed) {
  if (parsed) {
    fuzz::checkWorkflowObject(*parsed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto object = nlohmann::json::parse(fuzz::asText(data, size), nullptr,
                                            /*allow_exceptions=*/false);
  if (object.is_discarded()) {
    return 0;
  }
  checkIfParsed(model::parseArgoWorkflow(object, /*max_inflated_bytes=*/1 << 20));
  // The same object stands in for its TaskRuns too: a TaskRun list is objects of any shape.
  std::vector<nlohmann::json> task_runs;
  if (const auto it = object.find("taskRuns"); it != object.end() && it->is_array()) {
    task_runs.assign(it->begin(), it->end());
  }
  task_runs.push_back(object);
  checkIfParsed(model::parseTektonPipelineRun(object, task_runs));
  checkIfParsed(model::parseKfpPipeline(object));
  return 0;
}
