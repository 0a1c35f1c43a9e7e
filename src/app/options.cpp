// The only translation unit that includes cxxopts (it is slow to compile; see TOOLCHAIN.md).
#define CXXOPTS_NO_REGEX 1
#include "app/options.h"

#include <cxxopts.hpp>

namespace dagadvisor::app {
namespace {

constexpr const char* kCommands = R"(Commands:
  serve             analyse every interval and serve the API, /metrics and health checks
  analyze           run one analysis and print the report (table, json or yaml)
  snapshot record   record every query of one analysis into a directory, for replay
  whatif            schedule a planned DAG with HEFT (--plan FILE.json), or replay the observed
                    window with recommendations applied (--apply ID,...|all; see docs/whatif.md)
  check-config      validate a config file and print the effective configuration
  version           print the version

Examples:
  dagadvisor analyze --prometheus http://127.0.0.1:9090 --at 2026-11-29T03:00:00Z
  dagadvisor analyze --snapshot config/scenarios/default --output json
  dagadvisor analyze --snapshot config/scenarios/default --details
  dagadvisor serve --config /etc/dagadvisor/dagadvisor.yaml
  dagadvisor snapshot record --prometheus http://127.0.0.1:9090 --out /tmp/snap
  dagadvisor whatif --plan tests/fixtures/plans/topcuoglu2002.json
  dagadvisor whatif --snapshot config/scenarios/default --apply all

Exit codes: 0 success, 1 the analysis or a source failed, 2 bad usage or configuration.)";

template <typename T>
void copyIfSet(const cxxopts::ParseResult& parsed, const char* name, std::optional<T>& out) {
  if (parsed.count(name) != 0) {
    out = parsed[name].as<T>();
  }
}

Result<std::string> commandFrom(const std::vector<std::string>& words) {
  if (words.empty()) {
    return std::string("help");
  }
  const std::string& first = words[0];
  if (first == "snapshot") {
    if (words.size() == 2 && words[1] == "record") {
      return std::string("snapshot-record");
    }
    return makeError("usage: dagadvisor snapshot record --out DIR (--prometheus URL | ...)");
  }
  if (words.size() > 1) {
    return makeError("unexpected argument '" + words[1] + "' after '" + first + "'");
  }
  for (const char* known : {"serve", "analyze", "whatif", "check-config", "version", "help"}) {
    if (first == known) {
      return first;
    }
  }
  return makeError("unknown command '" + first + "'; try: dagadvisor --help");
}

}  // namespace

Result<CliOptions> parseOptions(int argc, char** argv) {
  cxxopts::Options spec("dagadvisor",
                        "Tells why DAG workflows on Kubernetes are slow and what to change.\n"
                        "Reads kube-state-metrics and kube-scheduler metrics from Prometheus "
                        "(or Thanos, Mimir, VictoriaMetrics); never changes the cluster.\n");
  spec.custom_help("<command> [options]");
  spec.positional_help("");
  // clang-format off
  spec.add_options()
    ("c,config", "YAML config file (see config/dagadvisor.example.yaml)", cxxopts::value<std::string>())
    ("prometheus", "Prometheus-compatible base URL, e.g. http://127.0.0.1:9090", cxxopts::value<std::string>())
    ("snapshot", "replay a recorded snapshot directory instead of querying Prometheus", cxxopts::value<std::string>())
    ("objects", "workflow objects from `kubectl get ... -o json` files, read instead of the Kubernetes API (repeatable)", cxxopts::value<std::vector<std::string>>())
    ("at", "analysis time, RFC 3339 or unix seconds (default: now, or the snapshot's time)", cxxopts::value<std::string>())
    ("o,output", "analyze: table, json or yaml", cxxopts::value<std::string>()->default_value("table"))
    ("details", "analyze: every recommendation in full (evidence, patches), not one line each")
    ("recommendation", "analyze: only this recommendation (its id), in full", cxxopts::value<std::string>())
    ("out", "snapshot record: the directory to write", cxxopts::value<std::string>())
    ("plan", "whatif: the plan file (processors, tasks, edges) as JSON", cxxopts::value<std::string>())
    ("apply", "whatif: replay the window with these recommendations applied (ID[,ID...] or all)", cxxopts::value<std::string>())
    ("listen", "serve: host:port to listen on (default 127.0.0.1:9731)", cxxopts::value<std::string>())
    ("interval", "serve: time between analyses, e.g. 60s", cxxopts::value<std::string>())
    ("cluster", "cluster name carried by every output", cxxopts::value<std::string>())
    ("log-level", "debug, info, warn or error", cxxopts::value<std::string>())
    ("log-format", "logfmt or json", cxxopts::value<std::string>())
    ("print-default-config", "check-config: print the defaults as YAML")
    ("h,help", "show this help")
    ("words", "command", cxxopts::value<std::vector<std::string>>());
  // clang-format on
  spec.parse_positional({"words"});
  CliOptions out;
  out.help_text = spec.help() + "\n" + kCommands + "\n";
  try {
    const auto parsed = spec.parse(argc, argv);
    const auto words = parsed.count("words") ? parsed["words"].as<std::vector<std::string>>()
                                             : std::vector<std::string>{};
    auto command = commandFrom(words);
    if (!command.ok()) {
      return command.error();
    }
    out.command = parsed.count("help") ? "help" : *command;
    if (parsed.count("config")) {
      out.config_path = parsed["config"].as<std::string>();
    }
    copyIfSet(parsed, "prometheus", out.prometheus_url);
    copyIfSet(parsed, "snapshot", out.snapshot_dir);
    copyIfSet(parsed, "at", out.at);
    if (parsed.count("objects") != 0) {
      out.object_files = parsed["objects"].as<std::vector<std::string>>();
    }
    copyIfSet(parsed, "listen", out.listen);
    copyIfSet(parsed, "interval", out.interval);
    copyIfSet(parsed, "cluster", out.cluster);
    copyIfSet(parsed, "log-level", out.log_level);
    copyIfSet(parsed, "log-format", out.log_format);
    out.output = parsed["output"].as<std::string>();
    out.details = parsed.count("details") != 0;
    if (parsed.count("recommendation") != 0) {
      out.recommendation_id = parsed["recommendation"].as<std::string>();
    }
    if (parsed.count("plan")) {
      out.plan_path = parsed["plan"].as<std::string>();
    }
    if (parsed.count("apply") != 0) {
      out.apply = parsed["apply"].as<std::string>();
    }
    if (parsed.count("out")) {
      out.out_dir = parsed["out"].as<std::string>();
    }
    out.print_default_config = parsed.count("print-default-config") != 0;
  } catch (const cxxopts::exceptions::exception& e) {
    return makeError(std::string(e.what()) + "; try: dagadvisor --help");
  }
  if (out.output != "table" && out.output != "json" && out.output != "yaml") {
    return makeError("--output must be table, json or yaml, not '" + out.output + "'");
  }
  return out;
}

}  // namespace dagadvisor::app
