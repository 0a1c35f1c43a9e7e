#include <map>
#include <set>

#include "report.h"
#include "sim_test_support.h"

using namespace dagadvisor::sim;
using namespace dagadvisor::sim::test;

namespace {

// The seed scenario is rendered once and shared: it is the largest of the checks.
struct Rendered {
  Scenario scenario;
  History history;
  std::string text;
  std::vector<Sample> samples;
  nlohmann::json truth;
};

// Built in place and never moved: the history points at the scenario next to it.
const Rendered& seedBaseline() {
  static const Rendered* r = [] {
    auto* out = new Rendered{loadShipped("seed"), {}, {}, {}, {}};
    out->history = simulate(out->scenario, Policy::kBaseline);
    out->text = renderOpenMetrics(out->history);
    out->samples = parseAll(out->text);
    out->truth = groundTruth(out->history);
    return out;
  }();
  return *r;
}

std::string withoutLabel(const Sample& s, const std::string& drop) {
  std::string key = s.name.substr(0, s.name.rfind('_')) + "{";
  for (const auto& [k, v] : s.labels) {
    if (k != drop) {
      key += k + "=" + v + ",";
    }
  }
  return key;
}

// Latest sample of every series at `t`, within Prometheus' 5-minute lookback.
std::map<std::string, const Sample*> instantAt(const std::vector<Sample>& samples, double t) {
  std::map<std::string, const Sample*> out;
  for (const auto& s : samples) {
    if (s.time <= t && s.time > t - 300) {
      out[s.series] = &s;
    }
  }
  return out;
}

void checkSecondsSortedEof() {
  const Rendered& r = seedBaseline();
  REQUIRE(r.text.size() > 1000);
  CHECK(r.text.substr(r.text.size() - 6) == "# EOF\n");
  CHECK(r.text.find("# TYPE kube_pod_info gauge") != std::string::npos);
  double windowStart = static_cast<double>(r.scenario.start);
  double windowEnd = windowStart + r.scenario.duration;
  std::map<std::string, double> last;
  for (const auto& s : r.samples) {
    REQUIRE(s.time >= windowStart);
    REQUIRE(s.time <= windowEnd);
    auto it = last.find(s.series);
    if (it != last.end()) {
      INFO(s.series);
      REQUIRE(s.time > it->second);
    }
    last[s.series] = s.time;
  }
  CHECK(last.size() > 1000);
}

void checkJobAndInstance() {
  std::set<std::string> jobs;
  for (const auto& s : seedBaseline().samples) {
    REQUIRE(s.labels.count("job"));
    REQUIRE(s.labels.count("instance"));
    jobs.insert(s.labels.at("job"));
  }
  CHECK(jobs ==
        std::set<std::string>{"dcgm-exporter", "kube-scheduler", "kube-state-metrics", "kubelet"});
}

void checkCumulativeBuckets() {
  std::map<std::pair<std::string, double>, std::map<double, double>> buckets;
  std::map<std::pair<std::string, double>, double> counts;
  for (const auto& s : seedBaseline().samples) {
    bool bucket = s.name.size() > 7 && s.name.substr(s.name.size() - 7) == "_bucket";
    bool count = s.name.size() > 6 && s.name.substr(s.name.size() - 6) == "_count";
    if (bucket) {
      const std::string& le = s.labels.at("le");
      buckets[{withoutLabel(s, "le"), s.time}][le == "+Inf" ? 1e308 : std::stod(le)] = s.value;
    } else if (count) {
      counts[{withoutLabel(s, ""), s.time}] = s.value;
    }
  }
  REQUIRE_FALSE(buckets.empty());
  for (const auto& [key, byLe] : buckets) {
    double previous = 0;
    for (const auto& [le, value] : byLe) {
      INFO(key.first << " at " << key.second << " le " << le);
      REQUIRE(value >= previous);
      previous = value;
    }
    REQUIRE(counts.count(key));
    CHECK(counts.at(key) == previous);
  }
}

void checkCountersMonotonic() {
  std::map<std::string, double> last;
  for (const auto& s : seedBaseline().samples) {
    bool counter = s.name.find("_total") != std::string::npos ||
                   s.name.find("_bucket") != std::string::npos ||
                   s.name.find("_count") != std::string::npos;
    if (!counter) {
      continue;
    }
    auto it = last.find(s.series);
    if (it != last.end()) {
      INFO(s.series);
      REQUIRE(s.value >= it->second);
    }
    last[s.series] = s.value;
  }
}

void checkPodLifetimes() {
  const Rendered& r = seedBaseline();
  std::map<std::string, const Pod*> byUid;
  for (const auto& p : r.history.pods) {
    byUid[p.uid] = &p;
  }
  double start = static_cast<double>(r.scenario.start);
  std::size_t checked = 0;
  for (const auto& s : r.samples) {
    auto uid = s.labels.find("uid");
    if (uid == s.labels.end()) {
      continue;
    }
    const Pod* p = byUid.at(uid->second);
    INFO(s.series);
    REQUIRE(s.time >= start + p->created);
    REQUIRE(s.time < start + p->deleted);
    ++checked;
  }
  CHECK(checked > 10000);
}

void checkOnePhase() {
  const auto& samples = seedBaseline().samples;
  std::map<std::string, std::map<std::string, double>> phases;  // uid -> phase -> value
  std::set<std::string> touched;
  auto check = [&] {
    for (const auto& uid : touched) {
      double sum = 0;
      for (const auto& [phase, value] : phases[uid]) {
        sum += value;
      }
      INFO(uid);
      REQUIRE(phases[uid].size() == 5);
      REQUIRE(sum == 1);
    }
    touched.clear();
  };
  double time = -1;
  for (const auto& s : samples) {
    if (s.time != time) {
      check();
      time = s.time;
    }
    if (s.name == "kube_pod_status_phase") {
      phases[s.labels.at("uid")][s.labels.at("phase")] = s.value;
      touched.insert(s.labels.at("uid"));
    }
  }
  check();
}

void checkSeedLabels() {
  std::size_t seedPods = 0;
  for (const auto& s : seedBaseline().samples) {
    if (s.name == "kube_pod_labels" && s.labels.count("label_dag_id")) {
      CHECK(s.labels.count("label_dag_run"));
      CHECK(s.labels.count("label_task_id"));
      ++seedPods;
    }
    if (s.name == "kube_pod_annotations" && s.labels.count("annotation_workflow_dependencies")) {
      ++seedPods;
    }
    if (s.name == "kube_pod_labels" && s.labels.count("label_workflows_argoproj_io_workflow")) {
      ++seedPods;
    }
  }
  CHECK(seedPods > 100);
}

void checkTruthStartTimes() {
  const Rendered& r = seedBaseline();
  const auto& truth = r.truth;
  CHECK(truth["scenario"] == "seed");
  CHECK(truth["policy"] == "baseline");
  std::map<std::string, double> startTimes;
  for (const auto& s : r.samples) {
    if (s.name == "kube_pod_start_time") {
      startTimes[s.labels.at("uid")] = s.value;
    }
  }
  std::size_t tasks = 0;
  for (const auto& run : truth["runs"]) {
    for (const auto& task : run["tasks"]) {
      if (task.contains("started") && !task["started"].is_null()) {
        INFO(task["pod"]);
        REQUIRE(startTimes.count(task["uid"].get<std::string>()));
        CHECK(startTimes.at(task["uid"].get<std::string>()) == task["started"].get<double>());
        ++tasks;
      }
    }
  }
  CHECK(tasks > 40);
}

// Each task's counter: its parents' outputs, all of them (a parent on its node too), arrived by
// the end of its fetch, and not before, where a scrape fell inside the fetch.
void checkNetworkReceive() {
  const Rendered& r = seedBaseline();
  std::map<std::string, std::vector<const Sample*>> received;  // by pod
  for (const auto& s : r.samples) {
    if (s.name == "container_network_receive_bytes_total") {
      CHECK(s.labels.at("interface") == "eth0");
      received[s.labels.at("pod")].push_back(&s);
    }
  }
  std::map<std::string, double> output_gb;
  for (const auto& w : r.scenario.workflows) {
    for (const auto& task : w.tasks) {
      output_gb[w.name + "/" + task.id] = task.outputGb;
    }
  }
  std::size_t fetching = 0;
  std::size_t inside = 0;
  for (const auto& run : r.truth["runs"]) {
    for (const auto& task : run["tasks"]) {
      if (task["started"].is_null() || !received.count(task["pod"].get<std::string>())) {
        continue;
      }
      double total = 0;
      for (const auto& parent : task["parents"]) {
        total +=
            output_gb.at(run["dag"].get<std::string>() + "/" + parent.get<std::string>()) * 1e9;
      }
      const double fetched = task["started"].get<double>() + task["transfer_seconds"].get<double>();
      INFO(task["pod"]);
      for (const Sample* s : received.at(task["pod"].get<std::string>())) {
        if (s->time >= fetched + 1) {  // the truth's start is whole seconds
          CHECK(s->value == Approx(total).margin(1));
        } else if (s->time > task["started"].get<double>() + 1) {
          CHECK(s->value < total);
          ++inside;
        }
      }
      fetching += total > 0 ? 1 : 0;
    }
  }
  CHECK(fetching > 40);
  CHECK(inside > 40);
}

void checkHoardingVisible() {
  const Rendered& r = seedBaseline();
  double t = r.truth["suggested_analysis_time"].get<double>();
  const auto& hoarded = r.truth["hoarded_gpu_nodes"];
  REQUIRE(hoarded.size() >= 1);
  auto now = instantAt(r.samples, t);
  // Recompute free GPUs per node from kube-state-metrics alone.
  std::map<std::string, double> allocatable;
  std::map<std::string, std::string> nodeOf;  // uid -> node
  std::map<std::string, std::string> phaseOf;
  std::map<std::string, double> gpuOf;
  std::set<std::string> unschedulable;
  double byPlugin = 0;
  for (const auto& [series, s] : now) {
    if (s->name == "kube_node_status_allocatable" && s->labels.at("resource") == "nvidia_com_gpu") {
      allocatable[s->labels.at("node")] = s->value;
    } else if (s->name == "kube_pod_info" && !s->labels.at("node").empty()) {
      nodeOf[s->labels.at("uid")] = s->labels.at("node");
    } else if (s->name == "kube_pod_status_phase" && s->value == 1) {
      phaseOf[s->labels.at("uid")] = s->labels.at("phase");
    } else if (s->name == "kube_pod_container_resource_requests" &&
               s->labels.at("resource") == "nvidia_com_gpu") {
      gpuOf[s->labels.at("uid")] = s->value;
    } else if (s->name == "kube_pod_status_unschedulable" && s->value == 1) {
      unschedulable.insert(s->labels.at("uid"));
    } else if (s->name == "scheduler_unschedulable_pods") {
      byPlugin += s->value;
    }
  }
  for (const auto& node : hoarded) {
    std::string name = node["node"];
    double used = 0;
    for (const auto& [uid, n] : nodeOf) {
      bool holds = phaseOf[uid] == "Running" || phaseOf[uid] == "Pending";
      used += n == name && holds ? gpuOf[uid] : 0;
    }
    INFO(name);
    CHECK(allocatable.at(name) - used == node["free_gpus"].get<double>());
    CHECK(node["non_gpu_pods"].size() > 0);
    CHECK(node["pending_gpu_pods"].size() > 0);
  }
  CHECK(unschedulable.size() >= r.truth["hoarded_gpu_nodes"][0]["pending_gpu_pods"].size());
  CHECK(byPlugin == static_cast<double>(unschedulable.size()));
}

}  // namespace

// One test case, so the seed scenario is simulated, rendered and parsed once per process.
TEST_CASE("the seed's OpenMetrics output and ground truth", "[simulator][openmetrics]") {
  SECTION("OpenMetrics output: seconds, sorted per series, # EOF") {
    checkSecondsSortedEof();
  }
  SECTION("every series carries job and instance") {
    checkJobAndInstance();
  }
  SECTION("histogram buckets are cumulative and +Inf equals the count") {
    checkCumulativeBuckets();
  }
  SECTION("counters never go down") {
    checkCountersMonotonic();
  }
  SECTION("pod series exist only while the pod object exists") {
    checkPodLifetimes();
  }
  SECTION("each pod is in exactly one phase") {
    checkOnePhase();
  }
  SECTION("pods carry the seed's labels and annotation, sanitised") {
    checkSeedLabels();
  }
  SECTION("ground truth agrees with the series") {
    checkTruthStartTimes();
  }
  SECTION("each task's network counter shows its parents' outputs arriving") {
    checkNetworkReceive();
  }
  SECTION("the planted GPU hoarding is visible in the series at the suggested time") {
    checkHoardingVisible();
  }
}

TEST_CASE("the latency spike shows in the scheduler SLI", "[simulator][truth]") {
  Scenario s = loadShipped("latency-spike");
  auto truth = groundTruth(simulate(s, Policy::kBaseline));
  const auto& latency = truth["scheduling_latency"];
  CHECK(latency["during_spikes"]["p50"].get<double>() > 10);
  Scenario calm = s;
  calm.scheduler.spikes.clear();
  auto calmTruth = groundTruth(simulate(calm, Policy::kBaseline));
  CHECK(calmTruth["scheduling_latency"]["window"]["p99"].get<double>() < 1);
}

TEST_CASE("the healthy scenario plants nothing", "[simulator][truth]") {
  Scenario s = loadShipped("healthy");
  auto truth = groundTruth(simulate(s, Policy::kBaseline));
  CHECK(truth["hoarded_gpu_nodes"].empty());
  CHECK(truth["pending_gpu_pods"].empty());
  for (const auto& run : truth["runs"]) {
    CHECK_FALSE(run["makespan_seconds"].is_null());
  }
  CHECK(truth["summary"]["mean_queue_seconds"].get<double>() < 5);
}

TEST_CASE("tolerations and nodeSelectors are exported as kube-state-metrics does",
          "[simulator][openmetrics]") {
  auto loaded = loadText(R"(
name: tolerations
zones: [z]
node_pools: [{name: n, count: 1, cpu: 8, memory: 32Gi}]
daemonsets:
  - {name: agent, namespace: monitoring, cpu: 100m, memory: 64Mi, tolerations: [{operator: Exists}]}
workflows:
  - name: w
    namespace: ml
    tasks:
      - {id: t, cpu: "1", memory: 1Gi,
         tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]}
duration: 600
)");
  INFO(loaded.error);
  REQUIRE(loaded.scenario);
  loaded.scenario->workflows[0].tasks[0].scheduling["nodeSelector"] = {
      {"kubernetes.io/os", "linux"}};
  History h = simulate(*loaded.scenario, Policy::kBaseline);
  std::vector<Sample> samples = parseAll(renderOpenMetrics(h));
  std::set<std::string> taskTolerations;
  std::set<std::string> agentTolerations;
  bool nodeSelectors = false;
  for (const auto& s : samples) {
    if (s.name == "kube_pod_tolerations") {
      // The label set of the real scrape, plus the scrape's job and instance.
      std::set<std::string> keys;
      for (const auto& [k, v] : s.labels) {
        keys.insert(k);
      }
      CHECK(keys == std::set<std::string>{"job", "instance", "namespace", "pod", "uid", "key",
                                          "operator", "value", "effect", "toleration_seconds"});
      std::string t = s.labels.at("key") + "|" + s.labels.at("operator") + "|" +
                      s.labels.at("effect") + "|" + s.labels.at("toleration_seconds");
      (s.labels.at("namespace") == "ml" ? taskTolerations : agentTolerations).insert(t);
    }
    nodeSelectors = nodeSelectors || s.name == "kube_pod_nodeselectors";
  }
  CHECK(taskTolerations ==
        std::set<std::string>{"nvidia.com/gpu|Exists|NoSchedule|",
                              "node.kubernetes.io/not-ready|Exists|NoExecute|300",
                              "node.kubernetes.io/unreachable|Exists|NoExecute|300"});
  CHECK(agentTolerations.count("|Exists||") == 1);  // key-less: tolerates every taint
  CHECK(agentTolerations.count("node.kubernetes.io/unschedulable|Exists|NoSchedule|") == 1);
  CHECK_FALSE(nodeSelectors);  // an opt-in family: off unless the scenario turns it on

  loaded.scenario->output.nodeSelectorsMetric = true;
  History withOptIn = simulate(*loaded.scenario, Policy::kBaseline);
  bool linux = false;
  for (const auto& s : parseAll(renderOpenMetrics(withOptIn))) {
    if (s.name == "kube_pod_nodeselectors" && s.labels.at("namespace") == "ml") {
      linux = s.labels.count("nodeselector_kubernetes_io_os") &&
              s.labels.at("nodeselector_kubernetes_io_os") == "linux";
    }
  }
  CHECK(linux);
}
