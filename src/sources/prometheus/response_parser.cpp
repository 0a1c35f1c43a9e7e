#include "sources/prometheus/response_parser.h"

#include <simdjson.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/secrets.h"
#include "sources/http_client.h"
#include "sources/prometheus/response_decoder.h"

namespace dagadvisor::sources {
namespace {

static_assert(kBodyPadding >= simdjson::SIMDJSON_PADDING,
              "HTTP bodies must carry the padding simdjson reads past the end");

const log::Logger kLog("fetch");

/// A walk compiled for one simdjson kernel (response_decoder_<kernel>.cpp).
struct Kernel {
  std::string_view name;
  decoder::DecodeFn decode;
};

/// The kernels this build carries, fastest first. simdjson 3.0 compiles On-Demand for one
/// implementation only, chosen at compile time (SIMDJSON_BUILTIN_IMPLEMENTATION): on a plain
/// x86-64 target that is the scalar fallback, even on a CPU whose runtime-dispatched stage 1
/// (and DOM parser) run AVX-512. So the walk is compiled once per x86 kernel, each in its own
/// target region, and the one simdjson's own runtime dispatch chose is used.
std::span<const Kernel> compiledKernels() {
  static const std::vector<Kernel> kernels = [] {
    std::vector<Kernel> all;
#if DAGADVISOR_DECODER_X86_KERNELS
    all.push_back({"icelake", &decoder::decodeIcelake});
    all.push_back({"haswell", &decoder::decodeHaswell});
    all.push_back({"westmere", &decoder::decodeWestmere});
#endif
    all.push_back({decoder::builtinName(), &decoder::decodeBuiltin});
    return all;
  }();
  return kernels;
}

/// A compiled kernel named `name` that this CPU can run, or nullptr.
const Kernel* findKernel(std::string_view name) {
  const simdjson::implementation* impl = simdjson::get_available_implementations()[name];
  if (impl == nullptr || !impl->supported_by_runtime_system()) {
    return nullptr;
  }
  for (const Kernel& kernel : compiledKernels()) {
    if (kernel.name == name) {
      return &kernel;
    }
  }
  return nullptr;
}

/// The kernel of simdjson's runtime dispatch (which SIMDJSON_FORCE_IMPLEMENTATION overrides),
/// else the builtin one. Chosen once per process.
const Kernel& activeKernel() {
  static const Kernel& chosen = []() -> const Kernel& {
    const std::string active = simdjson::get_active_implementation()->name();
    const Kernel* kernel = findKernel(active);
    if (kernel == nullptr) {
      kernel = &compiledKernels().back();
    }
    kLog.debug("json decoder kernel",
               {{"kernel", std::string(kernel->name)}, {"simdjson_active", active}});
    return *kernel;
  }();
  return chosen;
}

/// `sample` with every label value that holds a secret scrubbed; `values` and `labels` own the
/// copy's strings until the next call.
SampleView scrubbedCopy(const SampleView& sample, std::vector<std::string>& values,
                        std::vector<LabelView>& labels) {
  values.clear();
  labels.clear();
  values.reserve(sample.label_count);  // no reallocation: `labels` points into it
  for (std::size_t i = 0; i < sample.label_count; ++i) {
    values.push_back(scrubSecrets(sample.labels[i].second));
    labels.emplace_back(sample.labels[i].first, values.back());
  }
  SampleView copy = sample;
  copy.labels = labels.data();
  return copy;
}

/// Decodes with `kernel`, scrubbing label values: they are where a backend's data (not its
/// errors) enters the model, and a proxy that echoes the request's credentials into them must
/// not carry them into findings, runs and series. Without a registered secret this costs
/// nothing; with one, a length check per label value and a search in those long enough.
Result<DecodeSummary> decodeScrubbed(const Kernel& kernel, std::string_view body, bool padded,
                                     const SampleVisitor& visit, const DecodeLimits& limits) {
  const std::shared_ptr<const SecretForms> secrets = registeredSecretForms();
  if (secrets->forms.empty()) {
    return kernel.decode(body, padded, visit, limits);
  }
  std::vector<std::string> values;
  std::vector<LabelView> labels;
  const SampleVisitor scrubbing = [&](const SampleView& sample) {
    for (std::size_t i = 0; i < sample.label_count; ++i) {
      if (secrets->foundIn(sample.labels[i].second)) {
        visit(scrubbedCopy(sample, values, labels));
        return;
      }
    }
    visit(sample);
  };
  return kernel.decode(body, padded, scrubbing, limits);
}

Result<DecodeSummary> decode(std::string_view body, bool padded, const SampleVisitor& visit,
                             const DecodeLimits& limits = {}) {
  return decodeScrubbed(activeKernel(), body, padded, visit, limits);
}

}  // namespace

namespace decoder {

Error jsonFault(int code) {
  const auto error = static_cast<simdjson::error_code>(code);
  if (error == simdjson::MEMALLOC) {
    return makeError(std::string("out of memory while decoding the answer (simdjson: ") +
                         simdjson::error_message(error) + ")",
                     "$");
  }
  return makeError(std::string("malformed JSON: ") + simdjson::error_message(error), "$");
}

/// On-Demand reports the first fault it meets and trusts what it skips, so a fault might hide
/// malformed JSON elsewhere, which the contract reports instead (as the DOM decoder did). Faults
/// are rare, so only they pay for a full validation.
Error explain(std::string_view body, bool padded, Error fault) {
  simdjson::dom::parser validator;
  simdjson::dom::element root;
  if (auto err = validator.parse(body.data(), body.size(), !padded).get(root)) {
    return jsonFault(err);
  }
  return fault;
}

}  // namespace decoder

std::string_view decoderKernel() {
  return activeKernel().name;
}

namespace detail {

std::vector<std::string_view> decoderKernels() {
  std::vector<std::string_view> names;
  for (const Kernel& kernel : compiledKernels()) {
    if (findKernel(kernel.name) != nullptr &&
        std::find(names.begin(), names.end(), kernel.name) == names.end()) {
      names.push_back(kernel.name);
    }
  }
  return names;
}

namespace {

Result<DecodeSummary> decodeWith(std::string_view kernel, std::string_view body, bool padded,
                                 const SampleVisitor& visit, const DecodeLimits& limits = {}) {
  const Kernel* found = findKernel(kernel);
  if (found == nullptr) {
    return makeError("no such decoder kernel on this CPU: " + std::string(kernel));
  }
  return decodeScrubbed(*found, body, padded, visit, limits);
}

}  // namespace

Result<DecodeSummary> decodeInstantVectorWith(std::string_view kernel, std::string_view body,
                                              const SampleVisitor& visit) {
  return decodeWith(kernel, body, false, visit);
}

Result<DecodeSummary> decodeInstantVectorWith(std::string_view kernel, const QueryBody& body,
                                              const SampleVisitor& visit,
                                              const DecodeLimits& limits) {
  const BodyBuffer& json = body.json;
  return decodeWith(kernel, json, json.capacity() >= json.size() + simdjson::SIMDJSON_PADDING,
                    visit, limits);
}

}  // namespace detail

Result<DecodeSummary> decodeInstantVector(std::string_view body, const SampleVisitor& visit) {
  return decode(body, false, visit);
}

Result<DecodeSummary> decodeInstantVector(const QueryBody& body, const SampleVisitor& visit,
                                          const DecodeLimits& limits) {
  const BodyBuffer& json = body.json;
  return decode(json, json.capacity() >= json.size() + simdjson::SIMDJSON_PADDING, visit, limits);
}

std::optional<QueryStats> parseQueryStats(std::string_view body) {
  // A label value cannot hold this unescaped: the last match is data.stats itself. Its members
  // are numbers, so the first closing brace at depth 0 ends it.
  constexpr std::string_view kKey = "\"stats\":{";
  const std::size_t key = body.rfind(kKey);
  if (key == std::string_view::npos) {
    return std::nullopt;
  }
  const std::size_t open = key + kKey.size() - 1;
  std::size_t close = open;
  for (int depth = 0; close < body.size(); ++close) {
    depth += body[close] == '{' ? 1 : body[close] == '}' ? -1 : 0;
    if (depth == 0) {
      break;
    }
  }
  if (close == body.size()) {
    return std::nullopt;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element stats;
  if (parser.parse(simdjson::padded_string(body.substr(open, close - open + 1))).get(stats)) {
    return std::nullopt;
  }
  const auto number = [&](const char* path) {
    double value = 0;
    return stats.at_pointer(path).get(value) ? 0.0 : value;
  };
  return QueryStats{number("/timings/evalTotalTime"), number("/timings/execTotalTime"),
                    number("/samples/totalQueryableSamples"), number("/samples/peakSamples")};
}

}  // namespace dagadvisor::sources
