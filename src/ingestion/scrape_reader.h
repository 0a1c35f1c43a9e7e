#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>

#include "common/result.h"
#include "config/config.h"
#include "ingestion/cluster_reader.h"
#include "ingestion/query_catalog.h"
#include "ingestion/scrape_eval.h"
#include "model/cluster.h"
#include "sources/http_client.h"
#include "sources/metrics_source.h"
#include "sources/scrape/scraper.h"

namespace dagadvisor::ingestion {

/// Scrapes every target of `scraper` once into `evaluator`, as one cycle at the scrape time;
/// returns the number of targets read.
Result<std::size_t> scrapeCycle(sources::scrape::Scraper& scraper, ScrapeEvaluator& evaluator,
                                UnixSeconds now);

/// The answers of a direct scrape's last evaluation as Prometheus instant-vector bodies, by
/// catalog query name: what `snapshot record` keeps of a direct scrape (a snapshot holds the
/// evaluated bodies, not the raw expositions, so a replay needs no evaluator state such as the
/// counters of the previous cycle). It never scrapes: ScrapeClusterReader::read() does.
class ScrapeAnswers final : public sources::MetricsSource {
 public:
  ScrapeAnswers(const ScrapeEvaluator& evaluator, const config::PrometheusSource& settings,
                std::string description);

  /// The samples query `query.name` gets from the last evaluation; other names are an Error.
  Result<sources::QueryBody> instantQuery(const sources::Query& query, UnixSeconds at) override;
  std::string describe() const override { return description_; }

 private:
  const ScrapeEvaluator& evaluator_;
  QueryCatalog catalog_;
  std::string description_;
  std::array<std::size_t, kQueryCount> body_sizes_{};  // of the last recording: the next's guess
};

/// Reads the cluster from /metrics endpoints or exposition files, without Prometheus: each read
/// scrapes every target once and evaluates the catalog's queries locally (ScrapeEvaluator), then
/// builds the snapshot straight from the evaluation, with no JSON in between. Kept across
/// cycles, it remembers pods for sources.scrape.lookback and counters for rates.
class ScrapeClusterReader final : public ClusterReader {
 public:
  /// `clock` (nullptr: the system clock) stamps each scrape.
  ScrapeClusterReader(std::unique_ptr<sources::scrape::Scraper> scraper,
                      const config::Sources& settings, const Clock* clock = nullptr);

  /// Scrapes every target and builds the snapshot at `at`. `stats` counts one query per target
  /// read and the exposition bytes. A failing target is an Error naming it; the evaluator then
  /// keeps the previous read's counters. When recording, every catalog query's answer is then
  /// run through the writer.
  Result<model::ClusterSnapshot> read(UnixSeconds at, FetchStats& stats) override;
  std::string describe() const override { return scraper_->describe(); }
  sources::MetricsSource& recordedAnswers() override { return answers_; }
  void recordInto(sources::SnapshotWriter& writer) override { recording_ = &writer; }

 private:
  Result<void> record(UnixSeconds at);

  std::unique_ptr<sources::scrape::Scraper> scraper_;
  ScrapeEvaluator evaluator_;
  ScrapeAnswers answers_;
  QueryCatalog catalog_;
  const Clock* clock_;
  SystemClock system_clock_;
  sources::SnapshotWriter* recording_ = nullptr;
};

/// The samples of query `id` as the body of a Prometheus instant-vector response, with room
/// reserved for `size_hint` bytes.
sources::BodyBuffer renderInstantVector(const ScrapeEvaluator& evaluator, QueryId id,
                                        std::size_t size_hint = 0);

}  // namespace dagadvisor::ingestion
