#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/cancellation.h"
#include "common/clock.h"
#include "common/result.h"
#include "sources/body_buffer.h"

namespace dagadvisor::sources {

/// One PromQL query of a cycle. `name` is stable (e.g. "pod_info") and keys recorded snapshots;
/// `promql` is the text sent to the backend.
struct Query {
  std::string name;
  std::string promql;
};

/// The undecoded body of a successful instant query. Bodies are kept as bytes so that a
/// snapshot can record them verbatim and the decoder can parse them in place (no JSON copies).
struct QueryBody {
  BodyBuffer json;
  // The body's share of its source's memory budget (see sources::ByteBudget), given back when
  // the body is destroyed; null when the source has none.
  std::shared_ptr<const void> lease{};
};

/// Where Prometheus-API data comes from: a live Prometheus-compatible server or a recorded
/// snapshot. Implementations are safe to call from one thread at a time, unless concurrent().
class MetricsSource {
 public:
  virtual ~MetricsSource() = default;

  /// Runs `query` as an instant query evaluated at `at`. Transport failures, HTTP errors and
  /// bodies with `"status":"error"` are Errors whose message names the backend and the query.
  virtual Result<QueryBody> instantQuery(const Query& query, UnixSeconds at) = 0;

  /// A short human description for logs and reports, e.g. "prometheus http://127.0.0.1:9090".
  /// Never contains credentials.
  virtual std::string describe() const = 0;

  /// True when instantQuery may be called from several threads at once.
  virtual bool concurrent() const { return false; }

  /// Binds the queries that follow to a cycle's cancellation: once it is stopped (SIGTERM, a
  /// reload, its deadline, a failed required query) queries in flight end at once and new ones
  /// fail without being sent. A source that never blocks ignores it.
  virtual void setCancellation(CancellationPtr cancellation) { (void)cancellation; }

  /// The cancellation bound last (null when none), for a caller that must stop the cycle's
  /// other queries, e.g. after a required one failed.
  virtual CancellationPtr cancellation() const { return nullptr; }
};

using MetricsSourcePtr = std::unique_ptr<MetricsSource>;

}  // namespace dagadvisor::sources
