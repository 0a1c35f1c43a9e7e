// dagadvisor-sim: a discrete-event simulation of a Kubernetes cluster running DAG workflows,
// the test oracle of dagadvisor. See config/scenarios/README.md.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "engine_objects.h"
#include "exposition.h"
#include "live.h"
#include "patches.h"
#include "plan.h"
#include "report.h"
#include "scenario.h"
#include "simulation.h"

namespace {

using namespace dagadvisor::sim;

constexpr const char* kUsage =
    "usage:\n"
    "  dagadvisor-sim generate --scenario FILE --out DIR [--seed N] [--policy baseline|remedied]\n"
    "                          [--apply RECOMMENDATIONS.json [--apply-ids ID,...]]\n"
    "                          [--step SECONDS] [--start UNIX]\n"
    "  dagadvisor-sim compare  --scenario FILE [--seed N] [--apply RECOMMENDATIONS.json\n"
    "                          [--apply-ids ID,...]] [--tie-breaks N] [--out REPORT.json]\n"
    "  dagadvisor-sim serve    --scenario FILE --listen 127.0.0.1:PORT [--speed X] [--seed N]\n"
    "                          [--policy baseline|remedied] [--apply RECOMMENDATIONS.json\n"
    "                          [--apply-ids ID,...]] [--histograms classic|native]\n"
    "  dagadvisor-sim plan     --scenario FILE [--seed N] [--time-scale X] [--out PLAN.json]\n"
    "                          [--policy baseline|remedied] [--apply RECOMMENDATIONS.json\n"
    "                          [--apply-ids ID,...]]\n"
    "\n"
    "plan writes the scenario for a driver to play on a real cluster with kwok (stdout without\n"
    "--out): the objects to create, then each run's tasks with their pods and run times, every\n"
    "time multiplied by --time-scale (default 1). See config/scenarios/README.md, plan.json.\n"
    "\n"
    "--apply takes `dagadvisor analyze --output json`: the patches of its recommendations (all,\n"
    "or those --apply-ids names) are applied, in step order, to the simulated Nodes,\n"
    "PriorityClasses, DaemonSets and Deployments before the window, and to each task pod the\n"
    "patch's `pods` selects as it is created. Every patch's outcome (applied, matched nothing,\n"
    "all variants failed, skipped: needs_value) is printed to stderr and written to\n"
    "ground_truth.json (applied_patches) or the compare report. --policy remedied applies the\n"
    "scenario's built-in remedies, written as the same kind of patches. compare runs the same\n"
    "seeds without and with the patches (the built-in remedies without --apply).\n";

struct Options {
  std::string command;
  std::map<std::string, std::string> values;
  double speed = 1;
  int tieBreaks = 1;  // compare: histories per side, each under its own scheduler coin flips
};

bool parseArgs(int argc, char** argv, Options& o) {
  if (argc < 2) {
    return false;
  }
  o.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string key = argv[i];
    if (key.rfind("--", 0) != 0 || i + 1 >= argc) {
      std::cerr << "dagadvisor-sim: unexpected argument '" << key << "'\n";
      return false;
    }
    o.values[key.substr(2)] = argv[++i];
  }
  return true;
}

// Applies the command-line overrides to the scenario; false with a message on a bad value.
bool applyOverrides(Options& o, Scenario& s, Policy& policy) {
  try {
    if (o.values.count("seed")) {
      s.seed = std::stoull(o.values.at("seed"));
    }
    if (o.values.count("step")) {
      s.output.step = std::stod(o.values.at("step"));
      if (!(s.output.step > 0)) {
        throw std::invalid_argument("step");
      }
    }
    if (o.values.count("start")) {
      s.start = std::stoll(o.values.at("start"));
    }
    if (o.values.count("tie-breaks")) {
      o.tieBreaks = std::stoi(o.values.at("tie-breaks"));
      if (o.tieBreaks < 1 || o.tieBreaks > 100) {
        throw std::invalid_argument("tie-breaks");
      }
    }
    if (o.values.count("speed")) {
      o.speed = std::stod(o.values.at("speed"));
      if (!(o.speed > 0)) {
        throw std::invalid_argument("speed");
      }
    }
  } catch (const std::exception&) {
    std::cerr << "dagadvisor-sim: --seed, --step, --start and --speed need positive numbers, "
                 "--tie-breaks a count from 1 to 100\n";
    return false;
  }
  // A coarser --step must not push a thinned series past Prometheus' 5-minute lookback.
  if (s.output.refresh > 0 && s.output.refresh + s.output.step > 300) {
    s.output.refresh = std::max(0.0, 300 - s.output.step);
  }
  std::string p = o.values.count("policy") ? o.values.at("policy") : "baseline";
  if (p != "baseline" && p != "remedied") {
    std::cerr << "dagadvisor-sim: --policy must be baseline or remedied\n";
    return false;
  }
  policy = p == "baseline" ? Policy::kBaseline : Policy::kRemedied;
  if (o.values.count("policy") && o.values.count("apply")) {
    std::cerr << "dagadvisor-sim: --policy and --apply exclude each other\n";
    return false;
  }
  if (o.values.count("apply-ids") && !o.values.count("apply")) {
    std::cerr << "dagadvisor-sim: --apply-ids needs --apply\n";
    return false;
  }
  return true;
}

std::vector<std::string> splitIds(const std::string& text) {
  std::vector<std::string> ids;
  std::size_t from = 0;
  while (from <= text.size()) {
    std::size_t comma = text.find(',', from);
    std::string id =
        text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    if (!id.empty()) {
      ids.push_back(id);
    }
    if (comma == std::string::npos) {
      break;
    }
    from = comma + 1;
  }
  return ids;
}

// The changes to simulate: --apply's recommendations, else the policy's (remedied: the built-in
// remedies; baseline: none). `fallback` is what compare applies without --apply.
std::optional<Advice> chosenAdvice(const Options& o, const Scenario& s, Policy policy) {
  if (!o.values.count("apply")) {
    return policy == Policy::kRemedied ? remediesAdvice(s) : Advice{"baseline", {}, {}};
  }
  std::string error;
  auto advice =
      loadAdvice(o.values.at("apply"),
                 splitIds(o.values.count("apply-ids") ? o.values.at("apply-ids") : ""), error);
  if (!advice) {
    std::cerr << "dagadvisor-sim: --apply " << error << "\n";
  }
  return advice;
}

void printNotes(const Advice& advice) {
  for (const auto& note : advice.notes) {
    std::cerr << "dagadvisor-sim: not applied: " << note << "\n";
  }
}

void printApplied(const History& h) {
  for (const auto& line : describeReport(h.applied)) {
    std::cerr << "dagadvisor-sim: " << line << "\n";
  }
}

bool writeJson(const std::filesystem::path& path, const nlohmann::json& doc, int indent = 2) {
  std::ofstream out(path);
  out << doc.dump(indent) << "\n";
  return static_cast<bool>(out);
}

int generate(const Options& o, Scenario& s, const Advice& advice) {
  if (!o.values.count("out")) {
    std::cerr << "dagadvisor-sim: generate needs --out DIR\n";
    return 2;
  }
  auto begin = std::chrono::steady_clock::now();
  std::filesystem::path dir = o.values.at("out");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  History h = simulate(s, advice);
  printApplied(h);
  std::FILE* f = std::fopen((dir / "metrics.om").c_str(), "wb");
  if (f == nullptr) {
    std::cerr << "dagadvisor-sim: cannot write " << (dir / "metrics.om") << "\n";
    return 1;
  }
  std::size_t samples = writeOpenMetrics(h, f);
  bool ok = std::fclose(f) == 0;
  ok = writeJson(dir / "ground_truth.json", groundTruth(h)) && ok;
  ok = writeJson(dir / "summary.json", summary(h)) && ok;
  // What `kubectl get pipelineruns -A -o json` prints at the window's end, indented as it does.
  ok = writeJson(dir / "objects.json", pipelineRunList(h), 4) && ok;
  if (!ok) {
    std::cerr << "dagadvisor-sim: failed writing into " << dir << "\n";
    return 1;
  }
  Figures fig = computeFigures(h);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::printf(
      "scenario=%s policy=%s seed=%llu nodes=%zu pods=%zu runs=%d/%d mean_makespan_h=%.2f "
      "gpu_util_pct=%.1f samples=%zu bytes=%ju seconds=%.2f\n",
      s.name.c_str(), h.changes.c_str(), static_cast<unsigned long long>(s.seed), h.nodes.size(),
      h.pods.size(), fig.runsFinished, fig.runs, fig.meanMakespanHours, fig.gpuUtilisationPct,
      samples, static_cast<std::uintmax_t>(std::filesystem::file_size(dir / "metrics.om", ec)),
      seconds);
  return 0;
}

int compare(const Options& o, const Scenario& s, const Advice& advice) {
  History before = simulate(s, Advice{"baseline", {}, {}});
  History after = simulate(s, advice);
  printApplied(after);
  nlohmann::json c = comparison(before, after);
  c["notes"] = advice.notes;
  if (advice.window) {  // the daemon's replayed window, measured again
    const double from = static_cast<double>(advice.window->first - s.start);
    const double to = static_cast<double>(advice.window->second - s.start);
    c["replayed_window"] = windowComparison(before, after, from, to);
    // The same workload under other coin flips of the scheduler, both sides alike: a placement
    // change reshuffles every later decision, so one history's gain is one draw of it.
    std::vector<nlohmann::json> draws{c["replayed_window"]};
    for (int k = 1; k < o.tieBreaks; ++k) {
      Scenario other = s;
      other.scheduler.tieBreakStream = static_cast<std::uint64_t>(k);
      draws.push_back(windowComparison(simulate(other, Advice{"baseline", {}, {}}),
                                       simulate(other, advice), from, to));
    }
    c["replayed_window_over_tie_breaks"] = changeOverDraws(draws);
  }
  const auto& b = c["before"];
  const auto& a = c["after"];
  const std::string label = advice.source == "remedied" ? "remedied" : "applied";
  std::printf("scenario %s, seed %llu: before (baseline) vs after (%s: %s)\n", s.name.c_str(),
              static_cast<unsigned long long>(s.seed), label.c_str(), advice.source.c_str());
  std::printf("%-34s %12s %12s\n", "metric", "baseline", label.c_str());
  // `decimals` digits after the point, in a column of 12 characters.
  auto row = [&](const char* name, const char* key, int decimals) {
    std::printf("%-34s %12.*f %12.*f\n", name, decimals, b[key].get<double>(), decimals,
                a[key].get<double>());
  };
  row("mean makespan (h)", "mean_makespan_hours", 2);
  row("max makespan (h)", "max_makespan_hours", 2);
  const auto& affected = c["affected_runs"];
  std::printf(
      "%-34s %12.2f %12.2f\n",
      ("affected runs' makespan (h, " + std::to_string(affected["count"].get<int>()) + ")").c_str(),
      affected["mean_makespan_before_seconds"].get<double>() / 3600,
      affected["mean_makespan_after_seconds"].get<double>() / 3600);
  row("GPU-pod pending time (s)", "gpu_pod_pending_seconds", 0);
  row("GPU allocation in window (%)", "window_gpu_allocation_pct", 1);
  row("GPU utilisation (%)", "gpu_utilisation_pct", 1);
  row("GPU allocation (%)", "gpu_allocation_pct", 1);
  row("mean task queueing (s)", "mean_queue_seconds", 0);
  row("preemptions", "preemptions", 0);
  std::printf("%-34s %9d/%-2d %9d/%-2d\n", "runs finished", b["runs_finished"].get<int>(),
              b["runs"].get<int>(), a["runs_finished"].get<int>(), a["runs"].get<int>());
  if (o.values.count("out") && !writeJson(o.values.at("out"), c)) {
    std::cerr << "dagadvisor-sim: cannot write " << o.values.at("out") << "\n";
    return 1;
  }
  return 0;
}

int plan(const Options& o, const Scenario& s, const Advice& advice) {
  double scale = 1;
  if (o.values.count("time-scale")) {
    const std::string& text = o.values.at("time-scale");
    std::size_t used = 0;
    try {
      scale = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(scale) || !(scale > 0)) {
      std::cerr << "dagadvisor-sim: --time-scale must be a number > 0, got '" << text << "'\n";
      return 2;
    }
  }
  const nlohmann::json doc = buildPlan(s, advice, scale);
  for (const auto& line : describeReport(doc["applied_patches"])) {
    std::cerr << "dagadvisor-sim: " << line << "\n";
  }
  if (!o.values.count("out")) {
    std::cout << doc.dump(2) << "\n";
    return std::cout ? 0 : 1;
  }
  if (!writeJson(o.values.at("out"), doc)) {
    std::cerr << "dagadvisor-sim: cannot write " << o.values.at("out") << "\n";
    return 1;
  }
  return 0;
}

int run(const Options& o, Scenario& s, const Advice& advice) {
  if (o.command == "plan") {
    return plan(o, s, advice);
  }
  if (o.command == "generate") {
    return generate(o, s, advice);
  }
  if (o.command == "compare") {
    return compare(o, s, advice);
  }
  const std::string histograms =
      o.values.count("histograms") ? o.values.at("histograms") : "classic";
  if (histograms != "classic" && histograms != "native") {
    std::cerr << "dagadvisor-sim: --histograms must be classic or native\n";
    return 2;
  }
  return serve(s, advice, o.values.count("listen") ? o.values.at("listen") : "127.0.0.1:9105",
               o.speed, histograms == "native");
}

}  // namespace

int main(int argc, char** argv) {
  // Asked for: the usage on stdout and success, like every other tool's --help.
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h" ||
        (i == 1 && std::string_view(argv[i]) == "help")) {
      std::cout << kUsage;
      return 0;
    }
  }
  Options o;
  if (!parseArgs(argc, argv, o) || !o.values.count("scenario")) {
    std::cerr << kUsage;
    return 2;
  }
  ScenarioOrError loaded = loadScenario(o.values.at("scenario"));
  if (!loaded.scenario) {
    std::cerr << "dagadvisor-sim: " << loaded.error << "\n";
    return 2;
  }
  Scenario& s = *loaded.scenario;
  Policy policy = Policy::kBaseline;
  if (!applyOverrides(o, s, policy)) {
    return 2;
  }
  if (o.command != "generate" && o.command != "compare" && o.command != "serve" &&
      o.command != "plan") {
    std::cerr << kUsage;
    return 2;
  }
  // compare without --apply judges the built-in remedies.
  auto advice = chosenAdvice(o, s, o.command == "compare" ? Policy::kRemedied : policy);
  if (!advice) {
    return 2;
  }
  printNotes(*advice);
  try {
    return run(o, s, *advice);
  } catch (const std::invalid_argument& e) {
    std::cerr << "dagadvisor-sim: a patched object is not valid: " << e.what() << "\n";
    return 1;
  }
}
