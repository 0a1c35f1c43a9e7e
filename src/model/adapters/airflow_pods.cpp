#include "model/adapters/airflow_pods.h"

#include <charconv>
#include <iterator>

namespace dagadvisor::model {
namespace {

constexpr std::string_view kAirflowMarkers[] = {"try_number", "airflow_version", "airflow-worker",
                                                "kubernetes_pod_operator"};
// What the executor writes as annotations (raw) and labels (sanitised): rawValue's keys.
constexpr std::string_view kDagId = "dag_id";
constexpr std::string_view kTaskId = "task_id";
constexpr std::string_view kRunId = "run_id";
constexpr std::string_view kRunDates[] = {"logical_date", "execution_date"};
constexpr std::string_view kMapIndex = "map_index";
constexpr std::string_view kTryNumber = "try_number";

// The raw annotation when the executor wrote one, else the (sanitised) label.
std::optional<std::string_view> rawValue(const Pod& pod, std::string_view key) {
  auto value = pod.annotations.get(key);
  return value && !value->empty() ? value : pod.labels.get(key);
}

double parseNumber(std::optional<std::string_view> text, double fallback) {
  if (!text) {
    return fallback;
  }
  long long value = 0;
  const auto result = std::from_chars(text->data(), text->data() + text->size(), value);
  return result.ec == std::errc() ? static_cast<double>(value) : fallback;
}

bool isAirflowPod(const Pod& pod) {
  for (std::string_view marker : kAirflowMarkers) {
    if (pod.labels.has(marker)) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool claimAirflowPod(const Pod& pod, PodId id, const config::WorkflowLabels& /*keys*/,
                     RunAssembler& runs) {
  const auto dag = rawValue(pod, kDagId);
  const auto task = rawValue(pod, kTaskId);
  if (!dag || !task || dag->empty() || task->empty() || !isAirflowPod(pod)) {
    return false;
  }
  auto run = rawValue(pod, kRunId);
  for (std::string_view date_key : kRunDates) {
    run = run ? run : rawValue(pod, date_key);
  }
  std::string task_id(*task);
  const double map_index = parseNumber(rawValue(pod, kMapIndex), -1);
  if (map_index >= 0) {
    task_id += "[" + std::to_string(static_cast<long long>(map_index)) + "]";
  }
  const bool executor = pod.labels.get("spark-role") == std::optional<std::string_view>("executor");
  PodClaim claim{*dag,    run.value_or(*dag),
                 task_id, parseNumber(rawValue(pod, kTryNumber), pod.created.value_or(0)),
                 {},      !executor};
  // Selectors match labels, so the sanitised label values, not the raw annotations.
  if (const auto dag_label = pod.labels.get("dag_id"); dag_label && !dag_label->empty()) {
    claim.dag_selector = {{"dag_id", *dag_label}};
    claim.selector = claim.dag_selector;
    if (const auto run_label = pod.labels.get("run_id"); run_label && !run_label->empty()) {
      claim.selector.emplace_back("run_id", *run_label);
    }
  }
  runs.add(pod, id, std::move(claim));
  return true;
}

std::vector<std::string> airflowPodAnnotations(const config::WorkflowLabels& /*keys*/) {
  std::vector<std::string> keys{std::string(kDagId), std::string(kTaskId), std::string(kRunId),
                                std::string(kMapIndex), std::string(kTryNumber)};
  keys.insert(keys.end(), std::begin(kRunDates), std::end(kRunDates));
  return keys;
}

}  // namespace dagadvisor::model
