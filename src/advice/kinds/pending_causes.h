#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/pending_diagnosis.h"
#include "config/config.h"

namespace dagadvisor::advice {

/// The kind that reports the pods of `cause` ("gpu-node-hoarding", "stranded-resources",
/// "capacity-shortfall"), or "" for the causes no kind of these three covers (queue order,
/// constraints).
std::string_view kindOfCause(analysis::PendingCause cause);

/// The id of the one cluster-wide recommendation `kind` makes (its target is
/// "cluster/<cluster>"): how the three pending-pod kinds point at each other.
std::string clusterRecommendationId(std::string_view kind, const config::Config& config);

/// One sentence saying where each of the cluster's pending pods went, naming the recommendation
/// that covers each other cause: "Of the 7 pending pods, 5 are this recommendation's; 2 are
/// capacity-blocked (capacity-shortfall-b1e7a599)." The three kinds use it so that their advice
/// points at each other instead of each claiming every pod. Ends with what the constraint test
/// could not check (ConstraintsChecked::notChecked()).
std::string pendingCausesText(const analysis::DiagnosisCounts& counts, analysis::PendingCause own,
                              const config::Config& config);

/// {"<kind>": "<id>", …} for every other cause with pods that a kind covers: the
/// recommendation's `related` evidence.
nlohmann::json relatedRecommendations(const analysis::DiagnosisCounts& counts,
                                      analysis::PendingCause own, const config::Config& config);

}  // namespace dagadvisor::advice
