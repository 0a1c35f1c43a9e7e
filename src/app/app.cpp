#include "app/app.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "advice/kind_list.h"
#include "app/analysis_cycle.h"
#include "app/config_check.h"
#include "app/one_analysis.h"
#include "app/serve.h"
#include "app/setup.h"
#include "app/whatif_apply.h"
#include "app/whatif_command.h"
#include "common/duration.h"
#include "common/log.h"
#include "common/secrets.h"
#include "config/config_loader.h"
#include "report/report_json.h"
#include "report/report_text.h"
#include "report/report_yaml.h"
#include "sources/http_client.h"
#include "sources/prometheus/response_parser.h"
#include "sources/snapshot/snapshot_writer.h"

namespace dagadvisor::app {
namespace {

const log::Logger kLog("app");

int fail(int code, const std::string& message) {
  std::cerr << "dagadvisor: " << scrubSecrets(message) << "\n";
  return code;
}

bool hasRecommendation(const report::AnalysisReport& report, const std::string& id) {
  return std::any_of(report.recommendations.begin(), report.recommendations.end(),
                     [&](const advice::Recommendation& rec) { return rec.id == id; });
}

int printReport(const report::AnalysisReport& report, const CliOptions& cli, const Clock& clock) {
  // The last boundary: whatever a backend wrote into the data (labels, warnings) may echo a
  // credential, and the report leaves the process here.
  if (cli.output == "json") {
    std::cout << scrubSecrets(report::reportJson(report, clock.now(), false).dump(2)) << "\n";
  } else if (cli.output == "yaml") {
    std::cout << scrubSecrets(report::renderYaml(report, clock.now(), false));
  } else {
    if (!cli.recommendation_id.empty() && !hasRecommendation(report, cli.recommendation_id)) {
      return fail(kExitUsage, "--recommendation: no recommendation has the id '" +
                                  cli.recommendation_id + "' in this analysis");
    }
    report::TextOptions options;
    options.details = cli.details;
    options.recommendation_id = cli.recommendation_id;
    std::cout << scrubSecrets(report::renderText(report, options));
  }
  return kExitOk;
}

int analyze(const CliOptions& cli, const config::Config& config) {
  SystemClock clock;
  const OneAnalysis analysis = runOneAnalysis(cli, config, clock);
  if (!analysis.report) {
    return fail(analysis.exit_code, analysis.error);
  }
  return printReport(*analysis.report, cli, clock);
}

int recordSnapshot(const CliOptions& cli, config::Config config) {
  if (cli.out_dir.empty()) {
    return fail(kExitUsage, "snapshot record needs --out DIR");
  }
  config.sources.snapshot_dir.clear();
  SystemClock clock;
  auto setup = openSource(config);
  if (!setup.ok()) {
    return fail(kExitUsage, setup.error().describe());
  }
  auto at = analysisTime(cli, *setup, clock);
  if (!at.ok()) {
    return fail(kExitUsage, at.error().describe());
  }
  // The reader's query answers are recorded, whatever the reader: a direct scrape's are its
  // local evaluation rendered as Prometheus bodies, so one replay path reads every snapshot.
  sources::SnapshotWriter writer(setup->reader->recordedAnswers(), cli.out_dir, &clock);
  setup->reader->recordInto(writer);
  sources::KubeListSource* kubernetes =
      setup->kubernetes ? &writer.recordKubernetes(*setup->kubernetes) : nullptr;
  sources::AirflowApi* airflow = setup->airflow ? &writer.recordAirflow(*setup->airflow) : nullptr;
  const auto objects = objectSources(config, kubernetes, airflow);
  auto report = runAnalysisCycle(*setup->reader, config, *at, clock, nullptr, objects);
  if (!report.ok()) {
    return fail(kExitFailure, report.error().describe());
  }
  if (auto done = writer.finish(*at); !done.ok()) {
    return fail(kExitFailure, done.error().describe());
  }
  std::cout << "recorded " << writer.recordedCount() << " queries";
  if (kubernetes != nullptr) {
    std::cout << " and " << writer.recordedKubeLists() << " Kubernetes LISTs";
  }
  std::cout << " at " << formatTimestamp(*at) << " into " << cli.out_dir << "\n";
  return kExitOk;
}

int checkConfig(const CliOptions& cli, const config::Config& config) {
  if (const auto problem = configFilesProblem(config)) {
    return fail(kExitUsage, problem->message);
  }
  if (!cli.print_default_config) {
    std::cerr << (cli.config_path.empty() ? std::string("defaults") : cli.config_path)
              << ": configuration is valid\n";
  }
  // Credential headers (X-Api-Key…) are configured in clear; their values were registered by
  // checkConfigFiles.
  std::cout << scrubSecrets(
      config::renderConfigYaml(cli.print_default_config ? advice::defaultConfig() : config));
  return kExitOk;
}

int runCommand(int argc, char** argv) {
  auto cli = parseOptions(argc, argv);
  if (!cli.ok()) {
    return fail(kExitUsage, cli.error().describe());
  }
  if (cli->command == "help") {
    std::cout << cli->help_text;
    return kExitOk;
  }
  if (cli->command == "version") {
    std::cout << "dagadvisor " << DAGADVISOR_VERSION << "\n"
              << "json decoder: simdjson On-Demand, " << sources::decoderKernel() << " kernel\n";
    return kExitOk;
  }
  if (cli->command == "whatif" && cli->apply.empty()) {
    if (cli->plan_path.empty()) {
      return fail(kExitUsage,
                  "whatif needs --plan FILE.json or --apply ID[,ID...]|all (see docs/whatif.md)");
    }
    return runWhatIfCommand(cli->plan_path, cli->output, std::cout, std::cerr);
  }
  auto config = loadEffectiveConfig(*cli);
  if (!config.ok()) {
    return fail(kExitUsage,
                "invalid configuration (" + config.error().field + "):\n" + config.error().message);
  }
  configureLogging(*config);
  sources::initHttpGlobal();
  if (cli->command == "check-config") {
    return checkConfig(*cli, *config);
  }
  if (cli->command == "analyze") {
    return analyze(*cli, *config);
  }
  if (cli->command == "whatif") {
    return runWhatIfApply(*cli, *config, std::cout, std::cerr);
  }
  if (cli->command == "snapshot-record") {
    return recordSnapshot(*cli, *config);
  }
  return serve(*cli, std::move(config).value());
}

}  // namespace

// The one boundary around every command: under a memory limit (ulimit -v, a container's) a
// large answer ends in std::bad_alloc wherever it is decoded or modelled, which must be an
// error and exit 1, never an abort (exit 134). The daemon's cycles have their own boundary and
// go on.
int run(int argc, char** argv) {
  try {
    return runCommand(argc, argv);
  } catch (const std::bad_alloc&) {
    return fail(kExitFailure,
                "out of memory (std::bad_alloc): the data did not fit in the memory this process "
                "may use; lower sources.prometheus.max_series_per_query or raise the limit");
  } catch (const std::exception& e) {
    return fail(kExitFailure, std::string("failed on an unexpected exception: ") + e.what());
  }
}

}  // namespace dagadvisor::app
