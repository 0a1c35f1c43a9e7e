#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "config/config.h"
#include "model/cluster.h"
#include "model/cluster_fetch.h"
#include "model/query_catalog.h"
#include "model/scrape_eval.h"
#include "sources/http_client.h"
#include "sources/metrics_source.h"
#include "sources/scrape/scraper.h"

namespace dagadvisor::model {

/// Scrapes every target of `scraper` once into `evaluator`, as one cycle at the scrape time;
/// returns the number of targets read.
Result<std::size_t> scrapeCycle(sources::scrape::Scraper& scraper, ScrapeEvaluator& evaluator,
                                UnixSeconds now);

/// The direct scrape behind the MetricsSource interface, so that `snapshot record` and replay
/// treat it like Prometheus: the first query of a cycle (a new analysis time, or a query already
/// answered) scrapes every target and evaluates locally; each query then gets the samples its
/// PromQL would have returned, as a Prometheus API JSON body. A recorded snapshot therefore
/// holds the evaluated bodies, not the raw expositions. The analysis cycle skips those bodies
/// and calls fetchSnapshot(), which builds the same ClusterSnapshot straight from the
/// evaluation. Kept across cycles, it remembers pods for sources.scrape.lookback and counters
/// for rates.
class ScrapeMetricsSource final : public sources::MetricsSource {
 public:
  /// `clock` (nullptr: the system clock) stamps each scrape.
  ScrapeMetricsSource(std::unique_ptr<sources::scrape::Scraper> scraper,
                      const config::Sources& settings, const Clock* clock = nullptr);

  /// Answers a catalog query by name; other names are an Error.
  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds at) override;
  std::string describe() const override;

  /// One cycle without the JSON bodies: scrapes every target, evaluates locally and builds the
  /// snapshot at `at` (what fetchClusterSnapshot over instantQuery gives, at a third of the
  /// cost). `stats` counts one query per target read and the exposition bytes. A failing target
  /// is an Error naming it; the evaluator then keeps the previous cycle's counters.
  Result<ClusterSnapshot> fetchSnapshot(UnixSeconds at, FetchStats& stats);

 private:
  Result<std::size_t> scrapeNow();

  std::unique_ptr<sources::scrape::Scraper> scraper_;
  ScrapeEvaluator evaluator_;
  QueryCatalog catalog_;
  const Clock* clock_;
  SystemClock system_clock_;
  std::optional<UnixSeconds> cycle_at_;
  std::array<bool, kQueryCount> answered_{};
  std::array<std::size_t, kQueryCount> body_sizes_{};  // of the last cycle: the next one's guess
};

/// The samples of query `id` as the body of a Prometheus instant-vector response, with room
/// reserved for `size_hint` bytes.
std::string renderInstantVector(const ScrapeEvaluator& evaluator, QueryId id,
                                std::size_t size_hint = 0);

}  // namespace dagadvisor::model
