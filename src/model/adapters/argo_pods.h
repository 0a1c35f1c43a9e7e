#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "model/adapters/run_assembler.h"
#include "model/cluster.h"

namespace dagadvisor::model {

/// The task an Argo node belongs to, from its full node name: the workflow prefix is dropped and
/// retry attempts `(n)` fold into their task, so `wf.B(0)` → `B` and `wf.sub-dag1.fail(1)` →
/// `sub-dag1.fail` (nested DAGs keep their path). Expansions `(i:item)` stay distinct tasks.
std::string argoTaskName(std::string_view workflow, std::string_view node_name);

/// An Argo workflow name without the 5-character suffix `generateName` adds (`report-x7k2p` →
/// `report`): the DAG several runs share. Names without such a suffix are returned unchanged.
std::string_view argoDagName(std::string_view workflow);

/// Claims a pod of Argo Workflows: label `workflows.argoproj.io/workflow` names the run, the
/// annotation `workflows.argoproj.io/node-name` the task (node-id, then the pod name, when the
/// name is not exported). Retries become attempts. Edges are not on the pods. Returns false for
/// any other pod.
bool claimArgoPod(const Pod& pod, PodId id, const config::WorkflowLabels& keys, RunAssembler& runs);
/// The pod annotations claimArgoPod reads.
std::vector<std::string> argoPodAnnotations(const config::WorkflowLabels& keys);

}  // namespace dagadvisor::model
