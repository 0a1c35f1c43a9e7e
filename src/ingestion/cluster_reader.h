#pragma once

#include <memory>
#include <span>
#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "ingestion/cluster_fetch.h"
#include "ingestion/network_receive_reader.h"
#include "model/cluster.h"
#include "sources/metrics_source.h"
#include "sources/snapshot/snapshot_writer.h"

namespace dagadvisor::ingestion {

/// Where a cycle's ClusterSnapshot comes from: the one thing the analysis cycle asks of
/// ingestion. Built once per configuration (app/setup.cpp); kept across cycles, so a reader may
/// keep state from one read to the next (a direct scrape remembers pods and counters).
class ClusterReader {
 public:
  virtual ~ClusterReader() = default;

  /// The cluster at `at`. `stats` counts what reading cost (queries or targets, bytes) and
  /// collects the backend's warnings. A failure that would make the snapshot wrong (a required
  /// query, a target) is an Error; optional data only adds a warning.
  virtual Result<model::ClusterSnapshot> read(UnixSeconds at, FetchStats& stats) = 0;

  /// What `pods` of `cluster` (the snapshot read last; finished task pods) received over the
  /// network while they ran. Empty where the source keeps no history of it (a direct scrape);
  /// a failure only adds a warning to `stats`.
  virtual NetworkReceiveByPod readNetworkReceive(const model::ClusterSnapshot& /*cluster*/,
                                                 std::span<const model::PodId> /*pods*/,
                                                 UnixSeconds /*at*/, FetchStats& /*stats*/) {
    return {};
  }
  /// A short description for logs and the report's `source`; never contains credentials.
  virtual std::string describe() const = 0;

  /// `snapshot record`: the source of the query answers a recording keeps, for a SnapshotWriter
  /// to wrap. Recorded snapshots hold Prometheus query bodies whatever the reader, so that one
  /// replay (PromqlClusterReader over a SnapshotSource) reads them all.
  virtual sources::MetricsSource& recordedAnswers() = 0;

  /// Makes the reads that follow record their query answers into `writer` (not owned; it wraps
  /// recordedAnswers() and outlives the reads).
  virtual void recordInto(sources::SnapshotWriter& writer) = 0;
};

using ClusterReaderPtr = std::unique_ptr<ClusterReader>;

}  // namespace dagadvisor::ingestion
