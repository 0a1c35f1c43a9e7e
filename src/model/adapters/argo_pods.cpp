#include "model/adapters/argo_pods.h"

#include <cctype>

namespace dagadvisor::model {
namespace {

constexpr std::string_view kWorkflowLabel = "workflows.argoproj.io/workflow";
constexpr std::string_view kNodeNameAnnotation = "workflows.argoproj.io/node-name";
constexpr std::string_view kNodeIdAnnotation = "workflows.argoproj.io/node-id";
constexpr std::size_t kGenerateNameSuffix = 5;

bool isDigits(std::string_view s) {
  if (s.empty()) {
    return false;
  }
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

bool isLowerAlnum(std::string_view s) {
  for (char c : s) {
    if (!std::islower(static_cast<unsigned char>(c)) &&
        !std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string argoTaskName(std::string_view workflow, std::string_view node_name) {
  // Children of the root are `<wf>.<task>` (DAG) or `<wf>[<i>].<step>` (Steps).
  if (node_name.size() > workflow.size() && node_name.substr(0, workflow.size()) == workflow) {
    const char next = node_name[workflow.size()];
    if (next == '.' || next == '[') {
      node_name.remove_prefix(workflow.size() + (next == '.' ? 1 : 0));
    }
  }
  std::string out;
  out.reserve(node_name.size());
  for (std::size_t i = 0; i < node_name.size(); ++i) {
    if (node_name[i] == '(') {
      const std::size_t close = node_name.find(')', i);
      if (close != std::string_view::npos && isDigits(node_name.substr(i + 1, close - i - 1))) {
        i = close;  // a retry attempt: same task
        continue;
      }
    }
    out += node_name[i];
  }
  return out;
}

std::string_view argoDagName(std::string_view workflow) {
  const std::size_t dash = workflow.rfind('-');
  if (dash == std::string_view::npos || dash == 0 ||
      workflow.size() - dash - 1 != kGenerateNameSuffix ||
      !isLowerAlnum(workflow.substr(dash + 1))) {
    return workflow;
  }
  return workflow.substr(0, dash);
}

bool claimArgoPod(const Pod& pod, PodId id, const config::WorkflowLabels& /*keys*/,
                  RunAssembler& runs) {
  const auto workflow = pod.labels.get(kWorkflowLabel);
  if (!workflow || workflow->empty()) {
    return false;
  }
  const auto node_name = pod.annotations.get(kNodeNameAnnotation);
  const std::string task =
      node_name ? argoTaskName(*workflow, *node_name)
                : std::string(pod.annotations.get(kNodeIdAnnotation).value_or(pod.name));
  runs.add(pod, id,
           PodClaim{argoDagName(*workflow),
                    *workflow,
                    task,
                    pod.created.value_or(0),
                    {},
                    true,
                    {{kWorkflowLabel, *workflow}}});
  return true;
}

std::vector<std::string> argoPodAnnotations(const config::WorkflowLabels& /*keys*/) {
  return {std::string(kNodeNameAnnotation), std::string(kNodeIdAnnotation)};
}

}  // namespace dagadvisor::model
