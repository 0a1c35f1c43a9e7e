#include "sources/snapshot/snapshot_source.h"

#include <algorithm>
#include <set>

#include "sources/snapshot/airflow_snapshot.h"

namespace dagadvisor::sources {
namespace {

class SnapshotKubeLists final : public KubeListSource {
 public:
  SnapshotKubeLists(std::string dir, std::string recorded_from, std::vector<ManifestKubeList> lists)
      : dir_(std::move(dir)), from_(std::move(recorded_from)), lists_(std::move(lists)) {}

  Result<KubeList> list(const std::string& path, const std::string& label_selector) override {
    const std::string prefix = "snapshot " + dir_ + ": LIST " + path + ": ";
    const auto it = std::find_if(lists_.begin(), lists_.end(), [&](const ManifestKubeList& l) {
      return l.path == path && l.label_selector == label_selector;
    });
    if (it == lists_.end()) {
      return makeError(prefix + "not recorded (recorded: " + recordedPaths() + ")");
    }
    KubeList out;
    out.status = it->status;
    for (const std::string& file : it->files) {
      auto page = readWholeFile(dir_ + "/" + file);
      if (!page) {
        return makeError(prefix + page.error().message);
      }
      out.pages.push_back(page->str());
    }
    return out;
  }

  std::string describe() const override {
    return "snapshot " + dir_ + " (kubernetes, recorded from " + from_ + ")";
  }

  std::string whyNotServed(const std::string& path) const override {
    return "absent when recorded from " + from_ + " (404 on " + path + ")";
  }

 private:
  std::string recordedPaths() const {
    std::string paths;
    for (const auto& l : lists_) {
      paths += (paths.empty() ? "" : ", ") + l.path;
    }
    return paths;
  }

  std::string dir_;
  std::string from_;
  std::vector<ManifestKubeList> lists_;
};

}  // namespace

Result<std::unique_ptr<SnapshotSource>> SnapshotSource::open(const std::string& dir) {
  const std::string path = dir + "/" + std::string(kManifestFile);
  auto text = readWholeFile(path);
  if (!text) {
    return makeError("snapshot " + dir + ": " + text.error().message);
  }
  auto manifest = parseManifest(*text);
  if (!manifest) {
    return makeError(manifest.error().message, path + ": " + manifest.error().field);
  }
  return std::unique_ptr<SnapshotSource>(new SnapshotSource(dir, std::move(*manifest)));
}

SnapshotSource::SnapshotSource(std::string dir, Manifest manifest)
    : dir_(std::move(dir)), manifest_(std::move(manifest)) {}

std::string SnapshotSource::describe() const {
  return "snapshot " + dir_ + " (recorded from " + manifest_.source + ")";
}

std::string SnapshotSource::recordedNames() const {
  std::set<std::string> distinct;
  for (const auto& recorded : manifest_.queries) {
    distinct.insert(recorded.name);
  }
  std::string names;
  for (const std::string& name : distinct) {
    names += (names.empty() ? "" : ", ") + name;
  }
  return names.empty() ? "none" : names;
}

Result<QueryBody> SnapshotSource::instantQuery(const Query& query, UnixSeconds /*at*/) {
  const std::string prefix = "snapshot " + dir_ + ": query " + query.name + ": ";
  const auto& queries = manifest_.queries;
  // By name and text: a name asked in several requests was recorded once per text.
  const auto named = [&](const ManifestQuery& q) {
    return q.name == query.name;
  };
  const auto it = std::find_if(queries.begin(), queries.end(), [&](const ManifestQuery& q) {
    return named(q) && q.promql == query.promql;
  });
  if (it == queries.end()) {
    const auto other_text = std::find_if(queries.begin(), queries.end(), named);
    if (other_text == queries.end()) {
      return makeError(prefix + "not recorded (recorded: " + recordedNames() + ")");
    }
    return makeError(prefix +
                     "the snapshot was recorded with another query text; re-record it "
                     "(recorded: " +
                     other_text->promql + "; now: " + query.promql + ")");
  }
  auto body = readWholeFile(dir_ + "/" + it->file);
  if (!body) {
    return makeError(prefix + body.error().message);
  }
  return QueryBody{std::move(*body)};
}

KubeListSourcePtr SnapshotSource::kubernetes() const {
  if (manifest_.kubernetes.empty()) {
    return nullptr;
  }
  return std::make_unique<SnapshotKubeLists>(dir_, manifest_.source, manifest_.kubernetes);
}

Result<std::unique_ptr<AirflowApi>> SnapshotSource::airflow() const {
  if (manifest_.airflow.empty()) {
    return std::unique_ptr<AirflowApi>();
  }
  const std::string path = dir_ + "/" + manifest_.airflow;
  auto text = readWholeFile(path);
  if (!text) {
    return makeError("snapshot " + dir_ + ": " + text.error().message);
  }
  auto recorded = parseAirflowRecording(*text);
  if (!recorded) {
    return makeError(path + ": " + recorded.error().describe());
  }
  return std::unique_ptr<AirflowApi>(std::make_unique<AirflowReplay>(
      std::move(*recorded),
      "snapshot " + dir_ + " (airflow, recorded from " + manifest_.source + ")"));
}

}  // namespace dagadvisor::sources
