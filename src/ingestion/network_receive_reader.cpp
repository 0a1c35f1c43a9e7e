#include "ingestion/network_receive_reader.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>
#include <vector>

#include "ingestion/query_catalog.h"

namespace dagadvisor::ingestion {
namespace {

// Names per query: keeps each request line well below servers' header limits, as the uid lists.
constexpr std::size_t kNamesPerQuery = 500;

std::string keyOf(const model::Pod& pod) {
  return pod.namespace_ + "/" + pod.name + "/" + pod.uid;
}

// One request's pods: names of one namespace, in the order asked.
struct Chunk {
  std::string_view namespace_;
  std::vector<std::string_view> names;
  std::vector<model::PodId> pods;
};

// The pods to ask, by namespace then name, so that the query texts are the same wherever the
// same pods are asked (a recorded snapshot answers a query by its text).
std::vector<Chunk> chunksOf(const model::ClusterSnapshot& cluster, std::vector<model::PodId> pods) {
  std::sort(pods.begin(), pods.end(), [&](model::PodId a, model::PodId b) {
    const model::Pod& x = cluster.pod(a);
    const model::Pod& y = cluster.pod(b);
    return std::tie(x.namespace_, x.name) < std::tie(y.namespace_, y.name);
  });
  std::vector<Chunk> chunks;
  for (model::PodId id : pods) {
    const model::Pod& pod = cluster.pod(id);
    if (chunks.empty() || chunks.back().namespace_ != pod.namespace_ ||
        chunks.back().names.size() == kNamesPerQuery) {
      chunks.push_back({pod.namespace_, {}, {}});
    }
    chunks.back().names.push_back(pod.name);
    chunks.back().pods.push_back(id);
  }
  return chunks;
}

std::string quoted(std::string_view value) {
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

NetworkReceiveReader::NetworkReceiveReader(const config::PrometheusSource& settings)
    : settings_(settings), max_series_(static_cast<std::size_t>(settings.max_series_per_query)) {}

NetworkReceiveByPod NetworkReceiveReader::read(sources::MetricsSource& source,
                                               const model::ClusterSnapshot& cluster,
                                               std::span<const model::PodId> pods, UnixSeconds at,
                                               FetchStats& stats) {
  NetworkReceiveByPod out;
  std::unordered_map<std::string, std::optional<model::NetworkReceive>> kept;
  std::vector<model::PodId> unknown;
  for (model::PodId id : pods) {
    std::string key = keyOf(cluster.pod(id));
    if (auto it = known_.find(key); it != known_.end()) {
      if (it->second) {
        out.emplace(id, *it->second);
      }
      kept.insert(std::move(*it));
    } else {
      unknown.push_back(id);
    }
  }
  const std::vector<Chunk> chunks = chunksOf(cluster, std::move(unknown));
  for (std::size_t index = 0; index < chunks.size(); ++index) {
    const Chunk& chunk = chunks[index];
    const config::PrometheusSource selector =
        withSelector(settings_, "namespace=" + quoted(chunk.namespace_) + ", " +
                                    matcherAnyOf("pod", chunk.names));
    // By position in the chunk, whose names are sorted: the samples' labels point into the
    // response, which is gone once it is decoded.
    std::vector<model::NetworkReceive> answered(chunk.names.size());
    auto sink = [&answered, &chunk](ReceiveFigure figure) {
      return [&answered, &chunk, figure](const sources::SampleView& sample) {
        const auto name =
            std::lower_bound(chunk.names.begin(), chunk.names.end(), sample.label("pod"));
        if (name == chunk.names.end() || *name != sample.label("pod") ||
            !std::isfinite(sample.value)) {
          return;
        }
        model::NetworkReceive& figures =
            answered[static_cast<std::size_t>(name - chunk.names.begin())];
        (figure == ReceiveFigure::kTotal ? figures.bytes : figures.mean_bytes) = sample.value;
      };
    };
    const std::vector<PlannedQuery> plan = {
        {podNetworkReceiveQuery(selector, ReceiveFigure::kTotal, "pod_received"), false,
         sink(ReceiveFigure::kTotal)},
        {podNetworkReceiveQuery(selector, ReceiveFigure::kMean, "pod_received_mean"), false,
         sink(ReceiveFigure::kMean)},
    };
    // The first failure ends the read (a source that refuses one request, an older snapshot
    // without them, refuses the rest alike): one warning, and those pods are asked next time.
    if (auto run = runQueries(source, plan, at, stats, 2, max_series_); !run.ok()) {
      std::size_t left = 0;
      for (std::size_t rest = index; rest < chunks.size(); ++rest) {
        left += chunks[rest].pods.size();
      }
      stats.warnings.push_back(
          "network receive of " + std::to_string(left) +
          " pod(s) not read, transfers priced without them: " + run.error().describe());
      break;
    }
    for (std::size_t i = 0; i < chunk.pods.size(); ++i) {
      std::optional<model::NetworkReceive> known;
      if (answered[i].bytes > 0) {
        known = answered[i];
        out.emplace(chunk.pods[i], answered[i]);
      }
      kept.emplace(keyOf(cluster.pod(chunk.pods[i])), known);
    }
  }
  known_ = std::move(kept);
  return out;
}

}  // namespace dagadvisor::ingestion
