#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "sources/http_client.h"
#include "sources/snapshot/snapshot_source.h"
#include "sources/snapshot/snapshot_writer.h"
#include "temp_dir.h"

namespace dagadvisor::sources {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

constexpr UnixSeconds kQueryTime = 1795856400;
constexpr UnixSeconds kRecordedAt = 1795857000.25;

/// A MetricsSource answering from a fixed table, by the query's text when the table has it, else
/// by its name; others fail.
class TableSource final : public MetricsSource {
 public:
  TableSource(std::initializer_list<std::pair<const std::string, std::string>> bodies)
      : bodies_(bodies) {}
  Result<QueryBody> instantQuery(const Query& query, UnixSeconds) override {
    ++calls;
    auto it = bodies_.find(query.promql);
    if (it == bodies_.end()) {
      it = bodies_.find(query.name);
    }
    if (it == bodies_.end()) {
      return makeError("table: no " + query.name);
    }
    return QueryBody{BodyBuffer(it->second)};
  }
  std::string describe() const override { return "table source"; }
  int calls = 0;

 private:
  std::map<std::string, std::string> bodies_;
};

// Bytes a JSON re-encoder would change: they must survive the round trip untouched.
const std::string kOddBody = "{\"v\":\"\xff\xfe\", \"n\":\"a\0b\",  \"z\":[1.50, 2e3]}\n\n"s;

std::unique_ptr<SnapshotSource> openOk(const std::string& dir) {
  auto source = SnapshotSource::open(dir);
  INFO((source.ok() ? std::string() : source.error().describe()));
  REQUIRE(source.ok());
  return std::move(source).value();
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string manifestWith(const std::string& queries, const std::string& format = "1") {
  return R"({"format":)" + format +
         R"(,"recorded_at":1795857000,"at":1795856400,"source":"s","queries":)" + queries + "}";
}

TEST_CASE("a recorded snapshot replays every body byte for byte", "[snapshot]") {
  testing::TempDir tmp;
  const std::string dir = tmp / "snap";
  TableSource live({{"pod_info", R"({"status":"success"})"}, {"node_info", kOddBody}});
  ManualClock clock(kRecordedAt);
  SnapshotWriter writer(live, dir, &clock);
  CHECK(writer.describe() == "table source");

  REQUIRE(writer.instantQuery({"pod_info", "kube_pod_info"}, kQueryTime).ok());
  REQUIRE(writer.instantQuery({"node_info", "kube_node_info{a=\"ü\"}"}, kQueryTime + 1).ok());
  REQUIRE_FALSE(writer.instantQuery({"missing", "absent_metric"}, kQueryTime).ok());
  CHECK(writer.recordedCount() == 2);
  REQUIRE(writer.finish(kQueryTime).ok());

  auto replay = openOk(dir);
  CHECK(replay->recordedAt() == kRecordedAt);
  CHECK(replay->analysisTime() == kQueryTime);
  CHECK(replay->manifest().source == "table source");
  REQUIRE(replay->manifest().queries.size() == 2);
  CHECK(replay->manifest().queries[1].at == kQueryTime + 1);
  CHECK(replay->describe() == "snapshot " + dir + " (recorded from table source)");

  auto pods = replay->instantQuery({"pod_info", "kube_pod_info"}, 0);
  REQUIRE(pods.ok());
  CHECK(pods->json == R"({"status":"success"})");
  auto nodes = replay->instantQuery({"node_info", "kube_node_info{a=\"ü\"}"}, 0);
  REQUIRE(nodes.ok());
  CHECK(nodes->json == kOddBody);
  CHECK(nodes->json.capacity() >= nodes->json.size() + kBodyPadding);

  auto missing = replay->instantQuery({"missing", "absent_metric"}, 0);
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("query missing: not recorded"));
  CHECK_THAT(missing.error().message, Catch::Contains("pod_info"));
}

TEST_CASE("a query whose PromQL changed since recording must be re-recorded", "[snapshot]") {
  testing::TempDir tmp;
  TableSource live({{"pod_info", "{}"}});
  SnapshotWriter writer(live, tmp / "snap");
  REQUIRE(writer.instantQuery({"pod_info", "kube_pod_info"}, kQueryTime).ok());
  REQUIRE(writer.finish(kQueryTime).ok());
  auto result =
      openOk(tmp / "snap")->instantQuery({"pod_info", "kube_pod_info{x=\"1\"}"}, kQueryTime);
  REQUIRE_FALSE(result.ok());
  CHECK_THAT(result.error().message, Catch::Contains("recorded with another query text"));
  CHECK_THAT(result.error().message, Catch::Contains("re-record"));
}

TEST_CASE("a name asked with several texts is recorded and replayed once per text", "[snapshot]") {
  testing::TempDir tmp;
  TableSource live({{R"(up{pod="a"})", "A"}, {R"(up{pod="b"})", "B"}, {"pods_2", "C"}});
  SnapshotWriter writer(live, tmp / "snap");
  REQUIRE(writer.instantQuery({"pods", R"(up{pod="a"})"}, kQueryTime).ok());
  REQUIRE(writer.instantQuery({"pods", R"(up{pod="b"})"}, kQueryTime).ok());
  REQUIRE(writer.instantQuery({"pods_2", "up"}, kQueryTime).ok());  // its natural file is taken
  REQUIRE(writer.instantQuery({"pods", R"(up{pod="a"})"}, kQueryTime + 60).ok());  // replaces
  CHECK(writer.recordedCount() == 3);
  REQUIRE(writer.finish(kQueryTime).ok());

  auto replay = openOk(tmp / "snap");
  std::set<std::string> files;
  for (const ManifestQuery& q : replay->manifest().queries) {
    files.insert(q.file);
  }
  CHECK(files.size() == 3);
  const auto body = [&](const char* name, const char* promql) {
    auto answer = replay->instantQuery({name, promql}, kQueryTime);
    return answer.ok() ? answer->json.str() : "error: " + answer.error().message;
  };
  CHECK(body("pods", R"(up{pod="a"})") == "A");
  CHECK(body("pods", R"(up{pod="b"})") == "B");
  CHECK(body("pods_2", "up") == "C");
  CHECK_THAT(body("pods", R"(up{pod="c"})"), Catch::Contains("recorded with another query text"));
}

TEST_CASE("the writer refuses unsafe query names without forwarding them", "[snapshot]") {
  testing::TempDir tmp;
  TableSource live({{"Pod-Info", "{}"}});
  SnapshotWriter writer(live, tmp / "snap");
  for (const char* name : {"Pod-Info", "../x", "", "a.json"}) {
    INFO(name);
    auto result = writer.instantQuery({name, "up"}, kQueryTime);
    REQUIRE_FALSE(result.ok());
    CHECK_THAT(result.error().message, Catch::Contains("[a-z0-9_]+"));
  }
  CHECK(live.calls == 0);
}

TEST_CASE("finish replaces an earlier snapshot and leaves no temporary files", "[snapshot]") {
  testing::TempDir tmp;
  const std::string dir = tmp / "snap";
  TableSource first({{"q", "first"}});
  SnapshotWriter first_writer(first, dir);
  REQUIRE(first_writer.instantQuery({"q", "up"}, kQueryTime).ok());
  REQUIRE(first_writer.finish(kQueryTime).ok());

  TableSource second({{"q", "second"}, {"r", "other"}});
  SnapshotWriter second_writer(second, dir + "/");
  REQUIRE(second_writer.instantQuery({"q", "up"}, kQueryTime).ok());
  REQUIRE(second_writer.instantQuery({"q", "up"}, kQueryTime).ok());  // repeated: recorded once
  REQUIRE(second_writer.finish(kQueryTime + 60).ok());

  auto replay = openOk(dir);
  CHECK(replay->analysisTime() == kQueryTime + 60);
  CHECK(replay->manifest().queries.size() == 1);
  CHECK(replay->instantQuery({"q", "up"}, 0)->json == "second");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(tmp.path())) {
    ++entries;
  }
  CHECK(entries == 1);  // only "snap": no staging or old directories left behind
}

TEST_CASE("finish never replaces a directory that is not a snapshot", "[snapshot]") {
  testing::TempDir tmp;
  const std::string dir = tmp / "precious";
  fs::create_directory(dir);
  writeFile(dir + "/keep.txt", "mine");
  TableSource live({{"q", "{}"}});
  SnapshotWriter writer(live, dir);
  REQUIRE(writer.instantQuery({"q", "up"}, kQueryTime).ok());
  auto finished = writer.finish(kQueryTime);
  REQUIRE_FALSE(finished.ok());
  CHECK_THAT(finished.error().message, Catch::Contains("not a snapshot directory"));
  CHECK(fs::exists(dir + "/keep.txt"));
  CHECK_FALSE(fs::exists(dir + "/manifest.json"));
}

TEST_CASE("a missing manifest is an Error naming the file", "[snapshot]") {
  testing::TempDir tmp;
  auto source = SnapshotSource::open(tmp.path());
  REQUIRE_FALSE(source.ok());
  CHECK_THAT(source.error().describe(), Catch::Contains(tmp / "manifest.json"));
}

TEST_CASE("manifest faults name the faulty field", "[snapshot]") {
  const std::string good = R"({"name":"q","promql":"up","at":1795856400,"file":"q.json"})";
  struct Case {
    std::string manifest;
    std::string field;
  };
  const std::vector<Case> cases = {
      {"not json", "$"},
      {manifestWith("[" + good + "]", "2"), "format"},
      {manifestWith("[" + good + "]", "\"1\""), "format"},
      {manifestWith("{}"), "queries"},
      {R"({"format":1,"at":1,"source":"s","queries":[]})", "recorded_at"},
      {R"({"format":1,"recorded_at":1,"source":"s","queries":[]})", "at"},
      {R"({"format":1,"recorded_at":1,"at":1,"source":7,"queries":[]})", "source"},
      {manifestWith("[" + good + R"(,{"name":"r","promql":5,"at":1,"file":"r.json"}])"),
       "queries[1].promql"},
      {manifestWith(R"([{"name":"q","promql":"up","at":"now","file":"q.json"}])"), "queries[0].at"},
      {manifestWith(R"([{"name":"q","promql":"up","at":1,"file":"../../etc/passwd"}])"),
       "queries[0].file"},
      {manifestWith(R"([{"name":"Q","promql":"up","at":1,"file":"q.json"}])"), "queries[0].name"},
      {manifestWith("[" + good + "," + good + "]"), "queries[1].name"},
      {manifestWith("[" + good + R"(,{"name":"q","promql":"up2","at":1,"file":"q.json"}])"),
       "queries[1].file"},
      {manifestWith("[7]"), "queries[0]"},
  };
  for (const auto& c : cases) {
    INFO(c.manifest);
    testing::TempDir tmp;
    writeFile(tmp / "manifest.json", c.manifest);
    auto source = SnapshotSource::open(tmp.path());
    REQUIRE_FALSE(source.ok());
    CHECK(source.error().field == (tmp / "manifest.json") + ": " + c.field);
  }
}

TEST_CASE("a manifest entry whose body file is gone fails that query only", "[snapshot]") {
  testing::TempDir tmp;
  writeFile(tmp / "manifest.json",
            manifestWith(R"([{"name":"q","promql":"up","at":1,"file":"q.json"},)"
                         R"({"name":"r","promql":"up","at":1,"file":"r.json"}])"));
  writeFile(tmp / "r.json", "{}");
  auto source = openOk(tmp.path());
  auto gone = source->instantQuery({"q", "up"}, 0);
  REQUIRE_FALSE(gone.ok());
  CHECK_THAT(gone.error().message, Catch::Contains(tmp / "q.json"));
  CHECK(source->instantQuery({"r", "up"}, 0).ok());
}

}  // namespace
}  // namespace dagadvisor::sources
