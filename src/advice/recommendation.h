#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "advice/patch.h"
#include "analysis/finding.h"
#include "common/clock.h"
#include "replay/change_set.h"

namespace dagadvisor::advice {

/// Lists in a recommendation's evidence keep this many entries, largest impact first; a list cut
/// short gets a sibling "<name>_total" with its full length.
inline constexpr std::size_t kEvidenceItems = 10;

/// What the user is told to change, with the evidence. `id` is stable: the same problem on the
/// same target keeps its id across cycles and restarts, so scripts and alerts can follow it.
struct Recommendation {
  std::string id;  // e.g. "gpu-node-hoarding-3f9a1c2b"
  std::string kind;
  analysis::Severity severity = analysis::Severity::kInfo;
  std::string title;   // one line
  std::string target;  // the scope: "cluster/<name>", "node/<name>", "run/<ns>/<run>"
  std::vector<std::string> instances;  // every target this one root cause covers
  std::string action;                  // what to do, in words
  /// The changes to apply, typed and in order (empty: no patch applies). Advisers build these;
  /// patch_yaml is rendered from them (renderPatchYaml, by recommend()).
  std::vector<Patch> patches;
  std::string patch_yaml;  // kubectl-ready YAML (multi-document), "" when no patch applies
  nlohmann::json evidence = nlohmann::json::object();
  double impact_score = 0;  // for ranking; larger first
  std::string impact;       // the estimated gain in words with numbers
  /// What applying the patches does, in the replay's terms: the stage after advice replays the
  /// window with it to predict the gain (empty: nothing the replay models, so no prediction).
  /// Built from the same values as patches, so the two cannot tell different stories.
  replay::ChangeSet changes;
  std::vector<std::string> watched_pods;  // "namespace/name": the pods it is meant to help
  /// The gain is in data hand-offs (tasks placed nearer their parents): the replay values it
  /// only where it charges the hand-offs of the tasks the changes place, and predicts nothing
  /// elsewhere rather than a gain of 0.
  bool gain_in_hand_offs = false;
  UnixSeconds first_seen = 0;
  UnixSeconds last_seen = 0;
};

}  // namespace dagadvisor::advice
