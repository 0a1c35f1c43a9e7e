#include "sources/snapshot/airflow_snapshot.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

namespace dagadvisor::sources {
namespace {

using nlohmann::json;

// Keeps `items` sorted by `key` with one entry per key, the newest read winning.
template <typename T, typename Key>
void merge(std::vector<T>& into, std::vector<T> items, Key key) {
  for (T& item : items) {
    auto it = std::lower_bound(into.begin(), into.end(), item,
                               [&](const T& a, const T& b) { return key(a) < key(b); });
    if (it != into.end() && key(*it) == key(item)) {
      *it = std::move(item);
    } else {
      into.insert(it, std::move(item));
    }
  }
}

auto runKey(const AirflowRun& run) {
  return std::tie(run.dag_id, run.run_id);
}

json instanceJson(const AirflowTaskInstance& t) {
  return {{"task_id", t.task_id},  {"map_index", t.map_index},   {"try_number", t.try_number},
          {"state", t.state},      {"start_date", t.start_date}, {"end_date", t.end_date},
          {"hostname", t.hostname}};
}

// Recordings are written by this program, so a wrong type is a damaged file: a typed error.
Result<AirflowTaskInstance> instanceFrom(const json& item, const std::string& path) {
  try {
    return AirflowTaskInstance{
        item.at("task_id").get<std::string>(),    item.at("map_index").get<int>(),
        item.at("try_number").get<int>(),         item.at("state").get<std::string>(),
        item.at("start_date").get<std::string>(), item.at("end_date").get<std::string>(),
        item.at("hostname").get<std::string>()};
  } catch (const json::exception& e) {
    return makeError(e.what(), path);
  }
}

Result<AirflowRun> runFrom(const json& item, const std::string& path) {
  AirflowRun run;
  try {
    run.dag_id = item.at("dag_id").get<std::string>();
    run.run_id = item.at("run_id").get<std::string>();
    const json& instances = item.at("task_instances");
    for (std::size_t i = 0; i < instances.size(); ++i) {
      auto instance =
          instanceFrom(instances.at(i), path + ".task_instances[" + std::to_string(i) + "]");
      if (!instance) {
        return instance.error();
      }
      run.task_instances.push_back(std::move(*instance));
    }
  } catch (const json::exception& e) {
    return makeError(e.what(), path);
  }
  return run;
}

}  // namespace

Result<AirflowFetch> AirflowRecorder::fetch(const std::vector<AirflowRunRef>& wanted) {
  auto result = inner_.fetch(wanted);
  if (!result) {
    return result;
  }
  recorded_.api_version = result->api_version;
  merge(recorded_.dags, result->dags, [](const AirflowDag& dag) { return dag.dag_id; });
  merge(recorded_.runs, result->runs, runKey);
  for (const std::string& warning : result->warnings) {
    if (std::find(recorded_.warnings.begin(), recorded_.warnings.end(), warning) ==
        recorded_.warnings.end()) {
      recorded_.warnings.push_back(warning);
    }
  }
  return result;
}

std::string renderAirflowRecording(const AirflowFetch& recorded) {
  json dags = json::array();
  for (const AirflowDag& dag : recorded.dags) {
    dags.push_back({{"dag_id", dag.dag_id}, {"tasks_body", dag.tasks_body}});
  }
  json runs = json::array();
  for (const AirflowRun& run : recorded.runs) {
    json instances = json::array();
    for (const AirflowTaskInstance& instance : run.task_instances) {
      instances.push_back(instanceJson(instance));
    }
    runs.push_back(
        {{"dag_id", run.dag_id}, {"run_id", run.run_id}, {"task_instances", std::move(instances)}});
  }
  const json root = {{"api_version", recorded.api_version},
                     {"dags", std::move(dags)},
                     {"runs", std::move(runs)},
                     {"warnings", recorded.warnings}};
  return root.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<AirflowFetch> parseAirflowRecording(std::string_view text) {
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return makeError("not a JSON object", "$");
  }
  AirflowFetch out;
  try {
    out.api_version = root.at("api_version").get<std::string>();
    out.warnings = root.at("warnings").get<std::vector<std::string>>();
    for (const json& dag : root.at("dags")) {
      out.dags.push_back(
          {dag.at("dag_id").get<std::string>(), dag.at("tasks_body").get<std::string>()});
    }
    const json& runs = root.at("runs");
    for (std::size_t i = 0; i < runs.size(); ++i) {
      auto run = runFrom(runs.at(i), "runs[" + std::to_string(i) + "]");
      if (!run) {
        return run.error();
      }
      out.runs.push_back(std::move(*run));
    }
  } catch (const json::exception& e) {
    return makeError(e.what(), "$");
  }
  return out;
}

Result<AirflowFetch> AirflowReplay::fetch(const std::vector<AirflowRunRef>& wanted) {
  AirflowFetch out;
  out.api_version = recorded_.api_version;
  out.warnings = recorded_.warnings;
  const std::set<AirflowRunRef> runs(wanted.begin(), wanted.end());
  std::set<std::string> dags;
  for (const AirflowRunRef& ref : runs) {
    dags.insert(ref.dag_id);
    const auto it =
        std::find_if(recorded_.runs.begin(), recorded_.runs.end(), [&](const AirflowRun& run) {
          return run.dag_id == ref.dag_id && run.run_id == ref.run_id;
        });
    if (it != recorded_.runs.end()) {
      out.runs.push_back(*it);
    } else {
      out.warnings.push_back(describe() + ": airflow run \"" + ref.run_id + "\" of DAG \"" +
                             ref.dag_id + "\" was not recorded");
    }
  }
  for (const AirflowDag& dag : recorded_.dags) {
    if (dags.count(dag.dag_id) > 0) {
      out.dags.push_back(dag);
    }
  }
  return out;
}

}  // namespace dagadvisor::sources
