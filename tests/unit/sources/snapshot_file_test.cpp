#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sources/http_client.h"
#include "sources/snapshot/snapshot_format.h"
#include "temp_dir.h"

namespace dagadvisor::sources {
namespace {

using testing::TempDir;

TEST_CASE("readWholeFile reads a regular file, padded for the decoder", "[snapshot]") {
  TempDir dir;
  std::ofstream(dir / "q.json") << R"({"status":"success"})";
  auto text = readWholeFile(dir / "q.json");
  REQUIRE(text.ok());
  CHECK(*text == R"({"status":"success"})");
  CHECK(text->capacity() >= text->size() + kBodyPadding);
}

TEST_CASE("a directory, a FIFO or an oversized file in a snapshot is a clear error", "[snapshot]") {
  TempDir dir;
  std::filesystem::create_directory(dir / "a_directory");
  REQUIRE(::mkfifo((dir / "a_fifo").c_str(), 0600) == 0);
  std::ofstream(dir / "big.json") << std::string(2048, ' ');

  const auto directory = readWholeFile(dir / "a_directory");
  REQUIRE_FALSE(directory.ok());
  CHECK_THAT(directory.error().message,
             Catch::Contains("a_directory: not a regular file (a directory)"));

  // Opening a FIFO for reading would wait for a writer forever; this returns at once.
  const auto fifo = readWholeFile(dir / "a_fifo");
  REQUIRE_FALSE(fifo.ok());
  CHECK_THAT(fifo.error().message, Catch::Contains("a_fifo: not a regular file (a FIFO)"));

  const auto big = readWholeFile(dir / "big.json", 1024);
  REQUIRE_FALSE(big.ok());
  CHECK_THAT(big.error().message, Catch::Contains("2048 bytes, more than the limit of 1024"));

  const auto missing = readWholeFile(dir / "missing.json");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("missing.json"));
}

}  // namespace
}  // namespace dagadvisor::sources
