#include "engine_objects.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "builders.h"

namespace dagadvisor::sim {
namespace {

using nlohmann::json;

// Every pod of each task of one run, oldest first: a task retried after an eviction has more
// than one, all of the same TaskRun.
using PodsOfTasks = std::vector<std::vector<const Pod*>>;

// What the run's tasks have done by a moment: how many finished, and when the last did.
struct Progress {
  int completed = 0;
  double lastFinished = -kNever;
};

// RFC 3339 in UTC with whole seconds, as the API server writes a metav1.Time.
std::string kubeTime(const History& h, double t) {
  return isoTime(static_cast<std::int64_t>(std::floor(static_cast<double>(h.scenario->start) + t)),
                 TimeFormat::kKube);
}

const WorkflowSpec& pipelineOf(const History& h, const Run& r) {
  return h.scenario->workflows[static_cast<std::size_t>(r.workflow)];
}

std::vector<PodsOfTasks> podsOfRuns(const History& h) {
  std::vector<PodsOfTasks> out(h.runs.size());
  for (std::size_t i = 0; i < h.runs.size(); ++i) {
    out[i].resize(h.runs[i].taskPods.size());
  }
  for (const Pod& p : h.pods) {
    if (p.kind == PodKind::kTask && p.run >= 0 && p.task >= 0) {
      out[static_cast<std::size_t>(p.run)][static_cast<std::size_t>(p.task)].push_back(&p);
    }
  }
  return out;
}

// The resolved pipeline the controller copies into the status: one PipelineTask per task,
// referring to the Task of its name, run after its parents (no runAfter without parents).
json resolvedPipeline(const WorkflowSpec& w) {
  json tasks = json::array();
  for (const TaskSpec& t : w.tasks) {
    json task{{"name", t.id}, {"taskRef", {{"name", t.id}, {"kind", "Task"}}}};
    if (!t.parents.empty()) {
      task["runAfter"] = t.parents;
    }
    tasks.push_back(std::move(task));
  }
  return json{{"tasks", std::move(tasks)}};
}

// A TaskRun exists once the engine created the task's first pod; it is named as its pods say.
json childReferences(const WorkflowSpec& w, const PodsOfTasks& pods, double t) {
  json refs = json::array();
  for (std::size_t i = 0; i < pods.size(); ++i) {
    auto created =
        std::find_if(pods[i].begin(), pods[i].end(), [t](const Pod* p) { return p->created <= t; });
    if (created == pods[i].end()) {
      continue;
    }
    const std::string* taskRun = labelValue((*created)->labels, "tekton.dev/taskRun");
    refs.push_back(json{{"apiVersion", "tekton.dev/v1"},
                        {"kind", "TaskRun"},
                        {"name", taskRun != nullptr ? *taskRun : std::string()},
                        {"pipelineTaskName", w.tasks[i].id}});
  }
  return refs;
}

Progress progressAt(const PodsOfTasks& pods, double t) {
  Progress out;
  for (const auto& task : pods) {
    for (const Pod* p : task) {
      if (!p->evicted && p->finished <= t) {
        ++out.completed;
        out.lastFinished = std::max(out.lastFinished, p->finished);
      }
    }
  }
  return out;
}

// The Succeeded condition, worded as the Tekton controller words it. Its lastTransitionTime
// moves whenever the message does: at the start, then at each task that finishes.
json succeededCondition(const History& h, const Run& r, const Progress& progress, double t) {
  const int tasks = static_cast<int>(pipelineOf(h, r).tasks.size());
  const std::string done =
      "Tasks Completed: " + std::to_string(progress.completed) + " (Failed: 0, Cancelled 0), ";
  if (r.finished <= t) {
    return json{{"type", "Succeeded"},
                {"status", "True"},
                {"reason", "Succeeded"},
                {"lastTransitionTime", kubeTime(h, r.finished)},
                {"message", done + "Skipped: 0"}};
  }
  return json{{"type", "Succeeded"},
              {"status", "Unknown"},
              {"reason", "Running"},
              {"lastTransitionTime", kubeTime(h, std::max(r.arrival, progress.lastFinished))},
              {"message", done + "Incomplete: " + std::to_string(tasks - progress.completed) +
                              ", Skipped: 0"}};
}

json pipelineRunStatus(const History& h, const Run& r, const PodsOfTasks& pods, double t) {
  const WorkflowSpec& w = pipelineOf(h, r);
  json status{{"pipelineSpec", resolvedPipeline(w)},
              {"startTime", kubeTime(h, r.arrival)},
              {"conditions", json::array({succeededCondition(h, r, progressAt(pods, t), t)})}};
  if (r.finished <= t) {
    status["completionTime"] = kubeTime(h, r.finished);
  }
  json refs = childReferences(w, pods, t);
  if (!refs.empty()) {  // omitempty
    status["childReferences"] = std::move(refs);
  }
  return status;
}

// A run started from its Pipeline, as a trigger creates it.
json pipelineRun(const History& h, const Run& r, const PodsOfTasks& pods, double t) {
  const WorkflowSpec& w = pipelineOf(h, r);
  return json{{"apiVersion", "tekton.dev/v1"},
              {"kind", "PipelineRun"},
              {"metadata",
               {{"name", r.name},
                {"namespace", r.ns},
                {"uid", pipelineRunUid(*h.scenario, r)},
                {"creationTimestamp", kubeTime(h, r.arrival)},
                {"labels", {{"tekton.dev/pipeline", w.name}}}}},
              {"spec",
               {{"pipelineRef", {{"name", w.name}}},
                {"taskRunTemplate", {{"serviceAccountName", "default"}}}}},
              {"status", pipelineRunStatus(h, r, pods, t)}};
}

}  // namespace

double writtenWindowEnd(const History& h) {
  const double windowEnd = h.scenario->output.windowEnd;
  return windowEnd < 0 ? h.end : std::min(windowEnd, h.end);
}

json pipelineRunList(const History& h, double t) {
  const std::vector<PodsOfTasks> pods = podsOfRuns(h);
  std::vector<std::size_t> runs;
  for (std::size_t i = 0; i < h.runs.size(); ++i) {
    if (h.runs[i].engine == Engine::kTekton && h.runs[i].arrival <= t) {
      runs.push_back(i);
    }
  }
  std::sort(runs.begin(), runs.end(), [&h](std::size_t a, std::size_t b) {
    return std::tie(h.runs[a].ns, h.runs[a].name) < std::tie(h.runs[b].ns, h.runs[b].name);
  });
  json items = json::array();
  for (std::size_t i : runs) {
    items.push_back(pipelineRun(h, h.runs[i], pods[i], t));
  }
  return json{{"apiVersion", "v1"},
              {"kind", "List"},
              {"metadata", {{"resourceVersion", ""}}},
              {"items", std::move(items)}};
}

json pipelineRunList(const History& h) {
  return pipelineRunList(h, writtenWindowEnd(h));
}

}  // namespace dagadvisor::sim
