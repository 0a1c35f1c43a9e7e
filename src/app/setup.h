#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/options.h"
#include "common/clock.h"
#include "common/result.h"
#include "config/config.h"
#include "ingestion/cluster_reader.h"
#include "model/adapters/object_source.h"
#include "sources/airflow/airflow_source.h"
#include "sources/kubernetes/kube_list_source.h"
#include "sources/metrics_source.h"

namespace dagadvisor::app {

/// The config file (or the defaults) with the command line's overrides applied and validated.
/// On failure the message lists every error, one per line, each naming its field.
Result<config::Config> loadEffectiveConfig(const CliOptions& cli);

/// Applies the config's logging settings.
void configureLogging(const config::Config& config);

/// The data source the config names, the reader that builds each cycle's cluster from it, and the
/// time a snapshot was recorded for (the default analysis time when replaying). `source` is the
/// Prometheus-API source the reader asks (a server or a snapshot); null for a direct scrape,
/// whose reader owns its scraper.
/// `kubernetes` is the API server when sources.kubernetes is enabled, the recorded LISTs when
/// replaying a snapshot that has them, else null. `airflow` is the Airflow REST API when
/// sources.airflow is enabled (never while replaying: snapshots do not record it), else null.
struct SourceSetup {
  sources::MetricsSourcePtr source;
  ingestion::ClusterReaderPtr reader;  // declared after `source`, which it may read
  std::optional<UnixSeconds> recorded_at;
  sources::KubeListSourcePtr kubernetes;
  std::unique_ptr<sources::AirflowApi> airflow{};
};

/// Who reads: one analysis (`analyze`, `snapshot record`, `whatif`, a daemon analysing a fixed
/// `--at`), which reads the catalog once and keeps nothing, or a daemon's cycles over a moving
/// clock, which read incrementally when sources.prometheus.incremental.resync is above 0 (the
/// state they keep, and the pod_seen query that maintains it, pay off only from the second read).
enum class Reads { kOnce, kRepeated };
Result<SourceSetup> openSource(const config::Config& config, Reads reads = Reads::kOnce);

/// The sources of workflow objects (exact task edges) for one cycle, reading through
/// `kubernetes` and `airflow` (either may be null; not owned, must outlive the result).
std::vector<model::ObjectSourcePtr> objectSources(const config::Config& config,
                                                  sources::KubeListSource* kubernetes,
                                                  sources::AirflowApi* airflow = nullptr);

/// `--at` if given, else the snapshot's time, else now.
Result<UnixSeconds> analysisTime(const CliOptions& cli, const SourceSetup& setup,
                                 const Clock& clock);

}  // namespace dagadvisor::app
