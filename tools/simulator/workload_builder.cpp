#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "builders.h"
#include "rng.h"

namespace dagadvisor::sim {
namespace {

std::string dependencies(const TaskSpec& task) {
  std::string out;
  for (const auto& p : task.parents) {
    out += (out.empty() ? "" : ",") + p;
  }
  return out;
}

// Airflow's make_safe_label_value drops characters a label value cannot hold and then, because
// the value changed, appends a short hash of the original.
std::string airflowSafeLabel(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') {
      out += c;
    }
  }
  if (out != value) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "-%09llx",
                  static_cast<unsigned long long>(hashText(value) & 0xfffffffffULL));
    out = out.substr(0, 52) + buf;
  }
  return out;
}

void seedLabels(Pod& p, const Run& run, const WorkflowSpec& w, const TaskSpec& t) {
  p.name = w.name + "-" + t.id + "-" + nameSuffix(hashText(p.uid), 5);
  std::replace(p.name.begin(), p.name.end(), '_', '-');
  p.labels = {{"dag-id", w.name}, {"dag-run", run.name}, {"task-id", t.id}};
  p.annotations = {{"workflow.dependencies", dependencies(t)}};
}

// Argo names (a WorkflowTemplate, a step's template) cannot hold '_'.
std::string argoTemplateName(std::string name) {
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

std::string argoTemplateName(const TaskSpec& t) {
  return argoTemplateName(t.id);
}

void argoLabels(Pod& p, const Run& run, const TaskSpec& t, std::uint64_t key) {
  std::string nodeId = run.name + "-" + std::to_string(1000000000 + key % 3000000000ULL);
  const std::string templ = argoTemplateName(t);
  p.name = run.name + "-" + templ + "-" + std::to_string(1000000000 + key % 3000000000ULL);
  p.container = "main";
  p.ownerKind = "Workflow";
  p.ownerName = run.name;
  p.labels = {{"workflows.argoproj.io/workflow", run.name},
              {"workflows.argoproj.io/completed", "false"}};
  p.annotations = {{"workflows.argoproj.io/node-name", run.name + "." + t.id},
                   {"workflows.argoproj.io/node-id", nodeId}};
}

void airflowLabels(Pod& p, const Run& run, const WorkflowSpec& w, const TaskSpec& t,
                   const Scenario& s) {
  std::string rawRunId =
      "scheduled__" + isoTime(s.start + static_cast<std::int64_t>(run.arrival), TimeFormat::kIso);
  std::string safeDag = w.name;
  std::replace(safeDag.begin(), safeDag.end(), '_', '-');
  std::string safeTask = t.id;
  std::replace(safeTask.begin(), safeTask.end(), '_', '-');
  p.name = safeDag + "-" + safeTask + "-" + nameSuffix(hashText(p.uid), 8);
  p.container = "base";
  p.labels = {
      {"dag_id", w.name},          {"task_id", t.id},       {"run_id", airflowSafeLabel(rawRunId)},
      {"try_number", "1"},         {"airflow-worker", "5"}, {"kubernetes_executor", "True"},
      {"airflow_version", "2.9.3"}};
  p.annotations = {
      {"dag_id", w.name}, {"task_id", t.id}, {"run_id", rawRunId}, {"try_number", "1"}};
}

void tektonLabels(Pod& p, const Run& run, const WorkflowSpec& w, const TaskSpec& t,
                  const Scenario& s) {
  std::string task = t.id;
  std::replace(task.begin(), task.end(), '_', '-');
  std::string taskRun = run.name + "-" + task;
  p.name = taskRun + "-pod";
  p.container = "step-run";
  p.ownerKind = "TaskRun";
  p.ownerName = taskRun;
  p.labels = {{"tekton.dev/pipelineRun", run.name},
              {"tekton.dev/pipelineRunUID", pipelineRunUid(s, run)},
              {"tekton.dev/pipelineTask", t.id},
              {"tekton.dev/pipeline", w.name},
              {"tekton.dev/taskRun", taskRun},
              {"tekton.dev/memberOf", "tasks"},
              {"app.kubernetes.io/managed-by", "tekton-pipelines"}};
  p.annotations = {{"pipeline.tekton.dev/release", "v0.59.0"}};
}

// The run id as the engine names it; seed and Airflow ids carry the arrival time.
std::string runName(const WorkflowSpec& w, int index, std::uint64_t key, std::int64_t arrival) {
  std::string base = w.name;
  std::replace(base.begin(), base.end(), '_', '-');
  switch (w.engine) {
    case Engine::kSeed:
      return "run-" + isoTime(arrival, TimeFormat::kCompact) + "-" + std::to_string(index);
    case Engine::kArgo:
      return base + "-" + nameSuffix(key, 5);
    case Engine::kAirflow:
      return "scheduled__" + isoTime(arrival, TimeFormat::kIso);
    case Engine::kTekton:
      return base + "-run-" + nameSuffix(key, 5);
  }
  return base;
}

}  // namespace

std::string isoTime(std::int64_t unixSeconds, TimeFormat format) {
  std::time_t t = static_cast<std::time_t>(unixSeconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  switch (format) {  // literal patterns, so the compiler checks them
    case TimeFormat::kIso:
      std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
      break;
    case TimeFormat::kKube:
      std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
      break;
    case TimeFormat::kCompact:
      std::strftime(buf, sizeof buf, "%Y%m%d-%H%M", &tm);
      break;
  }
  return buf;
}

std::string pipelineRunUid(const Scenario& s, const Run& run) {
  return makeUid(run.identity ^ s.seed);
}

Run makeRun(const Scenario& s, int workflow, int index, double arrival) {
  const WorkflowSpec& w = s.workflows[static_cast<std::size_t>(workflow)];
  Run r;
  r.workflow = workflow;
  r.index = index;
  r.ns = w.ns;
  r.engine = w.engine;
  r.arrival = arrival;
  std::uint64_t key =
      hashKeys(s.seed, 31, static_cast<std::uint64_t>(workflow), static_cast<std::uint64_t>(index));
  const auto offset = static_cast<std::int64_t>(arrival);
  r.name = runName(w, index, key, s.start + offset);
  // Hashed from the name the run has at the declared start: `serve` moves t = 0 to now, and a
  // uid that followed the wall clock would change every pod's draws, so the live story would
  // differ from the generated one (and from minute to minute).
  r.identity = hashText(runName(w, index, key, s.declaredStart + offset));
  r.taskPods.assign(w.tasks.size(), -1);
  r.parentsLeft.assign(w.tasks.size(), 0);
  Rng rng(key);
  for (std::size_t i = 0; i < w.tasks.size(); ++i) {
    r.parentsLeft[i] = static_cast<int>(w.tasks[i].parents.size());
    r.baseRuntime.push_back(rng.logNormal(w.tasks[i].runtime.median, w.tasks[i].runtime.sigma));
  }
  return r;
}

std::vector<Run> arrivingRuns(const Scenario& s) {
  std::vector<Run> runs;
  for (std::size_t w = 0; w < s.workflows.size(); ++w) {
    const Arrival& a = s.workflows[w].arrival;
    for (int i = 0; i < a.count; ++i) {
      double at = a.first + a.every * i;
      if (at > s.duration) {
        break;
      }
      runs.push_back(makeRun(s, static_cast<int>(w), i, at));
    }
  }
  return runs;
}

TaskPod engineTaskPod(const Scenario& s, const Run& run, int task, double created,
                      AdviceApplier& advice) {
  const WorkflowSpec& w = s.workflows[static_cast<std::size_t>(run.workflow)];
  const TaskSpec& t = w.tasks[static_cast<std::size_t>(task)];
  Pod p;
  p.kind = PodKind::kTask;
  p.ns = w.ns;
  p.uid = makeUid(hashKeys(s.seed, 41, run.identity ^ static_cast<std::uint64_t>(run.workflow),
                           static_cast<std::uint64_t>(task)));
  p.container = "task";
  p.request = t.request;
  p.request.pods = 1;
  p.cpuUtil = t.cpuUtil;
  p.gpuUtil = t.request.gpu > 0 ? t.gpuUtil : 0;
  p.created = created;
  std::uint64_t key = hashText(p.uid);
  switch (w.engine) {
    case Engine::kSeed:
      seedLabels(p, run, w, t);
      break;
    case Engine::kArgo:
      argoLabels(p, run, t, key);
      break;
    case Engine::kAirflow:
      airflowLabels(p, run, w, t, s);
      break;
    case Engine::kTekton:
      tektonLabels(p, run, w, t, s);
      break;
  }
  // The engine creates the pod from the task's spec; the advice that selects it changes it as
  // it is created.
  nlohmann::json object = podObject(p, t.scheduling);
  object["spec"]["restartPolicy"] = "Never";  // every engine's: a failed task is the engine's
  if (w.engine == Engine::kArgo) {  // submitted from a WorkflowTemplate named after the DAG
    std::vector<std::string> steps;
    for (const TaskSpec& step : w.tasks) {
      steps.push_back(argoTemplateName(step));
    }
    advice.applyArgoWorkflow(object, w.ns, argoTemplateName(w.name), run.name, steps,
                             argoTemplateName(t));
  }
  advice.patchTaskPod(object);
  return TaskPod{std::move(p), std::move(object)};
}

Pod makeTaskPod(const Scenario& s, const Run& run, int task, double created, AdviceApplier& advice,
                const std::vector<PriorityClassSpec>& classes) {
  TaskPod made = engineTaskPod(s, run, task, created, advice);
  admitPodSpec(made.object["spec"], false);  // admission adds its default tolerations
  readPodObject(made.object, classes, made.pod);
  return std::move(made.pod);
}

std::vector<double> upwardRanks(const WorkflowSpec& w) {
  std::vector<double> rank(w.tasks.size(), -1);
  // Children of each task, found once, so the ranks can be computed bottom-up.
  std::vector<std::vector<std::size_t>> children(w.tasks.size());
  for (std::size_t i = 0; i < w.tasks.size(); ++i) {
    for (const auto& parent : w.tasks[i].parents) {
      for (std::size_t j = 0; j < w.tasks.size(); ++j) {
        if (w.tasks[j].id == parent) {
          children[j].push_back(i);
        }
      }
    }
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::size_t i = 0; i < w.tasks.size(); ++i) {
      double below = 0;
      bool ready = true;
      for (auto c : children[i]) {
        ready = ready && rank[c] >= 0;
        below = std::max(below, rank[c]);
      }
      if (ready && rank[i] < 0) {
        rank[i] = w.tasks[i].runtime.median + below;
        changed = true;
      }
    }
  }
  return rank;
}

std::vector<bool> staticCriticalPath(const WorkflowSpec& w, const std::vector<double>& ranks) {
  std::vector<bool> on(w.tasks.size(), false);
  std::size_t best = w.tasks.size();
  for (std::size_t i = 0; i < w.tasks.size(); ++i) {
    if (w.tasks[i].parents.empty() && (best == w.tasks.size() || ranks[i] > ranks[best])) {
      best = i;
    }
  }
  if (best == w.tasks.size()) {
    return on;
  }
  // Walk down: each step goes to the child whose rank continues the longest chain.
  std::size_t current = best;
  while (true) {
    on[current] = true;
    double want = ranks[current] - w.tasks[current].runtime.median;
    std::size_t next = w.tasks.size();
    for (std::size_t i = 0; i < w.tasks.size(); ++i) {
      for (const auto& p : w.tasks[i].parents) {
        if (p == w.tasks[current].id && std::abs(ranks[i] - want) < 1e-6) {
          next = i;
        }
      }
    }
    if (next == w.tasks.size()) {
      return on;
    }
    current = next;
  }
}

}  // namespace dagadvisor::sim
