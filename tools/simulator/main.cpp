// dagadvisor-sim: a discrete-event simulation of a Kubernetes cluster running DAG workflows,
// the test oracle of dagadvisor. See config/scenarios/README.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <string_view>

#include "exposition.h"
#include "live.h"
#include "report.h"
#include "scenario.h"
#include "simulation.h"

namespace {

using namespace dagadvisor::sim;

constexpr const char* kUsage =
    "usage:\n"
    "  dagadvisor-sim generate --scenario FILE --out DIR [--seed N] [--policy baseline|remedied]\n"
    "                          [--step SECONDS] [--start UNIX]\n"
    "  dagadvisor-sim compare  --scenario FILE [--seed N]\n"
    "  dagadvisor-sim serve    --scenario FILE --listen 127.0.0.1:PORT [--speed X] [--seed N]\n"
    "                          [--policy baseline|remedied] [--histograms classic|native]\n";

struct Options {
  std::string command;
  std::map<std::string, std::string> values;
  double speed = 1;
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
    if (o.values.count("speed")) {
      o.speed = std::stod(o.values.at("speed"));
      if (!(o.speed > 0)) {
        throw std::invalid_argument("speed");
      }
    }
  } catch (const std::exception&) {
    std::cerr << "dagadvisor-sim: --seed, --step, --start and --speed need positive numbers\n";
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
  return true;
}

bool writeJson(const std::filesystem::path& path, const nlohmann::json& doc) {
  std::ofstream out(path);
  out << doc.dump(2) << "\n";
  return static_cast<bool>(out);
}

int generate(const Options& o, Scenario& s, Policy policy) {
  if (!o.values.count("out")) {
    std::cerr << "dagadvisor-sim: generate needs --out DIR\n";
    return 2;
  }
  auto begin = std::chrono::steady_clock::now();
  std::filesystem::path dir = o.values.at("out");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  History h = simulate(s, policy);
  std::FILE* f = std::fopen((dir / "metrics.om").c_str(), "wb");
  if (f == nullptr) {
    std::cerr << "dagadvisor-sim: cannot write " << (dir / "metrics.om") << "\n";
    return 1;
  }
  std::size_t samples = writeOpenMetrics(h, f);
  bool ok = std::fclose(f) == 0;
  ok = writeJson(dir / "ground_truth.json", groundTruth(h)) && ok;
  ok = writeJson(dir / "summary.json", summary(h)) && ok;
  if (!ok) {
    std::cerr << "dagadvisor-sim: failed writing into " << dir << "\n";
    return 1;
  }
  Figures fig = computeFigures(h);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::printf(
      "scenario=%s policy=%s seed=%llu nodes=%zu pods=%zu runs=%d/%d mean_makespan_h=%.2f "
      "gpu_util_pct=%.1f samples=%zu bytes=%ju seconds=%.2f\n",
      s.name.c_str(), policyName(policy), static_cast<unsigned long long>(s.seed), h.nodes.size(),
      h.pods.size(), fig.runsFinished, fig.runs, fig.meanMakespanHours, fig.gpuUtilisationPct,
      samples, static_cast<std::uintmax_t>(std::filesystem::file_size(dir / "metrics.om", ec)),
      seconds);
  return 0;
}

int compare(const Scenario& s) {
  History before = simulate(s, Policy::kBaseline);
  History after = simulate(s, Policy::kRemedied);
  Figures b = computeFigures(before);
  Figures a = computeFigures(after);
  std::printf("scenario %s, seed %llu: before (baseline) vs after (remedied)\n", s.name.c_str(),
              static_cast<unsigned long long>(s.seed));
  std::printf("%-28s %12s %12s\n", "metric", "baseline", "remedied");
  std::printf("%-28s %12.2f %12.2f\n", "mean makespan (h)", b.meanMakespanHours,
              a.meanMakespanHours);
  std::printf("%-28s %12.2f %12.2f\n", "max makespan (h)", b.maxMakespanHours, a.maxMakespanHours);
  std::printf("%-28s %12.1f %12.1f\n", "GPU utilisation (%)", b.gpuUtilisationPct,
              a.gpuUtilisationPct);
  std::printf("%-28s %12.1f %12.1f\n", "GPU allocation (%)", b.gpuAllocationPct,
              a.gpuAllocationPct);
  std::printf("%-28s %12.0f %12.0f\n", "mean task queueing (s)", b.meanQueueSeconds,
              a.meanQueueSeconds);
  std::printf("%-28s %9d/%-2d %9d/%-2d\n", "runs finished", b.runsFinished, b.runs, a.runsFinished,
              a.runs);
  return 0;
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
  if (o.command == "generate") {
    return generate(o, s, policy);
  }
  if (o.command == "compare") {
    return compare(s);
  }
  if (o.command == "serve") {
    const std::string histograms =
        o.values.count("histograms") ? o.values.at("histograms") : "classic";
    if (histograms != "classic" && histograms != "native") {
      std::cerr << "dagadvisor-sim: --histograms must be classic or native\n";
      return 2;
    }
    return serve(s, policy, o.values.count("listen") ? o.values.at("listen") : "127.0.0.1:9105",
                 o.speed, histograms == "native");
  }
  std::cerr << kUsage;
  return 2;
}
