#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "sources/exposition/exposition_parser.h"
#include "sources/http_client.h"

namespace dagadvisor::sources::scrape {

/// The Accept header of a direct scrape: OpenMetrics preferred, the 0.0.4 text format accepted.
inline constexpr std::string_view kAcceptHeader =
    "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4";

/// One target's exposition body, valid during the consumer call only.
struct ScrapedBody {
  std::string_view target;  // the URL without credentials, or the file path
  std::string_view body;
  exposition::Format format = exposition::Format::kPrometheusText;
  UnixSeconds scraped_at = 0;  // the default timestamp of samples that carry none
};

/// Called once per target, in target order; an Error stops the scrape and is returned.
using BodyConsumer = std::function<Result<void>(const ScrapedBody&)>;

struct ScraperOptions {
  /// http(s):// URLs, scraped with kAcceptHeader, and/or paths of exposition files.
  std::vector<std::string> targets;
  std::chrono::milliseconds timeout{10000};  // per target
  HttpClientOptions http;                    // credentials and TLS for every URL target
};

/// The format of an exposition file: OpenMetrics when the path ends in ".om" or the body's last
/// line is "# EOF", else the Prometheus text format.
exposition::Format fileFormat(std::string_view path, std::string_view body);

/// Reads every target of a direct scrape, one after the other, handing each body to the
/// consumer before the next is read: memory holds one body at a time, however many targets.
/// Not thread-safe.
class Scraper {
 public:
  /// Checks the targets (non-empty list; each a valid URL or a non-empty path).
  static Result<std::unique_ptr<Scraper>> create(ScraperOptions options,
                                                 const Clock* clock = nullptr);

  /// Scrapes every target. A transport failure, an HTTP status other than 200, an unreadable
  /// file or the consumer's Error fails the whole scrape: a cluster missing a target's part
  /// would be analysed as if it were complete. The error names the target.
  Result<void> scrapeAll(const BodyConsumer& consume);

  /// "scrape <target>, <target>" without credentials.
  std::string describe() const;

  /// Bytes read by the last scrapeAll().
  std::size_t lastBytes() const { return last_bytes_; }

 private:
  Scraper(ScraperOptions options, const Clock* clock);
  Result<void> scrapeUrl(const std::string& url, const BodyConsumer& consume);
  Result<void> scrapeFile(const std::string& path, const BodyConsumer& consume);

  ScraperOptions options_;
  const Clock* clock_;
  SystemClock system_clock_;
  HttpClient client_;
  std::size_t last_bytes_ = 0;
};

}  // namespace dagadvisor::sources::scrape
