#include "sources/scrape/scraper.h"

#include <fstream>

namespace dagadvisor::sources::scrape {
namespace {

bool isUrl(std::string_view target) {
  return target.starts_with("http://") || target.starts_with("https://");
}

// The body with trailing line breaks dropped, so that "# EOF\n" and "# EOF" both end in "# EOF".
bool endsWithEof(std::string_view body) {
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) {
    body.remove_suffix(1);
  }
  return body.ends_with("\n# EOF") || body == "# EOF";
}

// One read into a buffer of the file's size: exposition files of a big cluster are hundreds of
// MB, and stream-buffer copies would cost more than parsing them.
Result<std::string> readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    return makeError("cannot read exposition file " + path, path);
  }
  const std::streamoff size = in.tellg();
  std::string body;
  if (size > 0) {
    body.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(body.data(), size);
  }
  if (size < 0 || in.bad() || (size > 0 && in.gcount() != size)) {
    return makeError("error reading exposition file " + path, path);
  }
  return body;
}

}  // namespace

exposition::Format fileFormat(std::string_view path, std::string_view body) {
  return path.ends_with(".om") || endsWithEof(body) ? exposition::Format::kOpenMetrics
                                                    : exposition::Format::kPrometheusText;
}

Result<std::unique_ptr<Scraper>> Scraper::create(ScraperOptions options, const Clock* clock) {
  if (options.targets.empty()) {
    return makeError("no scrape target", "targets");
  }
  for (const std::string& target : options.targets) {
    if (target.empty()) {
      return makeError("empty scrape target", "targets");
    }
    if (isUrl(target)) {
      // The URL is used whole (it names the metrics path); this only checks its shape.
      if (auto base = normalizeBaseUrl(target); !base.ok()) {
        return makeError(base.error().message, "targets");
      }
    }
  }
  if (options.timeout.count() <= 0) {
    return makeError("must be positive", "timeout");
  }
  return std::unique_ptr<Scraper>(new Scraper(std::move(options), clock));
}

Scraper::Scraper(ScraperOptions options, const Clock* clock)
    : options_(std::move(options)), clock_(clock), client_([&] {
        HttpClientOptions http = withTimeout(options_.http, options_.timeout);
        http.headers["Accept"] = std::string(kAcceptHeader);
        return http;
      }()) {}

std::string Scraper::describe() const {
  std::string out = "scrape";
  for (const std::string& target : options_.targets) {
    out += (out.size() == 6 ? " " : ", ") + (isUrl(target) ? redactUrl(target) : target);
  }
  return out;
}

Result<void> Scraper::scrapeAll(const BodyConsumer& consume) {
  last_bytes_ = 0;
  for (const std::string& target : options_.targets) {
    auto done = isUrl(target) ? scrapeUrl(target, consume) : scrapeFile(target, consume);
    if (!done.ok()) {
      return done.error();
    }
  }
  return {};
}

Result<void> Scraper::scrapeUrl(const std::string& url, const BodyConsumer& consume) {
  const std::string shown = redactUrl(url);
  auto response = client_.get(url, {});
  if (!response.ok()) {
    return makeError("scrape " + shown + ": " + response.error().message, shown);
  }
  if (response->status != 200) {
    return makeError("scrape " + shown + ": HTTP " + std::to_string(response->status) + ": " +
                         bodySnippet(response->body),
                     shown);
  }
  last_bytes_ += response->body.size();
  const UnixSeconds now = (clock_ != nullptr ? *clock_ : system_clock_).now();
  return consume(ScrapedBody{shown, response->body,
                             exposition::formatFromContentType(response->content_type), now});
}

Result<void> Scraper::scrapeFile(const std::string& path, const BodyConsumer& consume) {
  auto body = readWholeFile(path);
  if (!body.ok()) {
    return body.error();
  }
  last_bytes_ += body->size();
  const UnixSeconds now = (clock_ != nullptr ? *clock_ : system_clock_).now();
  return consume(ScrapedBody{path, *body, fileFormat(path, *body), now});
}

}  // namespace dagadvisor::sources::scrape
