// Issue #18: the analysis after an incremental cycle equals the analysis after a full read of the
// same moment. One reader reads every given time in turn (a full read, then window reads); a
// fresh reader reads each time whole; their ClusterSnapshots, written out field by field, must be
// equal. Prints one line per time (what each read cost and how the pods changed) and, with
// --costs, one line per query. For benchmarks (scripts/bench-incremental.sh), --prometheus-pid PID
// adds what each read cost that Prometheus process (CPU seconds, RSS) and --no-compare leaves
// the fresh reader out, so that the CPU is the incremental reader's alone; --usage-from-rules
// reads usage from the mixin's recording rules (usage_from_recording_rules), --staleness-markers
// tells live pods by an instant selection (staleness_markers), --no-gzip asks for plain answers
// (gzip: false), --resync S makes a read at least S after the last full one a full one (the
// daemon's periodic resync, which keeps usage read less than USAGE_REFRESH_S ago; by default
// only the first read is full), and --analyze runs the daemon's whole analysis cycle on each
// read (its CPU and memory: the daemon's steady cycle, without predictions, which are off at the
// reference size; the heap kept as the daemon keeps it, or given back after every cycle with
// --trim-every-cycle) instead of comparing. A time still to come is waited for, so the reads of a
// live Prometheus (scripts/bench-live.sh) see the scrapes up to each time, as the daemon's cycle
// at that moment would.
// Usage: incremental_equals_full [--costs] [--no-compare] [--prometheus-pid PID] [--max-series N]
//          [--resync S] [--usage-from-rules] [--staleness-markers] [--no-gzip] [--analyze]
//          [--trim-every-cycle] URL
//          LOOKBACK_S MARGIN_S USAGE_REFRESH_S T1 T2 …
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/analysis_cycle.h"
#include "app/heap.h"
#include "common/clock.h"
#include "common/log.h"
#include "config/config.h"
#include "ingestion/promql_reader.h"
#include "model/adapters/adapter_registry.h"
#include "model/cluster.h"
#include "sources/prometheus/prometheus_source.h"

namespace {

using namespace dagadvisor;

std::string resources(const model::ResourceVector& r) {
  return std::to_string(r.cpu_millis) + "m/" + std::to_string(r.memory_bytes) + "B/" +
         std::to_string(r.gpus) + "gpu";
}

std::string labels(const model::LabelSet& set) {
  std::string out = "{";
  for (const auto& [key, value] : set.items()) {
    out += key + "=" + value + ",";
  }
  return out + "}";
}

template <class T>
std::string optional(const std::optional<T>& value) {
  if (!value) {
    return "-";
  }
  std::ostringstream out;
  out.precision(17);
  out << *value;
  return out.str();
}

std::string usage(const std::optional<model::ObservedUsage>& u) {
  if (!u) {
    return "usage=-";
  }
  std::ostringstream out;
  out.precision(17);
  out << "usage=" << u->cpu_cores << "," << u->memory_bytes << "," << u->samples << ","
      << optional(u->gpu_utilization_percent);
  return out.str();
}

std::string pod(const model::Pod& p, bool with_usage) {
  std::string out = "pod " + p.namespace_ + "/" + p.name + "/" + p.uid + " node=" + p.node_name +
                    " phase=" + std::string(model::phaseName(p.phase)) +
                    " requests=" + resources(p.requests) + " labels=" + labels(p.labels) +
                    " annotations=" + labels(p.annotations) + " owner=" + p.owner_kind + "/" +
                    p.owner_name + " priority=" + p.priority_class +
                    " created=" + optional(p.created) + " scheduled=" + optional(p.scheduled) +
                    " started=" + optional(p.started) + " finished=" + optional(p.finished);
  if (with_usage) {
    out += " " + usage(p.usage);
  }
  for (const model::ContainerRequests& c : p.containers) {
    out += " container=" + c.name + ":" + resources(c.requests);
  }
  if (p.tolerations) {
    out += " tolerations=";
    for (const model::Toleration& t : *p.tolerations) {
      out += t.key + ":" + t.operator_ + ":" + t.value + ":" + t.effect + ":" +
             optional(t.toleration_seconds) + ";";
    }
  }
  if (p.node_selector) {
    out += " node_selector=" + labels(*p.node_selector);
  }
  return out;
}

std::string node(const model::Node& n) {
  std::string out = "node " + n.name + " allocatable=" + resources(n.allocatable) +
                    " labels=" + labels(n.labels) + (n.unschedulable ? " unschedulable" : "");
  for (const model::Taint& t : n.taints) {
    out += " taint=" + t.key + ":" + t.value + ":" + t.effect;
  }
  return out;
}

std::string scheduler(const model::SchedulerStats& s) {
  std::ostringstream out;
  out.precision(17);
  out << "scheduler present=" << s.present << " metric=" << s.latency_metric;
  for (const model::ProfileLatency& p : s.latency) {
    out << " " << p.profile << ":" << optional(p.p50) << "," << optional(p.p95) << ","
        << optional(p.p99) << "," << p.pods_per_second;
  }
  for (const auto* map : {&s.pending_by_queue, &s.unschedulable_by_plugin, &s.attempts_per_second,
                          &s.extension_point_p99}) {
    for (const auto& [key, value] : *map) {
      out << " " << key << "=" << value;
    }
  }
  out << " preemption=" << s.preemption_attempts_per_second;
  return out.str();
}

// Each pod's annotations among `keys` (all of them when empty), with the pods with any.
struct Annotations {
  std::set<std::string> by_pod;
  std::size_t annotated = 0;
};

Annotations annotations(const model::ClusterSnapshot& snapshot,
                        const std::vector<std::string>& keys) {
  Annotations out;
  for (const model::Pod& p : snapshot.pods()) {
    std::string line = p.namespace_ + "/" + p.name + "/" + p.uid + " {";
    bool any = false;
    for (const auto& [key, value] : p.annotations.items()) {
      if (keys.empty() || std::find(keys.begin(), keys.end(), key) != keys.end()) {
        line += key + "=" + value + ",";
        any = true;
      }
    }
    out.by_pod.insert(line + "}");
    out.annotated += any ? 1 : 0;
  }
  return out;
}

std::vector<std::string> lines(const model::ClusterSnapshot& snapshot, bool with_usage) {
  std::vector<std::string> out;
  for (const model::Node& n : snapshot.nodes()) {
    out.push_back(node(n));
  }
  for (const model::Pod& p : snapshot.pods()) {
    out.push_back(pod(p, with_usage));
  }
  out.push_back(scheduler(snapshot.scheduler()));
  out.push_back("spec_families tolerations=" + std::to_string(snapshot.specFamilies().tolerations) +
                " node_selectors=" + std::to_string(snapshot.specFamilies().node_selectors));
  return out;
}

std::set<std::string> podKeys(const model::ClusterSnapshot& snapshot) {
  std::set<std::string> out;
  for (const model::Pod& p : snapshot.pods()) {
    out.insert(p.namespace_ + "/" + p.name + "/" + p.uid);
  }
  return out;
}

std::size_t missingFrom(const std::set<std::string>& a, const std::set<std::string>& b) {
  std::size_t n = 0;
  for (const std::string& key : a) {
    n += b.count(key) == 0 ? 1 : 0;
  }
  return n;
}

bool readUsage(const ingestion::FetchStats& stats) {
  for (const ingestion::QueryCost& cost : stats.costs) {
    if (cost.query.starts_with("pod_usage_")) {
      return true;
    }
  }
  return false;
}

struct Totals {
  std::size_t bytes = 0;
  std::size_t series = 0;
  double eval_seconds = 0;
  double samples = 0;
};

Totals totals(const ingestion::FetchStats& stats, bool print, const char* who) {
  Totals t;
  for (const ingestion::QueryCost& cost : stats.costs) {
    t.bytes += cost.bytes;
    t.series += cost.series;
    const double eval = cost.backend ? cost.backend->eval_seconds : 0;
    const double samples = cost.backend ? cost.backend->queryable_samples : 0;
    t.eval_seconds += eval;
    t.samples += samples;
    if (print) {
      std::printf("  %s %-20s requests=%zu bytes=%zu series=%zu eval_s=%.4f samples=%.0f\n", who,
                  cost.query.c_str(), cost.requests, cost.bytes, cost.series, eval, samples);
    }
  }
  return t;
}

// What a process has cost so far: CPU seconds (user + system) and RSS now and at its peak (kB).
struct ProcessCost {
  double cpu_seconds = 0;
  long rss_kb = 0;
  long peak_rss_kb = 0;
};

ProcessCost processCost(long pid) {
  ProcessCost cost;
  if (pid <= 0) {
    return cost;
  }
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::vector<std::string> f;
  for (std::string word; fields >> word;) {
    f.push_back(word);
  }
  if (f.size() > 12) {
    cost.cpu_seconds =
        (std::stod(f[11]) + std::stod(f[12])) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string row; std::getline(status, row);) {
    if (row.rfind("VmRSS:", 0) == 0) {
      cost.rss_kb = std::stol(row.substr(6));
    } else if (row.rfind("VmHWM:", 0) == 0) {
      cost.peak_rss_kb = std::stol(row.substr(6));
    }
  }
  return cost;
}

std::unique_ptr<sources::MetricsSource> openSource(const std::string& url, bool gzip) {
  sources::PrometheusOptions options;
  options.url = url;
  options.http.accept_compressed = gzip;
  options.timeout = std::chrono::milliseconds(120000);
  auto source = sources::PrometheusSource::create(std::move(options));
  if (!source.ok()) {
    std::cerr << source.error().describe() << "\n";
    std::exit(2);
  }
  return std::move(source).value();
}

// Prints the first differences; true when there is none.
bool same(const std::vector<std::string>& incremental, const std::vector<std::string>& full) {
  if (incremental == full) {
    return true;
  }
  const std::set<std::string> a(incremental.begin(), incremental.end());
  const std::set<std::string> b(full.begin(), full.end());
  int shown = 0;
  for (const std::string& line : b) {
    if (a.count(line) == 0 && shown++ < 10) {
      std::cout << "  full only:        " << line << "\n";
    }
  }
  for (const std::string& line : a) {
    if (b.count(line) == 0 && shown++ < 20) {
      std::cout << "  incremental only: " << line << "\n";
    }
  }
  return false;
}

// The daemon's cycle on each time in turn: read, runs, graphs, detectors, advice. Prints what
// each cost this process (CPU seconds, RSS now and at its peak) and, with `prometheus_pid`,
// that Prometheus.
int analyzeEach(ingestion::ClusterReader& reader, const config::Config& config,
                const std::vector<std::string>& times, long prometheus_pid, bool trim_every_cycle) {
  SystemClock clock;
  advice::RecommendationHistory history;
  app::useOneHeapArena();  // as the daemon runs (serve.cpp)
  for (const std::string& time : times) {
    const UnixSeconds at = std::stod(time);
    const double wait = at - clock.now();
    if (wait > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    }
    // The peak counted from here: this cycle's own.
    std::ofstream("/proc/self/clear_refs") << "5";
    const ProcessCost before = processCost(prometheus_pid);
    const ProcessCost own_before = processCost(getpid());
    const auto started = std::chrono::steady_clock::now();
    auto report = app::runAnalysisCycle(reader, config, at, clock, &history);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const ProcessCost after = processCost(prometheus_pid);
    const ProcessCost own_after = processCost(getpid());
    if (!report.ok()) {
      std::cout << "t=" << time << " cycle failed: " << report.error().describe() << "\n";
      return 1;
    }
    // As the daemon does between cycles, or as it did before (--trim-every-cycle).
    app::releaseHeapAfter(trim_every_cycle ? nullptr : report->get());
    const report::AnalysisReport& r = **report;
    const bool window = !r.query_costs.empty() && r.query_costs.front().read == "window";
    std::size_t series = 0;
    for (const report::QueryCostRow& cost : r.query_costs) {
      series += cost.series;
    }
    std::printf(
        "cycle t=%s read=%s pods=%zu runs=%zu recommendations=%zu wall_s=%.3f cpu_s=%.3f "
        "rss_kb=%ld peak_rss_kb=%ld bytes=%zu series=%zu prometheus_cpu_s=%.3f "
        "prometheus_rss_growth_kb=%ld prometheus_rss_kb=%ld\n",
        time.c_str(), window ? "window" : "full", r.summary.pods, r.runs.size(),
        r.recommendations.size(), wall, own_after.cpu_seconds - own_before.cpu_seconds,
        own_after.rss_kb, own_after.peak_rss_kb, r.bytes_received, series,
        after.cpu_seconds - before.cpu_seconds, after.rss_kb - before.rss_kb, after.rss_kb);
    std::fflush(stdout);  // each cycle as it ends: live reads are a minute apart
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  bool print_costs = false;
  bool compare = true;
  long prometheus_pid = 0;
  long max_series = 0;          // 0: the default cap
  double resync_seconds = 1e9;  // by default only the first read is a full one
  bool usage_from_rules = false;
  bool staleness_markers = false;
  bool analyze = false;
  bool trim_every_cycle = false;
  bool gzip = true;
  while (!args.empty() && args[0].rfind("--", 0) == 0) {
    if (args[0] == "--costs") {
      print_costs = true;
    } else if (args[0] == "--no-compare") {
      compare = false;
    } else if (args[0] == "--usage-from-rules") {
      usage_from_rules = true;
    } else if (args[0] == "--staleness-markers") {
      staleness_markers = true;
    } else if (args[0] == "--no-gzip") {
      gzip = false;
    } else if (args[0] == "--analyze") {
      analyze = true;
    } else if (args[0] == "--trim-every-cycle") {
      trim_every_cycle = true;
    } else if (args[0] == "--prometheus-pid" && args.size() > 1) {
      prometheus_pid = std::stol(args[1]);
      args.erase(args.begin());
    } else if (args[0] == "--resync" && args.size() > 1) {
      resync_seconds = std::stod(args[1]);
      args.erase(args.begin());
    } else if (args[0] == "--max-series" && args.size() > 1) {
      max_series = std::stol(args[1]);
      args.erase(args.begin());
    }
    args.erase(args.begin());
  }
  if (args.size() < 5) {
    std::cerr << "usage: incremental_equals_full [--costs] [--no-compare] [--prometheus-pid PID] "
                 "[--max-series N] [--resync S] [--usage-from-rules] [--staleness-markers] "
                 "[--no-gzip] "
                 "[--analyze] [--trim-every-cycle] URL "
                 "LOOKBACK_S "
                 "MARGIN_S "
                 "USAGE_REFRESH_S T1 T2 …\n";
    return 2;
  }
  config::PrometheusSource settings;
  settings.url = args[0];
  settings.lookback = config::Seconds(std::stod(args[1]));
  settings.incremental.margin = config::Seconds(std::stod(args[2]));
  settings.incremental.usage_refresh = config::Seconds(std::stod(args[3]));
  settings.incremental.resync = config::Seconds(resync_seconds);
  settings.usage_from_recording_rules = usage_from_rules;
  settings.staleness_markers = staleness_markers;
  settings.gzip = gzip;
  if (max_series > 0) {
    settings.max_series_per_query = static_cast<int>(max_series);
  }
  config::PrometheusSource full_settings = settings;
  full_settings.incremental.resync = config::Seconds(0);

  const auto source = openSource(settings.url, gzip);
  // The annotations the daemon asks: those its engine adapters read (app/setup.cpp).
  const ingestion::AnnotationKeys annotations_read =
      model::podAnnotationsRead(config::WorkflowLabels{});
  ingestion::PromqlClusterReader incremental(*source, settings, annotations_read);
  if (analyze) {
    log::setLevel(log::Level::kDebug);  // the cycle's stage times
    config::Config config;
    config.sources.prometheus = settings;
    return analyzeEach(incremental, config, {args.begin() + 4, args.end()}, prometheus_pid,
                       trim_every_cycle);
  }
  std::set<std::string> previous;
  int failures = 0;
  std::size_t window_reads = 0;
  for (std::size_t i = 4; i < args.size(); ++i) {
    const UnixSeconds at = std::stod(args[i]);
    ingestion::FetchStats incremental_stats;
    ingestion::FetchStats full_stats;
    const ProcessCost before = processCost(prometheus_pid);
    const ProcessCost reader_before = processCost(getpid());
    const auto started = std::chrono::steady_clock::now();
    auto a = incremental.read(at, incremental_stats);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const ProcessCost after = processCost(prometheus_pid);
    const ProcessCost reader_after = processCost(getpid());
    if (prometheus_pid > 0) {
      // The reader's own figures are the daemon's fetch stage: decode, build, merge, keep.
      std::printf(
          "prometheus t=%s read=%s cpu_s=%.3f rss_growth_kb=%ld peak_rss_kb=%ld wall_s=%.3f "
          "reader_cpu_s=%.3f reader_rss_kb=%ld reader_peak_rss_kb=%ld\n",
          args[i].c_str(), incremental_stats.window_read ? "window" : "full",
          after.cpu_seconds - before.cpu_seconds, after.rss_kb - before.rss_kb, after.peak_rss_kb,
          wall, reader_after.cpu_seconds - reader_before.cpu_seconds, reader_after.rss_kb,
          reader_after.peak_rss_kb);
    }
    if (!a.ok()) {
      std::cout << "t=" << args[i] << " read failed: " << a.error().describe() << "\n";
      return 1;
    }
    const bool window = incremental_stats.window_read;
    window_reads += window ? 1 : 0;
    const Totals ti = totals(incremental_stats, print_costs, window ? "window" : "full  ");
    if (!compare) {
      std::printf(
          "t=%s read=%s pods=%zu | incremental: queries=%zu bytes=%zu series=%zu "
          "eval_s=%.3f samples=%.0f\n",
          args[i].c_str(), window ? "window" : "full", a->pods().size(), incremental_stats.queries,
          ti.bytes, ti.series, ti.eval_seconds, ti.samples);
      continue;
    }
    ingestion::PromqlClusterReader fresh(*source, full_settings, annotations_read);
    auto b = fresh.read(at, full_stats);
    if (!b.ok()) {
      std::cout << "t=" << args[i] << " full read failed: " << b.error().describe() << "\n";
      return 1;
    }
    // An optional query that failed (a timeout under load) makes the two reads differ without
    // either being wrong: say so next to the difference.
    for (const auto* stats : {&incremental_stats, &full_stats}) {
      for (const std::string& warning : stats->warnings) {
        std::cout << "  " << (stats == &full_stats ? "full" : "incremental")
                  << " read warned: " << warning << "\n";
      }
    }
    // Usage is kept between its refreshes: compared when this read refreshed it.
    const bool with_usage = readUsage(incremental_stats);
    bool equal = same(lines(*a, with_usage), lines(*b, with_usage));
    // The first time, the keyed annotations against every annotation a recording asks.
    if (i == 4) {
      ingestion::PromqlClusterReader every(*source, full_settings);
      ingestion::FetchStats every_stats;
      auto c = every.read(at, every_stats);
      const Annotations keyed = annotations(*b, *annotations_read);
      const bool same_annotations =
          c.ok() && keyed.by_pod == annotations(*c, *annotations_read).by_pod;
      std::printf("t=%s annotated_pods=%zu (%zu with any annotation) keyed_annotations=%s\n",
                  args[i].c_str(), keyed.annotated, c.ok() ? annotations(*c, {}).annotated : 0,
                  same_annotations ? "same" : "DIFFERENT");
      equal = equal && same_annotations;
    }
    failures += equal ? 0 : 1;
    const std::set<std::string> keys = podKeys(*b);
    const Totals tf = totals(full_stats, print_costs, "full  ");
    std::printf(
        "t=%s read=%s usage=%s pods=%zu new=%zu gone=%zu | incremental: queries=%zu bytes=%zu "
        "series=%zu eval_s=%.3f samples=%.0f | full: queries=%zu bytes=%zu series=%zu "
        "eval_s=%.3f samples=%.0f | %s\n",
        args[i].c_str(), window ? "window" : "full", with_usage ? "compared" : "kept", keys.size(),
        missingFrom(keys, previous), missingFrom(previous, keys), incremental_stats.queries,
        ti.bytes, ti.series, ti.eval_seconds, ti.samples, full_stats.queries, tf.bytes, tf.series,
        tf.eval_seconds, tf.samples, equal ? "equal" : "DIFFERENT");
    previous = keys;
  }
  std::printf("window_reads=%zu failures=%d\n", window_reads, failures);
  return failures == 0 ? 0 : 1;
}
