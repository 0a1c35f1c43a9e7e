// The direct-scrape exposition parser (Prometheus text 0.0.4 and OpenMetrics 1.0), on every input
// in both formats: it never throws and never reads outside the body (ASan), the metric name is
// always labels[0] "__name__", the summary counts what was visited, and errors name their line.

#include <string>

#include "fuzz_check.h"
#include "sources/exposition/exposition_parser.h"

namespace {

using namespace dagadvisor;
using sources::exposition::Format;

void parseAs(std::string_view body, Format format) {
  const sources::exposition::ParseOptions options{format, 1.7e9};
  std::size_t typed = 0;
  std::size_t last_line = 0;
  auto result = sources::exposition::parseExpositionTyped(
      body, options,
      [&](const sources::SampleView& s, const sources::exposition::SampleContext& context) {
        fuzz::check(s.label_count >= 1 && s.labels[0].first == "__name__", "labels[0] is __name__");
        fuzz::check(!s.labels[0].second.empty(), "a sample has a metric name");
        fuzz::check(context.line > last_line, "samples come in body order, one per line");
        last_line = context.line;
        ++typed;
      });
  std::size_t untyped = 0;
  auto plain = sources::exposition::parseExposition(body, options,
                                                    [&](const sources::SampleView&) { ++untyped; });
  fuzz::check(plain.ok() == result.ok() && untyped == typed, "typed and plain parses agree");
  if (result) {
    fuzz::check(result->samples == typed, "the summary counts every visited sample");
    fuzz::check(result->lines >= last_line, "the summary counts every line");
  } else {
    fuzz::check(result.error().field.rfind("line ", 0) == 0, "a syntax error names its line");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::asText(data, size);
  parseAs(body, Format::kPrometheusText);
  parseAs(body, Format::kOpenMetrics);
  return 0;
}
