#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dagadvisor::analysis {

/// The typed proof behind one finding. Each kind declares its evidence struct beside its detector
/// (`analysis/detectors/<kind>.h`): a plain struct with
///   static constexpr std::string_view kKind = "<kind>";
///   nlohmann::json toJson() const;   // the API's rendering (docs/findings.md)
/// Advisers and the exporter read the struct's fields through Finding::evidenceAs<E>(); the JSON
/// is only the rendering for the API, the page and snapshots, never read back.
class FindingEvidence {
 public:
  FindingEvidence() = default;

  template <typename E>
  explicit FindingEvidence(E evidence)
      : payload_(std::make_shared<const Holder<E>>(std::move(evidence))) {}

  bool empty() const { return payload_ == nullptr; }
  /// The kind of the struct held ("" when empty): the type tag evidenceAs() checks.
  std::string_view kind() const { return payload_ ? payload_->kind() : std::string_view{}; }
  nlohmann::json toJson() const { return payload_ ? payload_->toJson() : nlohmann::json::object(); }

  /// The struct held, or null when it is not an `E`: kinds are unique per struct (a test over
  /// the kind list checks it), so the kind tag identifies the type.
  template <typename E>
  const E* get() const {
    if (!payload_ || payload_->kind() != E::kKind) {
      return nullptr;
    }
    return &static_cast<const Holder<E>&>(*payload_).value;
  }

 private:
  struct Payload {
    virtual ~Payload() = default;
    virtual std::string_view kind() const = 0;
    virtual nlohmann::json toJson() const = 0;
  };
  template <typename E>
  struct Holder final : Payload {
    explicit Holder(E v) : value(std::move(v)) {}
    std::string_view kind() const override { return E::kKind; }
    nlohmann::json toJson() const override { return value.toJson(); }
    E value;
  };
  // Shared, immutable: a report's findings are copied into every published view.
  std::shared_ptr<const Payload> payload_;
};

/// Pod labels as a selector, in the order the engine's adapter listed them.
using LabelPairs = std::vector<std::pair<std::string, std::string>>;

/// Which run a run-level finding is about, and the labels that select its pods: shared by every
/// run-level evidence struct so that grouping by DAG and pod-affinity patches read one type.
struct RunScope {
  std::string namespace_;
  std::string dag;
  std::string run;
  LabelPairs selector;      // selects the run's pods, as its engine labels them
  LabelPairs dag_selector;  // selects every run's pods of the DAG
  std::string engine{};     // WorkflowRun::engine: where the advice writes its pod changes

  /// Writes "namespace", "dag", "run", "selector", "dag_selector", "engine" into `out`.
  void writeJson(nlohmann::json& out) const;
};

/// {"key": "value", …} for a selector.
nlohmann::json labelsJson(const LabelPairs& labels);

}  // namespace dagadvisor::analysis
