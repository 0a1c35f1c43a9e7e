#include "analysis/evidence.h"

namespace dagadvisor::analysis {

nlohmann::json labelsJson(const LabelPairs& labels) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, value] : labels) {
    out[key] = value;
  }
  return out;
}

void RunScope::writeJson(nlohmann::json& out) const {
  out["namespace"] = namespace_;
  out["dag"] = dag;
  out["run"] = run;
  out["selector"] = labelsJson(selector);
  out["dag_selector"] = labelsJson(dag_selector);
  out["engine"] = engine;
}

}  // namespace dagadvisor::analysis
