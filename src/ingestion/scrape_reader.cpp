#include "ingestion/scrape_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <new>

namespace dagadvisor::ingestion {
namespace {

// JSON string contents: label values are user data (annotations hold anything).
void appendEscaped(sources::BodyBuffer& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const bool plain = std::none_of(text.begin(), text.end(), [](char c) {
    return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
  });
  if (plain) {  // nearly every label: one append instead of one per character
    out += text;
    return;
  }
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
}

void appendNumber(sources::BodyBuffer& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
    return;
  }
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  out.append(std::string_view(text, static_cast<std::size_t>(end - text)));
}

void appendSample(sources::BodyBuffer& out, const sources::SampleView& s) {
  out += out.back() == '[' ? "{\"metric\":{" : ",{\"metric\":{";
  for (std::size_t i = 0; i < s.label_count; ++i) {
    out += i == 0 ? "\"" : ",\"";
    appendEscaped(out, s.labels[i].first);
    out += "\":\"";
    appendEscaped(out, s.labels[i].second);
    out += '"';
  }
  out += "},\"value\":[";
  appendNumber(out, s.timestamp);
  out += ",\"";
  appendNumber(out, s.value);
  out += "\"]}";
}

}  // namespace

Result<std::size_t> scrapeCycle(sources::scrape::Scraper& scraper, ScrapeEvaluator& evaluator,
                                UnixSeconds now) {
  evaluator.beginCycle(now);
  std::size_t targets = 0;
  auto done = scraper.scrapeAll([&](const sources::scrape::ScrapedBody& body) {
    ++targets;
    return evaluator.addBody(body);
  });
  if (!done.ok()) {
    return done.error();  // no endCycle: a failed scrape must not become the base of next rates
  }
  evaluator.endCycle();
  return targets;
}

sources::BodyBuffer renderInstantVector(const ScrapeEvaluator& evaluator, QueryId id,
                                        std::size_t size_hint) {
  sources::BodyBuffer out;
  // A hint of the size spares the growth steps of a body of hundreds of MB; the padding lets
  // the JSON decoder read it in place.
  (void)out.reserve(size_hint + sources::kBodyPadding);  // on failure, append() throws
  out += R"({"status":"success","data":{"resultType":"vector","result":[)";
  evaluator.emit(id, [&](const sources::SampleView& s) { appendSample(out, s); });
  out += "]}}";
  if (!out.reserve(out.size() + sources::kBodyPadding)) {
    throw std::bad_alloc();
  }
  return out;
}

ScrapeAnswers::ScrapeAnswers(const ScrapeEvaluator& evaluator,
                             const config::PrometheusSource& settings, std::string description)
    : evaluator_(evaluator), catalog_(settings), description_(std::move(description)) {}

Result<sources::QueryBody> ScrapeAnswers::instantQuery(const sources::Query& query,
                                                       UnixSeconds /*at: the last read's*/) {
  std::size_t index = 0;
  while (index < kQueryCount && catalog_.all()[index].name != query.name) {
    ++index;
  }
  if (index == kQueryCount) {
    return makeError("a direct scrape answers the catalog's queries only, not " + query.name,
                     query.name);
  }
  sources::BodyBuffer body =
      renderInstantVector(evaluator_, static_cast<QueryId>(index), body_sizes_[index] * 9 / 8);
  body_sizes_[index] = body.size();
  return sources::QueryBody{std::move(body)};
}

ScrapeClusterReader::ScrapeClusterReader(std::unique_ptr<sources::scrape::Scraper> scraper,
                                         const config::Sources& settings, const Clock* clock)
    : scraper_(std::move(scraper)),
      evaluator_(settings.prometheus.metrics, settings.scrape.lookback),
      answers_(evaluator_, settings.prometheus, scraper_->describe()),
      catalog_(settings.prometheus),
      clock_(clock) {}

Result<model::ClusterSnapshot> ScrapeClusterReader::read(UnixSeconds at, FetchStats& stats) {
  const UnixSeconds now = (clock_ != nullptr ? *clock_ : system_clock_).now();
  auto targets = scrapeCycle(*scraper_, evaluator_, now);
  if (!targets.ok()) {
    return targets.error();
  }
  stats.queries += *targets;
  stats.bytes += scraper_->lastBytes();
  if (auto recorded = record(at); !recorded.ok()) {
    return recorded.error();
  }
  return buildScrapedSnapshot(evaluator_, at);
}

Result<void> ScrapeClusterReader::record(UnixSeconds at) {
  if (recording_ == nullptr) {
    return {};
  }
  for (const sources::Query& query : catalog_.all()) {
    if (auto body = recording_->instantQuery(query, at); !body.ok()) {
      return body.error();
    }
  }
  return {};
}

}  // namespace dagadvisor::ingestion
