#include "advice/kinds/pending_causes.h"

#include "advice/recommender.h"

namespace dagadvisor::advice {
namespace {

using analysis::PendingCause;

// How the sentence names the pods of each cause.
std::string_view causeWords(PendingCause cause) {
  switch (cause) {
    case PendingCause::kQueue:
      return "fit a node now and wait only for the scheduler (queue order, priority)";
    case PendingCause::kConstraints:
      return "are kept off the nodes with room by taints they do not tolerate, node selectors "
             "or required node affinities those nodes do not match";
    case PendingCause::kHoarding:
      return "fit GPU nodes once the non-GPU pods there move";
    case PendingCause::kFragmentation:
      return "fit the pooled free capacity but no single node";
    case PendingCause::kCapacity:
      return "fit nowhere, even pooled: nodes are missing";
  }
  return "";
}

}  // namespace

std::string_view kindOfCause(PendingCause cause) {
  switch (cause) {
    case PendingCause::kHoarding:
      return "gpu-node-hoarding";
    case PendingCause::kFragmentation:
      return "stranded-resources";
    case PendingCause::kCapacity:
      return "capacity-shortfall";
    case PendingCause::kQueue:
    case PendingCause::kConstraints:
      break;
  }
  return "";
}

std::string clusterRecommendationId(std::string_view kind, const config::Config& config) {
  return stableId(std::string(kind), config.analysis.cluster, "cluster/" + config.analysis.cluster);
}

std::string pendingCausesText(const analysis::DiagnosisCounts& counts, PendingCause own,
                              const config::Config& config) {
  std::string text = "Of the " + std::to_string(counts.pending_pods) + " pending pod(s), " +
                     std::to_string(counts.of(own)) + " are this recommendation's";
  for (std::size_t c = 0; c < analysis::kPendingCauses; ++c) {
    const auto cause = static_cast<PendingCause>(c);
    if (cause == own || counts.of(cause) == 0) {
      continue;
    }
    text += "; " + std::to_string(counts.of(cause)) + " " + std::string(causeWords(cause));
    const std::string_view kind = kindOfCause(cause);
    if (!kind.empty()) {
      text += " (" + clusterRecommendationId(kind, config) + ")";
    }
  }
  return text + ". " + counts.checked.notChecked();
}

nlohmann::json relatedRecommendations(const analysis::DiagnosisCounts& counts, PendingCause own,
                                      const config::Config& config) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t c = 0; c < analysis::kPendingCauses; ++c) {
    const auto cause = static_cast<PendingCause>(c);
    const std::string_view kind = kindOfCause(cause);
    if (cause != own && counts.of(cause) > 0 && !kind.empty()) {
      out[std::string(kind)] = clusterRecommendationId(kind, config);
    }
  }
  return out;
}

}  // namespace dagadvisor::advice
