#include "report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "exposition.h"
#include "scheduler.h"

namespace dagadvisor::sim {
namespace {

using nlohmann::json;

// All times in the documents are whole unix seconds, exactly as the series carry them.
std::int64_t unixAt(const History& h, double t) {
  return static_cast<std::int64_t>(std::floor(static_cast<double>(h.scenario->start) + t));
}

json optionalTime(const History& h, double t) {
  return t == kNever ? json(nullptr) : json(unixAt(h, t));
}

const WorkflowSpec& workflowOf(const History& h, const Run& r) {
  return h.scenario->workflows[static_cast<std::size_t>(r.workflow)];
}

// A run's identity across two histories: seed-convention and Airflow run ids carry only the
// arrival time, so two DAGs arriving together have runs of the same name.
std::string runKey(const History& h, const Run& r) {
  return workflowOf(h, r).name + "/" + r.name;
}

int taskIndex(const WorkflowSpec& w, const std::string& id) {
  for (std::size_t i = 0; i < w.tasks.size(); ++i) {
    if (w.tasks[i].id == id) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

const Pod* taskPod(const History& h, const Run& r, std::size_t task) {
  int id = r.taskPods[task];
  return id < 0 ? nullptr : &h.pods[static_cast<std::size_t>(id)];
}

double observedRunSeconds(const History& h, const Pod& p) {
  return static_cast<double>(unixAt(h, p.finished) - unixAt(h, p.started));
}

bool boundAt(const Pod& p, double t) {
  return p.scheduled <= t && t < p.finished && t < p.deleted;
}

bool pendingAt(const Pod& p, double t) {
  return p.created <= t && t < p.scheduled && t < p.deleted;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  auto lo = static_cast<std::size_t>(std::floor(pos));
  std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// Node state at time t, rebuilt from the history: which pods hold what.
struct NodeAt {
  Node node;
  std::vector<const Pod*> pods;
};

std::vector<NodeAt> nodesAt(const History& h, double t) {
  std::vector<NodeAt> out;
  for (const auto& n : h.nodes) {
    NodeAt a{n, {}};
    a.node.used = Resources{};
    out.push_back(std::move(a));
  }
  for (const auto& p : h.pods) {
    if (p.node >= 0 && boundAt(p, t)) {
      NodeAt& a = out[static_cast<std::size_t>(p.node)];
      a.node.used.cpu += p.request.cpu;
      a.node.used.memory += p.request.memory;
      a.node.used.gpu += p.request.gpu;
      a.node.used.pods += 1;
      a.pods.push_back(&p);
    }
  }
  return out;
}

json podRef(const Pod& p) {
  return json{{"namespace", p.ns},
              {"pod", p.name},
              {"owner_kind", p.ownerKind.empty() ? "<none>" : p.ownerKind},
              {"owner_name", p.ownerKind.empty() ? "<none>" : p.ownerName},
              {"cpu", p.request.cpu},
              {"memory", p.request.memory},
              {"gpu", p.request.gpu}};
}

// A pending GPU pod is blocked by hoarding on a node when the node admits it, has the GPUs,
// lacks CPU or memory, and would have them without its non-GPU pods.
bool blockedByHoarding(const Pod& p, const NodeAt& a, double nonGpuCpu, double nonGpuMemory) {
  const Node& n = a.node;
  double freeCpu = n.allocatable.cpu - n.used.cpu;
  double freeMemory = n.allocatable.memory - n.used.memory;
  bool gpuFits = n.used.gpu + p.request.gpu <= n.allocatable.gpu;
  bool short_ = p.request.cpu > freeCpu + 1e-9 || p.request.memory > freeMemory + 1e-9;
  bool wouldFit = p.request.cpu <= freeCpu + nonGpuCpu + 1e-9 &&
                  p.request.memory <= freeMemory + nonGpuMemory + 1e-9;
  return podAdmits(p, n) && gpuFits && short_ && wouldFit;
}

json runDocument(const History& h, const Run& r) {
  const WorkflowSpec& w = workflowOf(h, r);
  json tasks = json::array();
  json splitEdges = json::array();
  double firstCreated = kNever;
  double lastFinished = -kNever;
  for (std::size_t i = 0; i < w.tasks.size(); ++i) {
    const Pod* p = taskPod(h, r, i);
    json t{{"id", w.tasks[i].id}, {"parents", w.tasks[i].parents}};
    if (p != nullptr) {
      firstCreated = std::min(firstCreated, p->created);
      lastFinished = std::max(lastFinished, p->finished);
      const Node* node = p->node >= 0 ? &h.nodes[static_cast<std::size_t>(p->node)] : nullptr;
      t.update(json{{"pod", p->name},
                    {"uid", p->uid},
                    {"node", node ? json(node->name) : json(nullptr)},
                    {"zone", node ? json(node->zone) : json(nullptr)},
                    {"created", optionalTime(h, p->created)},
                    {"scheduled", optionalTime(h, p->scheduled)},
                    {"started", optionalTime(h, p->started)},
                    {"finished", optionalTime(h, p->finished)},
                    {"deleted", optionalTime(h, p->deleted)},
                    {"attempts", p->attempts},
                    {"transfer_seconds", p->transferSeconds},
                    {"priority_class", p->priorityClass},
                    {"priority", p->priority}});
      for (const auto& parentId : w.tasks[i].parents) {
        const Pod* parent = taskPod(h, r, static_cast<std::size_t>(taskIndex(w, parentId)));
        if (parent == nullptr || node == nullptr || parent->node < 0 || parent->node == p->node) {
          continue;
        }
        const Node& pn = h.nodes[static_cast<std::size_t>(parent->node)];
        splitEdges.push_back(json{{"parent", parentId},
                                  {"child", w.tasks[i].id},
                                  {"parent_node", pn.name},
                                  {"child_node", node->name},
                                  {"cross_zone", pn.zone != node->zone}});
      }
    }
    tasks.push_back(std::move(t));
  }
  auto [path, length] = observedCriticalPath(h, r);
  json pathIds = json::array();
  for (int i : path) {
    pathIds.push_back(w.tasks[static_cast<std::size_t>(i)].id);
  }
  bool finished = r.finished != kNever;
  return json{{"namespace", r.ns},
              {"dag", w.name},
              {"run", r.name},
              {"engine", engineName(r.engine)},
              {"arrival", unixAt(h, r.arrival)},
              {"finished", finished ? json(unixAt(h, lastFinished)) : json(nullptr)},
              {"makespan_seconds",
               finished ? json(unixAt(h, lastFinished) - unixAt(h, firstCreated)) : json(nullptr)},
              {"critical_path", json{{"tasks", pathIds}, {"length_seconds", length}}},
              {"split_edges", splitEdges},
              {"tasks", tasks}};
}

// What Prometheus' histogram_quantile returns for these observations in kube-scheduler's SLI
// buckets: linear interpolation inside the bucket holding the rank; the +Inf bucket answers
// with the highest finite bound.
double histogramQuantile(const std::vector<double>& values, double q) {
  static const std::vector<double> kBounds = exponentialBuckets(0.01, 2, 20);
  if (values.empty()) {
    return 0;
  }
  std::vector<double> cumulative(kBounds.size(), 0);
  for (double v : values) {
    for (std::size_t b = 0; b < kBounds.size(); ++b) {
      cumulative[b] += v <= kBounds[b] ? 1 : 0;
    }
  }
  double rank = q * static_cast<double>(values.size());
  for (std::size_t b = 0; b < kBounds.size(); ++b) {
    if (cumulative[b] >= rank) {
      double lower = b == 0 ? 0 : kBounds[b - 1];
      double below = b == 0 ? 0 : cumulative[b - 1];
      return lower + (kBounds[b] - lower) * (rank - below) / (cumulative[b] - below);
    }
  }
  return kBounds.back();
}

json latencyDocument(const History& h) {
  const OutputSpec& o = h.scenario->output;
  double end = o.windowEnd < 0 ? h.end : o.windowEnd;
  std::vector<double> all;
  std::vector<double> spike;
  for (const auto& s : h.sli) {
    if (s.time < o.windowStart || s.time > end) {
      continue;
    }
    all.push_back(s.seconds);
    for (const auto& sp : h.scenario->scheduler.spikes) {
      if (s.time >= sp.at && s.time < sp.at + sp.duration + sp.extraSeconds * 2) {
        spike.push_back(s.seconds);
      }
    }
  }
  auto quantiles = [](const std::vector<double>& v) {
    return json{{"count", v.size()},
                {"p50", quantile(v, 0.5)},
                {"p90", quantile(v, 0.9)},
                {"p95", quantile(v, 0.95)},
                {"p99", quantile(v, 0.99)},
                {"histogram_p50", histogramQuantile(v, 0.5)},
                {"histogram_p95", histogramQuantile(v, 0.95)},
                {"histogram_p99", histogramQuantile(v, 0.99)}};
  };
  json spikes = json::array();
  for (const auto& sp : h.scenario->scheduler.spikes) {
    spikes.push_back(json{{"start", unixAt(h, sp.at)},
                          {"end", unixAt(h, sp.at + sp.duration)},
                          {"extra_seconds", sp.extraSeconds}});
  }
  return json{{"window", quantiles(all)}, {"during_spikes", quantiles(spike)}, {"spikes", spikes}};
}

// GPU-pod pending time (every workflow's GPU task pods, pending until bound or the end) and
// the share of the window's GPU-seconds that pods of any kind held.
// The GPUs of every node.
double clusterGpus(const History& h) {
  double gpus = 0;
  for (const auto& n : h.nodes) {
    gpus += n.allocatable.gpu;
  }
  return gpus;
}

// GPUs held within [from, to] over the cluster's GPUs, in percent: from binding to finish or
// deletion, the simulation's end at the latest.
double gpuAllocationPct(const History& h, double from, double to) {
  to = std::min(to, h.end);
  double held = 0;
  for (const auto& p : h.pods) {
    const double bound = std::max(p.scheduled, from);
    const double freed = std::min({p.finished, p.deleted, to});
    if (p.request.gpu > 0 && freed > bound) {
      held += p.request.gpu * (freed - bound);
    }
  }
  const double available = clusterGpus(h) * std::max(0.0, to - from);
  return available > 0 ? 100 * held / available : 0;
}

void gpuFigures(const History& h, Figures& f) {
  for (const auto& p : h.pods) {
    if (p.request.gpu > 0 && p.kind == PodKind::kTask) {
      f.gpuPodPendingSeconds += std::min(p.scheduled, h.end) - p.created;
      ++f.gpuPods;
    }
  }
  const OutputSpec& o = h.scenario->output;
  f.windowGpuAllocationPct =
      gpuAllocationPct(h, o.windowStart, o.windowEnd < 0 ? h.end : o.windowEnd);
}

}  // namespace

std::pair<std::vector<int>, double> observedCriticalPath(const History& h, const Run& r) {
  const WorkflowSpec& w = workflowOf(h, r);
  std::size_t n = w.tasks.size();
  std::vector<double> dist(n, -1);
  std::vector<int> prev(n, -1);
  // Relax in rounds until every finished task has its longest-path distance (the DAG is small).
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::size_t i = 0; i < n; ++i) {
      const Pod* p = taskPod(h, r, i);
      if (p == nullptr || p->finished == kNever || dist[i] >= 0) {
        continue;
      }
      double best = 0;
      int from = -1;
      bool ready = true;
      for (const auto& parentId : w.tasks[i].parents) {
        auto pi = static_cast<std::size_t>(taskIndex(w, parentId));
        ready = ready && dist[pi] >= 0;
        if (dist[pi] > best) {
          best = dist[pi];
          from = static_cast<int>(pi);
        }
      }
      if (ready) {
        dist[i] = best + observedRunSeconds(h, *p);
        prev[i] = from;
        changed = true;
      }
    }
  }
  auto last = std::max_element(dist.begin(), dist.end());
  if (last == dist.end() || *last < 0) {
    return {{}, 0};
  }
  std::vector<int> path;
  for (int i = static_cast<int>(last - dist.begin()); i >= 0;
       i = prev[static_cast<std::size_t>(i)]) {
    path.push_back(i);
  }
  std::reverse(path.begin(), path.end());
  return {path, *last};
}

json hoardedGpuNodes(const History& h, double t) {
  std::vector<const Pod*> pendingGpu;
  for (const auto& p : h.pods) {
    if (p.request.gpu > 0 && pendingAt(p, t) && t >= p.unschedulableSince) {
      pendingGpu.push_back(&p);
    }
  }
  json out = json::array();
  if (pendingGpu.empty()) {
    return out;
  }
  for (const auto& a : nodesAt(h, t)) {
    const Node& n = a.node;
    if (n.allocatable.gpu == 0 || n.used.gpu >= n.allocatable.gpu) {
      continue;
    }
    double cpu = 0;
    double memory = 0;
    json holders = json::array();
    for (const Pod* p : a.pods) {
      if (p->request.gpu == 0) {
        cpu += p->request.cpu;
        memory += p->request.memory;
        holders.push_back(podRef(*p));
      }
    }
    json blocked = json::array();
    for (const Pod* p : pendingGpu) {
      if (blockedByHoarding(*p, a, cpu, memory)) {
        blocked.push_back(podRef(*p));
      }
    }
    if (blocked.empty()) {
      continue;
    }
    out.push_back(json{{"node", n.name},
                       {"zone", n.zone},
                       {"free_gpus", n.allocatable.gpu - n.used.gpu},
                       {"free_cpu", n.allocatable.cpu - n.used.cpu},
                       {"free_memory", n.allocatable.memory - n.used.memory},
                       {"non_gpu_cpu_fraction", cpu / n.allocatable.cpu},
                       {"non_gpu_memory_fraction", memory / n.allocatable.memory},
                       {"non_gpu_pods", holders},
                       {"pending_gpu_pods", blocked}});
  }
  return out;
}

double suggestedAnalysisTime(const History& h) {
  const OutputSpec& o = h.scenario->output;
  if (h.scenario->analysisAt) {
    return o.windowStart + *h.scenario->analysisAt;
  }
  double end = o.windowEnd < 0 ? h.end : std::min(o.windowEnd, h.end);
  double best = o.windowStart;
  double bestScore = -1;
  for (long k = 0; o.windowStart + static_cast<double>(k) * o.step <= end; ++k) {
    double t = o.windowStart + static_cast<double>(k) * o.step;
    double blocked = 0;
    for (const auto& node : hoardedGpuNodes(h, t)) {
      blocked += static_cast<double>(node["pending_gpu_pods"].size());
    }
    // Without a planted problem, the busiest moment: most task pods running.
    double running = 0;
    for (const auto& p : h.pods) {
      running += p.kind == PodKind::kTask && p.started <= t && t < p.finished ? 1 : 0;
    }
    double score = blocked * 1e6 + running;
    if (score > bestScore) {
      bestScore = score;
      best = t;
    }
  }
  return best;
}

Figures computeFigures(const History& h) {
  Figures f;
  double spanStart = kNever;
  double spanEnd = -kNever;
  double makespanSum = 0;
  for (const auto& r : h.runs) {
    if (!workflowOf(h, r).headline) {
      continue;
    }
    ++f.runs;
    spanStart = std::min(spanStart, r.arrival);
    if (r.finished == kNever) {
      spanEnd = h.end;
      continue;
    }
    ++f.runsFinished;
    spanEnd = std::max(spanEnd, r.finished);
    double makespan = (r.finished - r.arrival) / 3600;
    makespanSum += makespan;
    f.maxMakespanHours = std::max(f.maxMakespanHours, makespan);
  }
  f.meanMakespanHours = f.runsFinished > 0 ? makespanSum / f.runsFinished : 0;
  const double gpus = clusterGpus(h);
  double busy = 0;
  double held = 0;
  double queue = 0;
  int tasks = 0;
  for (const auto& p : h.pods) {
    if (p.kind != PodKind::kTask) {
      continue;
    }
    double from = std::max(p.started, spanStart);
    double to = std::min({p.finished, spanEnd, h.end});
    if (to > from) {
      held += p.request.gpu * (to - from);
      busy += p.request.gpu * p.gpuUtil * (to - from);
    }
    if (workflowOf(h, h.runs[static_cast<std::size_t>(p.run)]).headline) {
      queue += std::min(p.scheduled, h.end) - p.created;
      ++tasks;
    }
  }
  double capacity = gpus * std::max(0.0, spanEnd - spanStart);
  f.gpuUtilisationPct = capacity > 0 ? 100 * busy / capacity : 0;
  f.gpuAllocationPct = capacity > 0 ? 100 * held / capacity : 0;
  f.meanQueueSeconds = tasks > 0 ? queue / tasks : 0;
  gpuFigures(h, f);
  f.preemptions = h.preemptions;
  return f;
}

namespace {

// The figures the daemon's replay predicts, over what it replays: the runs with a task pod
// created in the window [from, to] (as the base run created them), measured on those tasks only
// (later tasks of a run in flight do not exist in the analysed window), the mean wait of the GPU
// pods created in it, and the GPUs held within it.
struct WindowSide {
  double gpuWait = 0;
  double gpuAllocationPct = 0;
};

double windowMakespan(const History& h, const Run& r, const std::vector<std::size_t>& tasks) {
  double last = r.arrival;
  for (std::size_t i : tasks) {
    const Pod* p = taskPod(h, r, i);
    last = std::max(last, p == nullptr ? h.end : std::min(p->finished, h.end));
  }
  return last - r.arrival;
}

WindowSide windowSide(const History& h, const std::set<std::string>& gpuPods, double from,
                      double to) {
  WindowSide side;
  for (const auto& p : h.pods) {
    if (gpuPods.count(p.name)) {
      side.gpuWait += std::max(0.0, std::min({p.scheduled, h.end, to}) - p.created);
    }
  }
  side.gpuWait /= std::max<double>(1, static_cast<double>(gpuPods.size()));
  side.gpuAllocationPct = gpuAllocationPct(h, from, to);
  return side;
}

}  // namespace

json windowComparison(const History& before, const History& after, double from, double to) {
  std::map<std::string, const Run*> afterRuns;
  for (const auto& r : after.runs) {
    afterRuns[runKey(after, r)] = &r;
  }
  std::set<std::string> gpuPods;
  for (const auto& p : before.pods) {
    if (p.request.gpu > 0 && p.kind != PodKind::kDaemonSet && p.created >= from &&
        p.created <= to) {
      gpuPods.insert(p.name);
    }
  }
  double sumBefore = 0;
  double sumAfter = 0;
  std::size_t affected = 0;
  std::size_t runs = 0;
  json changed = json::array();
  for (const auto& r : before.runs) {
    std::vector<std::size_t> tasks;
    for (std::size_t i = 0; i < r.taskPods.size(); ++i) {
      const Pod* p = taskPod(before, r, i);
      if (p != nullptr && p->created >= from && p->created <= to) {
        tasks.push_back(i);
      }
    }
    auto other = afterRuns.find(runKey(before, r));
    if (tasks.empty() || other == afterRuns.end()) {
      continue;
    }
    ++runs;
    const double b = windowMakespan(before, r, tasks);
    const double a = windowMakespan(after, *other->second, tasks);
    if (std::abs(a - b) > 1) {
      ++affected;
      sumBefore += b;
      sumAfter += a;
      changed.push_back(json{{"run", r.name},
                             {"dag", workflowOf(before, r).name},
                             {"before_seconds", b},
                             {"after_seconds", a}});
    }
  }
  const WindowSide b = windowSide(before, gpuPods, from, to);
  const WindowSide a = windowSide(after, gpuPods, from, to);
  const double n = std::max<double>(1, static_cast<double>(affected));
  return json{
      {"start", unixAt(before, from)},
      {"end", unixAt(before, to)},
      {"runs", runs},
      {"affected_runs",
       {{"count", affected},
        {"mean_makespan_before_seconds", sumBefore / n},
        {"mean_makespan_after_seconds", sumAfter / n},
        {"total_change_seconds", sumAfter - sumBefore},
        {"runs", changed}}},
      {"gpu_pods", gpuPods.size()},
      {"gpu_pod_mean_wait_seconds", {{"before", b.gpuWait}, {"after", a.gpuWait}}},
      {"gpu_allocation_pct", {{"before", b.gpuAllocationPct}, {"after", a.gpuAllocationPct}}}};
}

json changeOverDraws(const std::vector<json>& draws) {
  auto spread = [&](auto change) {
    double sum = 0;
    double lo = 0;
    double hi = 0;
    for (std::size_t i = 0; i < draws.size(); ++i) {
      const double c = change(draws[i]);
      sum += c;
      lo = i == 0 ? c : std::min(lo, c);
      hi = i == 0 ? c : std::max(hi, c);
    }
    return json{{"mean", draws.empty() ? 0 : sum / static_cast<double>(draws.size())},
                {"min", lo},
                {"max", hi}};
  };
  auto change = [](const json& pair) {
    return pair["after"].get<double>() - pair["before"].get<double>();
  };
  return json{{"count", draws.size()},
              {"affected_runs",
               spread([](const json& d) { return d["affected_runs"]["count"].get<double>(); })},
              {"makespan_change_seconds", spread([](const json& d) {
                 return d["affected_runs"]["mean_makespan_after_seconds"].get<double>() -
                        d["affected_runs"]["mean_makespan_before_seconds"].get<double>();
               })},
              {"makespan_total_change_seconds", spread([](const json& d) {
                 return d["affected_runs"]["total_change_seconds"].get<double>();
               })},
              {"gpu_pod_wait_change_seconds",
               spread([&](const json& d) { return change(d["gpu_pod_mean_wait_seconds"]); })},
              {"gpu_allocation_change_points",
               spread([&](const json& d) { return change(d["gpu_allocation_pct"]); })}};
}

json comparison(const History& before, const History& after) {
  auto figures = [](const Figures& f) {
    return json{{"mean_makespan_hours", f.meanMakespanHours},
                {"max_makespan_hours", f.maxMakespanHours},
                {"gpu_utilisation_pct", f.gpuUtilisationPct},
                {"gpu_allocation_pct", f.gpuAllocationPct},
                {"window_gpu_allocation_pct", f.windowGpuAllocationPct},
                {"gpu_pod_pending_seconds", f.gpuPodPendingSeconds},
                {"gpu_pods", f.gpuPods},
                {"mean_queue_seconds", f.meanQueueSeconds},
                {"runs_finished", f.runsFinished},
                {"runs", f.runs},
                {"preemptions", f.preemptions}};
  };
  // Runs are matched by DAG and name: the same seeds give the same runs on both sides.
  std::map<std::string, double> beforeMakespan;
  for (const auto& r : before.runs) {
    beforeMakespan[runKey(before, r)] = std::min(r.finished, before.end) - r.arrival;
  }
  json runs = json::array();
  double sumBefore = 0;
  double sumAfter = 0;
  for (const auto& r : after.runs) {
    auto it = beforeMakespan.find(runKey(after, r));
    const double makespan = std::min(r.finished, after.end) - r.arrival;
    if (it == beforeMakespan.end() || std::abs(it->second - makespan) < 1) {
      continue;
    }
    sumBefore += it->second;
    sumAfter += makespan;
    runs.push_back(json{{"run", r.name},
                        {"dag", workflowOf(after, r).name},
                        {"before_seconds", it->second},
                        {"after_seconds", makespan},
                        {"finished_after", r.finished != kNever}});
  }
  const double n = static_cast<double>(runs.size());
  return json{{"scenario", before.scenario->name},
              {"seed", before.scenario->seed},
              {"changes", after.changes},
              {"before", figures(computeFigures(before))},
              {"after", figures(computeFigures(after))},
              {"affected_runs",
               {{"count", runs.size()},
                {"mean_makespan_before_seconds", n > 0 ? sumBefore / n : 0},
                {"mean_makespan_after_seconds", n > 0 ? sumAfter / n : 0},
                {"runs", runs}}},
              {"applied", after.applied}};
}

namespace {

// Per run: queueing of its tasks, and how busy its GPU tasks kept the cluster's GPUs while the
// run was in flight (DCGM-weighted GPU seconds / all GPUs x makespan).
json runSummary(const History& h, const Run& r, double gpus) {
  double queue = 0;
  double gpuSeconds = 0;
  int tasks = 0;
  for (std::size_t i = 0; i < r.taskPods.size(); ++i) {
    if (const Pod* p = taskPod(h, r, i)) {
      queue += std::min(p->scheduled, h.end) - p->created;
      double ran = std::max(0.0, std::min(p->finished, h.end) - std::min(p->started, h.end));
      gpuSeconds += p->request.gpu * p->gpuUtil * ran;
      ++tasks;
    }
  }
  double makespan = std::min(r.finished, h.end) - r.arrival;
  return json{
      {"dag", workflowOf(h, r).name},
      {"run", r.name},
      {"makespan_seconds", r.finished == kNever ? json(nullptr) : json(r.finished - r.arrival)},
      {"mean_queue_seconds", tasks > 0 ? queue / tasks : 0},
      {"critical_path_seconds", observedCriticalPath(h, r).second},
      {"gpu_seconds", gpuSeconds},
      {"gpu_utilisation_pct", gpus > 0 && makespan > 0 ? 100 * gpuSeconds / (gpus * makespan) : 0}};
}

}  // namespace

json summary(const History& h) {
  Figures f = computeFigures(h);
  const double gpus = clusterGpus(h);
  json runs = json::array();
  for (const auto& r : h.runs) {
    runs.push_back(runSummary(h, r, gpus));
  }
  return json{{"scenario", h.scenario->name},
              {"policy", h.changes},
              {"seed", h.scenario->seed},
              {"gpu_pod_pending_seconds", f.gpuPodPendingSeconds},
              {"window_gpu_allocation_pct", f.windowGpuAllocationPct},
              {"preemptions", f.preemptions},
              {"runs_finished", f.runsFinished},
              {"runs", f.runs},
              {"mean_makespan_hours", f.meanMakespanHours},
              {"max_makespan_hours", f.maxMakespanHours},
              {"gpu_utilisation_pct", f.gpuUtilisationPct},
              {"gpu_allocation_pct", f.gpuAllocationPct},
              {"mean_queue_seconds", f.meanQueueSeconds},
              {"pods", h.pods.size()},
              {"nodes", h.nodes.size()},
              {"per_run", runs}};
}

json groundTruth(const History& h) {
  const Scenario& s = *h.scenario;
  double end = s.output.windowEnd < 0 ? h.end : std::min(s.output.windowEnd, h.end);
  double suggested = suggestedAnalysisTime(h);
  json runs = json::array();
  for (const auto& r : h.runs) {
    runs.push_back(runDocument(h, r));
  }
  json pendingGpu = json::array();
  for (const auto& p : h.pods) {
    if (p.request.gpu > 0 && pendingAt(p, suggested)) {
      pendingGpu.push_back(podRef(p));
    }
  }
  return json{{"scenario", s.name},
              {"description", s.description},
              {"planted_problem", s.plantedProblem},
              {"seed", s.seed},
              {"policy", h.changes},
              {"applied_patches", h.applied},
              {"window", json{{"start", unixAt(h, s.output.windowStart)},
                              {"end", unixAt(h, end)},
                              {"step", s.output.step},
                              {"refresh", s.output.refresh}}},
              {"suggested_analysis_time", unixAt(h, suggested)},
              // What a hand-off from another node costs per GB: what the daemon's prices measure.
              {"network", json{{"same_zone_seconds_per_gb", s.network.sameZoneSecondsPerGb},
                               {"cross_zone_seconds_per_gb", s.network.crossZoneSecondsPerGb}}},
              {"hoarded_gpu_nodes", hoardedGpuNodes(h, suggested)},
              {"pending_gpu_pods", pendingGpu},
              {"scheduling_latency", latencyDocument(h)},
              {"runs", runs},
              {"summary", summary(h)}};
}

}  // namespace dagadvisor::sim
