#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "report/analysis_report.h"

namespace dagadvisor::exporter {

/// The reports to export at scrape time: the current one per cluster (null entries are skipped).
using ReportsGetter = std::function<std::vector<std::shared_ptr<const report::AnalysisReport>>()>;

/// A prometheus::Collectable that renders the CURRENT analysis at each scrape: cluster sizes,
/// findings and recommendations by kind/severity, GPU-node hoarding per node and the top runs by
/// makespan. Nothing is remembered between scrapes, so series of problems that went away vanish
/// with the report that had them.
class ReportCollector final : public prometheus::Collectable {
 public:
  explicit ReportCollector(ReportsGetter reports, std::size_t top_runs = 50);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  ReportsGetter reports_;
  std::size_t top_runs_;
};

}  // namespace dagadvisor::exporter
