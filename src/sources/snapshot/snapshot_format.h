#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "sources/body_buffer.h"

namespace dagadvisor::sources {

/// The index file of a snapshot directory.
inline constexpr std::string_view kManifestFile = "manifest.json";
inline constexpr int kSnapshotFormat = 1;

/// One recorded query: its body is the file `file` in the snapshot directory, byte for byte.
struct ManifestQuery {
  std::string name;
  std::string promql;
  UnixSeconds at = 0;
  std::string file;  // "<name>.json"
};

/// One recorded Kubernetes LIST: its pages are the files `files` in the snapshot directory,
/// byte for byte, in order. A LIST that found nothing (404: not installed, 403: forbidden) is
/// recorded with that status and no files, so the replay reports the same gap.
struct ManifestKubeList {
  std::string path;  // e.g. "/apis/argoproj.io/v1alpha1/workflows"
  std::string label_selector;
  int status = 200;
  std::vector<std::string> files;  // "kube_<list>_<page>.json"
};

/// manifest.json: {"format":1,"recorded_at":…,"at":…,"source":"…","queries":[…],
/// "kubernetes":[…],"airflow":"airflow.json"}. `kubernetes` and `airflow` are optional
/// (snapshots recorded before them load unchanged).
struct Manifest {
  int format = kSnapshotFormat;
  UnixSeconds recorded_at = 0;  // wall clock when the snapshot was written
  UnixSeconds at = 0;           // the analysis time the queries were evaluated at
  std::string source;           // describe() of the recorded source
  std::vector<ManifestQuery> queries;
  std::vector<ManifestKubeList> kubernetes;  // empty: no Kubernetes API was recorded
  std::string airflow;  // "airflow.json" when the Airflow API was recorded; "" otherwise
};

/// Query names key snapshot files, so they must be safe file names: [a-z0-9_]+.
bool isSafeQueryName(std::string_view name);

/// Parses and validates a manifest; the Error's field is the JSON path of the first fault
/// (e.g. "queries[2].file"). Unknown fields are ignored, for forward compatibility.
Result<Manifest> parseManifest(std::string_view text);

/// The manifest as indented JSON (invalid UTF-8 is replaced, never thrown on).
std::string renderManifest(const Manifest& manifest);

/// The largest file of a snapshot: a recorded body, like a live one, is at most the default
/// response cap (HttpClientOptions::max_response_bytes).
inline constexpr std::size_t kMaxSnapshotFileBytes = std::size_t{256} << 20;

/// A whole file, with kBodyPadding spare capacity so the decoder can parse it in place. Only a
/// regular file of at most `max_bytes` is read: a directory, FIFO, socket or device in its
/// place (which would throw, block forever or never end) is an Error naming the path.
Result<BodyBuffer> readWholeFile(const std::string& path,
                                 std::size_t max_bytes = kMaxSnapshotFileBytes);

/// Writes `data` to `path` (created or truncated) and flushes it to disk.
Result<void> writeWholeFile(const std::string& path, std::string_view data);

}  // namespace dagadvisor::sources
