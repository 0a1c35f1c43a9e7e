#include "sources/snapshot/snapshot_format.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "sources/http_client.h"

namespace dagadvisor::sources {
namespace {

using nlohmann::json;

const json* member(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

Result<std::string> stringAt(const json& object, const char* key, const std::string& path) {
  const json* value = member(object, key);
  if (value == nullptr || !value->is_string()) {
    return makeError("missing or not a string", path + key);
  }
  return value->get<std::string>();
}

Result<double> numberAt(const json& object, const char* key, const std::string& path) {
  const json* value = member(object, key);
  if (value == nullptr || !value->is_number()) {
    return makeError("missing or not a number", path + key);
  }
  return value->get<double>();
}

bool isSafeFileName(const std::string& file) {
  constexpr std::string_view kExtension = ".json";
  return file.size() > kExtension.size() && file.ends_with(kExtension) &&
         isSafeQueryName(std::string_view(file).substr(0, file.size() - kExtension.size()));
}

Result<ManifestQuery> parseQuery(const json& item, const std::string& path) {
  if (!item.is_object()) {
    return makeError("expected an object", path);
  }
  const std::string prefix = path + ".";
  auto name = stringAt(item, "name", prefix);
  auto promql = stringAt(item, "promql", prefix);
  auto at = numberAt(item, "at", prefix);
  auto file = stringAt(item, "file", prefix);
  for (const Error* error : {name ? nullptr : &name.error(), promql ? nullptr : &promql.error(),
                             at ? nullptr : &at.error(), file ? nullptr : &file.error()}) {
    if (error != nullptr) {
      return *error;
    }
  }
  if (!isSafeQueryName(*name)) {
    return makeError("must match [a-z0-9_]+", prefix + "name");
  }
  if (!isSafeFileName(*file)) {
    return makeError("must be a plain file name matching [a-z0-9_]+.json", prefix + "file");
  }
  return ManifestQuery{std::move(*name), std::move(*promql), *at, std::move(*file)};
}

Result<std::vector<ManifestQuery>> parseQueries(const json& root) {
  const json* queries = member(root, "queries");
  if (queries == nullptr || !queries->is_array()) {
    return makeError("missing or not an array", "queries");
  }
  std::vector<ManifestQuery> out;
  std::set<std::pair<std::string, std::string>> asked;  // name and text: one recording each
  std::set<std::string> files;
  for (std::size_t i = 0; i < queries->size(); ++i) {
    const std::string path = "queries[" + std::to_string(i) + "]";
    auto query = parseQuery((*queries)[i], path);
    if (!query) {
      return query.error();
    }
    if (!asked.emplace(query->name, query->promql).second) {
      return makeError("duplicate query \"" + query->name + "\" with the same text",
                       path + ".name");
    }
    if (!files.insert(query->file).second) {
      return makeError("\"" + query->file + "\" is already another query's body", path + ".file");
    }
    out.push_back(std::move(*query));
  }
  return out;
}

Result<ManifestKubeList> parseKubeList(const json& item, const std::string& path) {
  if (!item.is_object()) {
    return makeError("expected an object", path);
  }
  const std::string prefix = path + ".";
  auto list_path = stringAt(item, "path", prefix);
  if (!list_path) {
    return list_path.error();
  }
  if (list_path->empty() || list_path->front() != '/') {
    return makeError("must be an API path starting with '/'", prefix + "path");
  }
  ManifestKubeList out{std::move(*list_path), "", 200, {}};
  if (const json* selector = member(item, "label_selector"); selector != nullptr) {
    if (!selector->is_string()) {
      return makeError("not a string", prefix + "label_selector");
    }
    out.label_selector = selector->get<std::string>();
  }
  const json* status = member(item, "status");
  if (status == nullptr || !status->is_number_integer()) {
    return makeError("missing or not an integer", prefix + "status");
  }
  out.status = status->get<int>();
  if (out.status != 200 && out.status != 403 && out.status != 404) {
    return makeError("must be 200, 403 or 404", prefix + "status");
  }
  const json* files = member(item, "files");
  if (files == nullptr || !files->is_array()) {
    return makeError("missing or not an array", prefix + "files");
  }
  for (std::size_t i = 0; i < files->size(); ++i) {
    const json& file = (*files)[i];
    if (!file.is_string() || !isSafeFileName(file.get<std::string>())) {
      return makeError("must be a plain file name matching [a-z0-9_]+.json",
                       prefix + "files[" + std::to_string(i) + "]");
    }
    out.files.push_back(file.get<std::string>());
  }
  return out;
}

// Optional: manifests written before Kubernetes LISTs were recorded have no such key.
Result<std::vector<ManifestKubeList>> parseKubeLists(const json& root) {
  std::vector<ManifestKubeList> out;
  const json* lists = member(root, "kubernetes");
  if (lists == nullptr) {
    return out;
  }
  if (!lists->is_array()) {
    return makeError("not an array", "kubernetes");
  }
  for (std::size_t i = 0; i < lists->size(); ++i) {
    auto list = parseKubeList((*lists)[i], "kubernetes[" + std::to_string(i) + "]");
    if (!list) {
      return list.error();
    }
    out.push_back(std::move(*list));
  }
  return out;
}

}  // namespace

bool isSafeQueryName(std::string_view name) {
  return !name.empty() &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string_view::npos;
}

Result<Manifest> parseManifest(std::string_view text) {
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return makeError("not a JSON object", "$");
  }
  const json* format = member(root, "format");
  if (format == nullptr || !format->is_number_integer() || format->get<int>() != kSnapshotFormat) {
    return makeError("unsupported or missing format (this build reads format " +
                         std::to_string(kSnapshotFormat) + ")",
                     "format");
  }
  auto recorded_at = numberAt(root, "recorded_at", "");
  auto at = numberAt(root, "at", "");
  auto source = stringAt(root, "source", "");
  auto queries = parseQueries(root);
  auto kubernetes = parseKubeLists(root);
  for (const Error* error :
       {recorded_at ? nullptr : &recorded_at.error(), at ? nullptr : &at.error(),
        source ? nullptr : &source.error(), queries ? nullptr : &queries.error(),
        kubernetes ? nullptr : &kubernetes.error()}) {
    if (error != nullptr) {
      return *error;
    }
  }
  const json* airflow = member(root, "airflow");
  if (airflow != nullptr &&
      (!airflow->is_string() || !isSafeFileName(airflow->get<std::string>()))) {
    return makeError("not a snapshot file name", "airflow");
  }
  return Manifest{kSnapshotFormat,
                  *recorded_at,
                  *at,
                  std::move(*source),
                  std::move(*queries),
                  std::move(*kubernetes),
                  airflow != nullptr ? airflow->get<std::string>() : std::string()};
}

std::string renderManifest(const Manifest& manifest) {
  json queries = json::array();
  for (const auto& query : manifest.queries) {
    queries.push_back(
        {{"name", query.name}, {"promql", query.promql}, {"at", query.at}, {"file", query.file}});
  }
  json root = {{"format", manifest.format},
               {"recorded_at", manifest.recorded_at},
               {"at", manifest.at},
               {"source", manifest.source},
               {"queries", std::move(queries)}};
  // Left out when empty, so snapshots without a Kubernetes part stay as they always were.
  if (!manifest.kubernetes.empty()) {
    json lists = json::array();
    for (const auto& list : manifest.kubernetes) {
      lists.push_back({{"path", list.path},
                       {"label_selector", list.label_selector},
                       {"status", list.status},
                       {"files", list.files}});
    }
    root["kubernetes"] = std::move(lists);
  }
  if (!manifest.airflow.empty()) {
    root["airflow"] = manifest.airflow;
  }
  return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string fileKind(mode_t mode) {
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  return S_ISCHR(mode) || S_ISBLK(mode) ? "a device" : "not a file";
}

Error ioError(const char* what, const std::string& path) {
  return makeError(std::string("cannot ") + what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

Result<BodyBuffer> readWholeFile(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; reads of a regular file ignore it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return ioError("open", path);
  }
  File file(::fdopen(fd, "rb"));
  if (!file) {
    ::close(fd);
    return ioError("open", path);
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    return ioError("stat", path);
  }
  if (!S_ISREG(info.st_mode)) {
    return makeError("cannot read " + path + ": not a regular file (" + fileKind(info.st_mode) +
                     ")");
  }
  const auto size = static_cast<std::size_t>(info.st_size);
  if (size > max_bytes) {
    return makeError("cannot read " + path + ": " + std::to_string(size) +
                     " bytes, more than the limit of " + std::to_string(max_bytes));
  }
  BodyBuffer data;
  if (!data.reserve(size + kBodyPadding)) {
    return makeError("cannot read " + path + ": out of memory for " + std::to_string(size) +
                     " bytes");
  }
  if (std::fread(data.writable(), 1, size, file.get()) != size) {
    return ioError("read", path);
  }
  data.setSize(size);
  return data;
}

Result<void> writeWholeFile(const std::string& path, std::string_view data) {
  File file(std::fopen(path.c_str(), "wb"));
  if (!file) {
    return ioError("create", path);
  }
  if (std::fwrite(data.data(), 1, data.size(), file.get()) != data.size() ||
      std::fflush(file.get()) != 0 || ::fsync(fileno(file.get())) != 0) {
    return ioError("write", path);
  }
  return {};
}

}  // namespace dagadvisor::sources
