#include "sources/scrape/scraper.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "loopback_server.h"
#include "temp_dir.h"

namespace dagadvisor::sources::scrape {
namespace {

using testing::LoopbackServer;
using testing::Reply;
using testing::SeenRequest;

struct Seen {
  std::string target;
  std::string body;
  exposition::Format format = exposition::Format::kPrometheusText;
  UnixSeconds at = 0;
};

Result<std::vector<Seen>> scrapeAll(const std::vector<std::string>& targets, const Clock& clock) {
  ScraperOptions options;
  options.targets = targets;
  options.timeout = std::chrono::milliseconds(5000);
  auto scraper = Scraper::create(options, &clock);
  if (!scraper.ok()) {
    return scraper.error();
  }
  std::vector<Seen> seen;
  auto done = (*scraper)->scrapeAll([&](const ScrapedBody& b) -> Result<void> {
    seen.push_back({std::string(b.target), std::string(b.body), b.format, b.scraped_at});
    return {};
  });
  if (!done.ok()) {
    return done.error();
  }
  return seen;
}

}  // namespace

TEST_CASE("the file format follows the extension or a final # EOF", "[sources][scrape]") {
  using exposition::Format;
  CHECK(fileFormat("ksm.om", "a 1\n") == Format::kOpenMetrics);
  CHECK(fileFormat("ksm.txt", "a 1\n# EOF\n") == Format::kOpenMetrics);
  CHECK(fileFormat("ksm.txt", "a 1\n# EOF") == Format::kOpenMetrics);
  CHECK(fileFormat("ksm.txt", "# EOF\n") == Format::kOpenMetrics);
  CHECK(fileFormat("ksm.prom", "a 1\n") == Format::kPrometheusText);
  CHECK(fileFormat("ksm.prom", "a 1\n# EOFX\n") == Format::kPrometheusText);
}

TEST_CASE("scraper targets are checked when it is created", "[sources][scrape]") {
  CHECK_FALSE(Scraper::create({}).ok());
  ScraperOptions options;
  options.targets = {""};
  CHECK_FALSE(Scraper::create(options).ok());
  options.targets = {"http://"};
  CHECK_FALSE(Scraper::create(options).ok());
  options.targets = {"http://ksm:8080/metrics?x=1"};
  CHECK_FALSE(Scraper::create(options).ok());
  options.targets = {"http://user:secret@ksm:8080/metrics", "/var/ksm.om"};
  auto scraper = Scraper::create(options);
  REQUIRE(scraper.ok());
  CHECK((*scraper)->describe().find("secret") == std::string::npos);
  CHECK((*scraper)->describe().find("/var/ksm.om") != std::string::npos);
}

TEST_CASE("a scrape reads URLs with the exposition Accept header, and files", "[sources][scrape]") {
  auto& server = LoopbackServer::instance();
  server.route("/scrape/ksm", [](const SeenRequest&, std::size_t) {
    return Reply{200,
                 "application/openmetrics-text; version=1.0.0; charset=utf-8",
                 "a_total 1\n# EOF\n",
                 {}};
  });
  server.route("/scrape/scheduler", [](const SeenRequest&, std::size_t) {
    return Reply{200, "text/plain", "b 2\n", {}};
  });
  testing::TempDir dir;
  const std::string file = dir.path() + "/usage.prom";
  std::ofstream(file) << "c 3\n";
  ManualClock clock(1234);

  auto seen = scrapeAll({server.url("/scrape/ksm"), server.url("/scrape/scheduler"), file}, clock);
  REQUIRE(seen.ok());
  REQUIRE(seen->size() == 3);
  CHECK((*seen)[0].format == exposition::Format::kOpenMetrics);
  CHECK((*seen)[0].body == "a_total 1\n# EOF\n");
  CHECK((*seen)[1].format == exposition::Format::kPrometheusText);
  CHECK((*seen)[2].target == file);
  CHECK((*seen)[2].body == "c 3\n");
  CHECK((*seen)[2].at == 1234);
  const auto requests = server.seen("/scrape/ksm");
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].header("Accept") == std::string(kAcceptHeader));
  CHECK(requests[0].header("Accept-Encoding").find("gzip") != std::string::npos);
}

TEST_CASE("a failing target fails the scrape and is named", "[sources][scrape]") {
  auto& server = LoopbackServer::instance();
  server.route("/scrape/broken", [](const SeenRequest&, std::size_t) {
    return Reply{503, "text/plain", "starting up", {}};
  });
  ManualClock clock(0);
  auto status = scrapeAll({server.url("/scrape/broken")}, clock);
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().message.find("/scrape/broken") != std::string::npos);
  CHECK(status.error().message.find("503") != std::string::npos);
  CHECK(status.error().message.find("starting up") != std::string::npos);

  auto missing = scrapeAll({"/nonexistent/dagadvisor.prom"}, clock);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("/nonexistent/dagadvisor.prom") != std::string::npos);
}

}  // namespace dagadvisor::sources::scrape
