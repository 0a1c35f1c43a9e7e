#include "common/log.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

using namespace dagadvisor;

namespace {

// Runs `emit` with the logger writing to a temporary file and returns what it wrote.
template <typename Fn>
std::string capture(Fn emit) {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  log::setOutput(file);
  emit();
  log::setOutput(nullptr);
  std::rewind(file);
  std::string text;
  char buf[512];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, file)) {
    text.append(buf, n);
  }
  std::fclose(file);
  return text;
}

}  // namespace

TEST_CASE("logfmt lines carry level, component, message and quoted fields", "[log]") {
  log::setFormat(log::Format::kLogfmt);
  log::setLevel(log::Level::kInfo);
  const std::string line = capture([] {
    log::Logger("sources").warn("query failed", {{"query", "pod_info"}, {"error", "a \"b\" c"}});
  });
  CHECK(line.rfind("ts=", 0) == 0);
  CHECK_THAT(line, Catch::Contains(" level=warn component=sources msg=\"query failed\" "));
  CHECK_THAT(line, Catch::Contains(" query=pod_info "));
  CHECK_THAT(line, Catch::EndsWith(" error=\"a \\\"b\\\" c\"\n"));
}

TEST_CASE("lines below the level are dropped", "[log]") {
  log::setLevel(log::Level::kWarn);
  const std::string text = capture([] {
    log::Logger("x").info("hidden");
    log::Logger("x").error("shown");
  });
  log::setLevel(log::Level::kInfo);
  CHECK(text.find("hidden") == std::string::npos);
  CHECK(text.find("shown") != std::string::npos);
}

TEST_CASE("json lines parse as JSON with every field", "[log]") {
  log::setFormat(log::Format::kJson);
  const std::string line = capture([] {
    log::Logger("app").info("started", {{"listen", "127.0.0.1:9731"}, {"q", "\"\\\n"}});
  });
  log::setFormat(log::Format::kLogfmt);
  const auto parsed = nlohmann::json::parse(line);
  CHECK(parsed["level"] == "info");
  CHECK(parsed["component"] == "app");
  CHECK(parsed["msg"] == "started");
  CHECK(parsed["listen"] == "127.0.0.1:9731");
  CHECK(parsed["q"] == "\"\\\n");
}

TEST_CASE("log levels parse from their names only", "[log]") {
  log::Level level = log::Level::kInfo;
  CHECK(log::parseLevel("debug", level));
  CHECK(level == log::Level::kDebug);
  CHECK_FALSE(log::parseLevel("verbose", level));
}
