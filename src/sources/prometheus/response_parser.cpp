#include "sources/prometheus/response_parser.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

#include "sources/http_client.h"

namespace dagadvisor::sources {
namespace {

namespace dom = simdjson::dom;

static_assert(kBodyPadding >= simdjson::SIMDJSON_PADDING,
              "HTTP bodies must carry the padding simdjson reads past the end");

// A parser that grew for one huge response keeps that memory; above this size we let it go.
// Re-growing is far from free: a fresh parser's first parse of a 53 MB, 100k-series body took
// ~650 ms of CPU here (page faults on ~160 MB of copy, tape and strings) against ~27 ms for a
// warm one (bench_sources), and every cycle decodes bodies of the same size again. So the
// bound covers the 100k-series responses of the reference cluster with room to spare.
constexpr std::size_t kKeepParserBytes = std::size_t{64} << 20;

/// Where inside a point ("[ts, "value"]") decoding failed; the caller owns the path prefix,
/// so the success path builds no strings.
struct Fault {
  std::string_view suffix;
  std::string_view message;
};

bool parseValue(std::string_view text, double& out) {
  if (text == "NaN") {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (text == "+Inf" || text == "Inf" || text == "-Inf") {
    out = text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

std::optional<Fault> decodePoint(dom::element point, SampleView& out) {
  dom::array pair;
  if (point.get(pair) != simdjson::SUCCESS) {
    return Fault{"", "expected a [timestamp, \"value\"] array"};
  }
  if (pair.size() != 2) {
    return Fault{"", "expected exactly two elements [timestamp, \"value\"]"};
  }
  if (pair.at(0).get(out.timestamp) != simdjson::SUCCESS) {
    return Fault{"[0]", "expected a numeric timestamp"};
  }
  dom::element value;
  if (pair.at(1).get(value) != simdjson::SUCCESS) {
    return Fault{"[1]", "missing value"};
  }
  std::string_view text;
  if (value.get(text) == simdjson::SUCCESS) {
    return parseValue(text, out.value) ? std::nullopt
                                       : std::optional<Fault>(Fault{"[1]", "not a number"});
  }
  if (value.get(out.value) == simdjson::SUCCESS) {
    return std::nullopt;
  }
  return Fault{"[1]", "expected a string or number value"};
}

std::string indexed(std::string_view base, std::size_t i, std::string_view suffix = {}) {
  return std::string(base) + "[" + std::to_string(i) + "]" + std::string(suffix);
}

class Decoder {
 public:
  bool busy() const { return busy_; }

  /// `padded`: SIMDJSON_PADDING readable bytes follow the body, so it is parsed where it is.
  Result<DecodeSummary> decode(std::string_view body, bool padded, const SampleVisitor& visit) {
    struct Busy {  // released even when the visitor throws
      Decoder& self;
      explicit Busy(Decoder& d) : self(d) { self.busy_ = true; }
      ~Busy() {
        self.busy_ = false;
        self.labels_.clear();
      }
    } busy(*this);
    auto result = decodeBody(body, padded, visit);
    if (body.size() > kKeepParserBytes) {
      parser_ = dom::parser{};
    }
    return result;
  }

 private:
  Result<DecodeSummary> decodeBody(std::string_view body, bool padded, const SampleVisitor& visit) {
    dom::element root;
    if (auto err = parser_.parse(body.data(), body.size(), !padded).get(root)) {
      return makeError(std::string("malformed JSON: ") + simdjson::error_message(err), "$");
    }
    dom::object top;
    if (root.get(top) != simdjson::SUCCESS) {
      return makeError("expected a JSON object", "$");
    }
    std::string_view status;
    if (top["status"].get(status) != simdjson::SUCCESS) {
      return makeError("missing or not a string", "status");
    }
    if (status == "error") {
      return apiError(top);
    }
    if (status != "success") {
      return makeError("unknown status \"" + std::string(status) + "\"", "status");
    }
    DecodeSummary summary;
    if (auto warned = readWarnings(top, summary); !warned) {
      return warned.error();
    }
    dom::object data;
    if (top["data"].get(data) != simdjson::SUCCESS) {
      return makeError("missing or not an object", "data");
    }
    std::string_view type;
    if (data["resultType"].get(type) != simdjson::SUCCESS) {
      return makeError("missing or not a string", "data.resultType");
    }
    dom::element result;
    if (data["result"].get(result) != simdjson::SUCCESS) {
      return makeError("missing", "data.result");
    }
    Result<void> walked =
        type == "vector" ? walkVector(result, visit, summary)
        : type == "scalar"
            ? walkScalar(result, visit, summary)
            : Result<void>(makeError("unsupported resultType \"" + std::string(type) +
                                         "\" (expected vector or scalar)",
                                     "data.resultType"));
    if (!walked) {
      return walked.error();
    }
    return summary;
  }

  static Error apiError(dom::object top) {
    std::string_view type;
    std::string_view message;
    if (top["errorType"].get(type) != simdjson::SUCCESS) {
      type = "unknown error type";
    }
    if (top["error"].get(message) != simdjson::SUCCESS) {
      message = "no error message";
    }
    return makeError("query failed: " + std::string(type) + ": " + std::string(message));
  }

  static Result<void> readWarnings(dom::object top, DecodeSummary& summary) {
    dom::element warnings;
    if (top["warnings"].get(warnings) != simdjson::SUCCESS) {
      return {};  // absent: the usual case
    }
    dom::array list;
    if (warnings.get(list) != simdjson::SUCCESS) {
      return makeError("expected an array of strings", "warnings");
    }
    std::size_t i = 0;
    for (dom::element item : list) {
      std::string_view text;
      if (item.get(text) != simdjson::SUCCESS) {
        return makeError("expected a string", indexed("warnings", i));
      }
      summary.warnings.emplace_back(text);
      ++i;
    }
    return {};
  }

  Result<void> walkScalar(dom::element result, const SampleVisitor& visit, DecodeSummary& summary) {
    SampleView view;
    if (auto fault = decodePoint(result, view)) {
      return makeError(std::string(fault->message), "data.result" + std::string(fault->suffix));
    }
    visit(view);
    summary.samples = 1;
    return {};
  }

  Result<void> walkVector(dom::element result, const SampleVisitor& visit, DecodeSummary& summary) {
    dom::array items;
    if (result.get(items) != simdjson::SUCCESS) {
      return makeError("expected an array", "data.result");
    }
    std::size_t i = 0;
    for (dom::element item : items) {
      if (auto sampled = visitSample(item, i, visit); !sampled) {
        return sampled;
      }
      ++i;
    }
    summary.samples = i;
    return {};
  }

  Result<void> readLabels(dom::object sample, std::size_t i) {
    labels_.clear();
    dom::element metric;
    const auto found = sample["metric"].get(metric);
    if (found == simdjson::NO_SUCH_FIELD) {
      return {};  // tolerated: some Prometheus-compatible servers omit an empty metric
    }
    dom::object labels;
    if (found != simdjson::SUCCESS || metric.get(labels) != simdjson::SUCCESS) {
      return makeError("expected an object", indexed("data.result", i, ".metric"));
    }
    for (dom::key_value_pair label : labels) {
      std::string_view value;
      if (label.value.get(value) != simdjson::SUCCESS) {
        return makeError("expected a string",
                         indexed("data.result", i, ".metric." + std::string(label.key)));
      }
      labels_.emplace_back(label.key, value);
    }
    return {};
  }

  Result<void> visitSample(dom::element item, std::size_t i, const SampleVisitor& visit) {
    dom::object sample;
    if (item.get(sample) != simdjson::SUCCESS) {
      return makeError("expected an object", indexed("data.result", i));
    }
    if (auto read = readLabels(sample, i); !read) {
      return read;
    }
    dom::element point;
    if (sample["value"].get(point) != simdjson::SUCCESS) {
      const bool histogram = sample["histogram"].error() == simdjson::SUCCESS;
      return makeError(histogram ? "native histogram samples are not supported" : "missing",
                       indexed("data.result", i, ".value"));
    }
    SampleView view;
    if (auto fault = decodePoint(point, view)) {
      return makeError(std::string(fault->message),
                       indexed("data.result", i, ".value") + std::string(fault->suffix));
    }
    view.labels = labels_.data();
    view.label_count = labels_.size();
    visit(view);
    return {};
  }

  dom::parser parser_;
  std::vector<LabelView> labels_;  // reused across samples and calls: no allocation per sample
  bool busy_ = false;
};

Result<DecodeSummary> decode(std::string_view body, bool padded, const SampleVisitor& visit) {
  // One parser per thread keeps its buffers warm across the queries of every cycle.
  thread_local Decoder shared;
  if (shared.busy()) {  // a visitor that decodes again must not clobber the outer labels
    Decoder nested;
    return nested.decode(body, padded, visit);
  }
  return shared.decode(body, padded, visit);
}

}  // namespace

Result<DecodeSummary> decodeInstantVector(std::string_view body, const SampleVisitor& visit) {
  return decode(body, false, visit);
}

Result<DecodeSummary> decodeInstantVector(const QueryBody& body, const SampleVisitor& visit) {
  const std::string& json = body.json;
  return decode(json, json.capacity() >= json.size() + simdjson::SIMDJSON_PADDING, visit);
}

}  // namespace dagadvisor::sources
