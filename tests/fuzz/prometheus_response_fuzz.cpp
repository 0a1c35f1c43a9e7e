// The Prometheus query-answer decoder (simdjson On-Demand): every kernel this CPU runs must give
// the same verdict and the same samples, and the in-place parse of a padded body the same as the
// copying one. Never throws.

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "sources/http_client.h"
#include "sources/prometheus/response_parser.h"

namespace {

using namespace dagadvisor;

// A decode's observable outcome, comparable across kernels.
struct Outcome {
  bool ok = false;
  std::string error;
  std::vector<std::string> samples;  // labels and value bits, one string per sample
  std::size_t summary_samples = 0;
  std::vector<std::string> warnings;

  bool operator==(const Outcome&) const = default;
};

std::string sampleKey(const sources::SampleView& s) {
  std::string key;
  for (std::size_t i = 0; i < s.label_count; ++i) {
    key.append(s.labels[i].first).push_back('=');
    key.append(s.labels[i].second).push_back(',');
  }
  // NaNs compare unequal; their bits (all kernels parse "NaN" the same way) do not.
  key += std::to_string(std::bit_cast<std::uint64_t>(s.value)) + "@" +
         std::to_string(std::bit_cast<std::uint64_t>(s.timestamp));
  return key;
}

template <typename Decode>
Outcome outcomeOf(const Decode& decode) {
  Outcome out;
  auto result = decode([&](const sources::SampleView& s) { out.samples.push_back(sampleKey(s)); });
  out.ok = result.ok();
  if (result) {
    out.summary_samples = result->samples;
    out.warnings = result->warnings;
    fuzz::check(out.summary_samples == out.samples.size(), "summary counts every visited sample");
  } else {
    out.error = result.error().describe();
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = fuzz::asText(data, size);
  const Outcome reference = outcomeOf([&](const sources::SampleVisitor& visit) {
    return sources::decodeInstantVector(body, visit);
  });
  for (std::string_view kernel : sources::detail::decoderKernels()) {
    const Outcome other = outcomeOf([&](const sources::SampleVisitor& visit) {
      return sources::detail::decodeInstantVectorWith(kernel, body, visit);
    });
    fuzz::check(other == reference, "every simdjson kernel decodes alike");
  }
  const sources::QueryBody padded{sources::BodyBuffer(body)};  // padded by its construction
  const Outcome in_place = outcomeOf([&](const sources::SampleVisitor& visit) {
    return sources::decodeInstantVector(padded, visit);
  });
  fuzz::check(in_place == reference, "the in-place parse decodes like the copying one");
  return 0;
}
