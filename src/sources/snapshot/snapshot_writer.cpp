#include "sources/snapshot/snapshot_writer.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>

namespace dagadvisor::sources {
namespace {

namespace fs = std::filesystem;

Error fsError(const std::string& what, const fs::path& path, const std::error_code& ec) {
  return makeError("snapshot: cannot " + what + " " + path.string() + ": " + ec.message());
}

// A sibling of the target, so the final rename stays on one file system.
fs::path siblingPath(const fs::path& target, const char* tag) {
  static std::atomic<unsigned> counter{0};
  return target.parent_path() / ("." + target.filename().string() + "." + tag + "-" +
                                 std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

bool replaceable(const fs::path& target) {
  std::error_code ec;
  return fs::is_directory(target, ec) &&
         (fs::is_empty(target, ec) || fs::exists(target / kManifestFile, ec));
}

Result<void> moveIntoPlace(const fs::path& staged, const fs::path& target) {
  std::error_code ec;
  if (!fs::exists(target, ec)) {
    fs::rename(staged, target, ec);
    return ec ? Result<void>(fsError("rename into", target, ec)) : Result<void>();
  }
  if (!replaceable(target)) {
    return makeError("snapshot: refusing to replace " + target.string() +
                     ": it exists and is not a snapshot directory");
  }
  const fs::path old = siblingPath(target, "old");
  fs::rename(target, old, ec);
  if (ec) {
    return fsError("move aside", target, ec);
  }
  fs::rename(staged, target, ec);
  if (ec) {
    std::error_code restore;
    fs::rename(old, target, restore);
    return fsError("rename into", target, ec);
  }
  fs::remove_all(old, ec);  // best effort: the new snapshot is already in place
  return {};
}

}  // namespace

SnapshotWriter::SnapshotWriter(MetricsSource& inner, std::string dir, const Clock* clock)
    : inner_(inner), dir_(std::move(dir)), clock_(clock != nullptr ? *clock : system_clock_) {}

std::string SnapshotWriter::describe() const {
  return inner_.describe();
}

Result<QueryBody> SnapshotWriter::instantQuery(const Query& query, UnixSeconds at) {
  if (!isSafeQueryName(query.name)) {
    return makeError("snapshot: query name \"" + query.name +
                     "\" cannot be recorded: names must match [a-z0-9_]+");
  }
  auto body = inner_.instantQuery(query, at);
  if (!body) {
    return body;
  }
  // A query is its name and text: one name may be asked in several requests (the pods of a
  // read, a few hundred a request), each recorded and replayed by its text.
  const auto same = [&](const Recorded& r) {
    return r.query.name == query.name && r.query.promql == query.promql;
  };
  if (auto it = std::find_if(recorded_.begin(), recorded_.end(), same); it != recorded_.end()) {
    it->query.at = at;
    it->body = body->json.str();
  } else {
    recorded_.push_back(
        {ManifestQuery{query.name, query.promql, at, unusedFileFor(query.name)}, body->json.str()});
  }
  return body;
}

// name.json, else the first of name_2.json, name_3.json, … that no recorded request uses.
std::string SnapshotWriter::unusedFileFor(const std::string& name) const {
  const auto used = [&](const std::string& file) {
    return std::any_of(recorded_.begin(), recorded_.end(),
                       [&](const Recorded& r) { return r.query.file == file; });
  };
  std::string file = name + ".json";
  for (std::size_t n = 2; used(file); ++n) {
    file = name + "_" + std::to_string(n) + ".json";
  }
  return file;
}

Result<KubeList> KubeListRecorder::list(const std::string& path,
                                        const std::string& label_selector) {
  auto result = inner_.list(path, label_selector);
  if (!result) {
    return result;
  }
  const auto same = [&](const Recorded& r) {
    return r.path == path && r.label_selector == label_selector;
  };
  Recorded entry{path, label_selector, *result};
  if (auto it = std::find_if(recorded_.begin(), recorded_.end(), same); it != recorded_.end()) {
    *it = std::move(entry);
  } else {
    recorded_.push_back(std::move(entry));
  }
  return result;
}

KubeListSource& SnapshotWriter::recordKubernetes(KubeListSource& inner) {
  kube_ = std::make_unique<KubeListRecorder>(inner);
  return *kube_;
}

AirflowApi& SnapshotWriter::recordAirflow(AirflowApi& inner) {
  airflow_ = std::make_unique<AirflowRecorder>(inner);
  return *airflow_;
}

Result<void> SnapshotWriter::writeKubeLists(const std::string& dir, Manifest& manifest) const {
  if (!kube_) {
    return {};
  }
  const auto& lists = kube_->recorded();
  for (std::size_t i = 0; i < lists.size(); ++i) {
    ManifestKubeList entry{lists[i].path, lists[i].label_selector, lists[i].list.status, {}};
    for (std::size_t page = 0; page < lists[i].list.pages.size(); ++page) {
      entry.files.push_back("kube_" + std::to_string(i) + "_" + std::to_string(page) + ".json");
      if (auto written = writeWholeFile(dir + "/" + entry.files.back(), lists[i].list.pages[page]);
          !written) {
        return written;
      }
    }
    manifest.kubernetes.push_back(std::move(entry));
  }
  return {};
}

Result<void> SnapshotWriter::writeTo(const std::string& dir, UnixSeconds at) const {
  Manifest manifest{kSnapshotFormat, clock_.now(), at, inner_.describe(), {}, {}, {}};
  for (const auto& entry : recorded_) {
    if (auto written = writeWholeFile(dir + "/" + entry.query.file, entry.body); !written) {
      return written;
    }
    manifest.queries.push_back(entry.query);
  }
  if (auto written = writeKubeLists(dir, manifest); !written) {
    return written;
  }
  if (airflow_ && !airflow_->empty()) {
    manifest.airflow = kAirflowFile;
    if (auto written = writeWholeFile(dir + "/" + manifest.airflow,
                                      renderAirflowRecording(airflow_->recorded()));
        !written) {
      return written;
    }
  }
  return writeWholeFile(dir + "/" + std::string(kManifestFile), renderManifest(manifest));
}

Result<void> SnapshotWriter::finish(UnixSeconds at) {
  std::error_code ec;
  fs::path target = fs::absolute(fs::path(dir_), ec).lexically_normal();
  if (target.filename().empty()) {  // "dir/" names the directory itself
    target = target.parent_path();
  }
  fs::create_directories(target.parent_path(), ec);
  const fs::path staged = siblingPath(target, "tmp");
  if (!fs::create_directory(staged, ec) || ec) {
    return fsError("create", staged, ec);
  }
  auto written = writeTo(staged.string(), at);
  if (written) {
    written = moveIntoPlace(staged, target);
  }
  if (!written) {
    fs::remove_all(staged, ec);
  }
  return written;
}

}  // namespace dagadvisor::sources
