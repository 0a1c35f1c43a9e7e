// The decoder's walk over one Prometheus instant-query body with simdjson On-Demand, compiled
// once per simdjson kernel. Included by response_decoder_<kernel>.cpp only, each of which first
// includes response_decoder.h, then chooses SIMDJSON_BUILTIN_IMPLEMENTATION (On-Demand in
// simdjson 3.0 is compiled for that implementation only, entirely inline), opens the kernel's
// target region, includes <simdjson.h> and defines DAGADVISOR_DECODER_ENTRY, the name of the
// entry point (declared in response_decoder.h). Everything here but that entry point has
// internal linkage, so no code compiled for one kernel can stand in for another's.

#ifndef DAGADVISOR_DECODER_HOT
#define DAGADVISOR_DECODER_HOT
#endif

#ifndef DAGADVISOR_DECODER_ENTRY
#error "include response_decoder_kernel.inl from a response_decoder_<kernel>.cpp only"
#endif

namespace dagadvisor::sources::decoder {
namespace {

namespace od = simdjson::ondemand;
using od::json_type;

// A decoder that grew for one huge response keeps that memory; above this size we let it go.
// On-Demand reserves 4 bytes of structural index per body byte (touched only where a token
// starts), a string buffer of 5/3 of the body (touched only by escaped strings) and, for unpadded
// bodies, a padded copy. The bound is set by the daemon's steady state: at the reference cluster
// an incremental window read's largest body is 1.4 MB, while a full read (the first, then the
// hourly resync) has six of 17-42 MB. Keeping buffers for those held about 20 MB more resident
// through every window cycle (399-418 MB against 380-397 MB, two runs each); letting them go
// costs each full read the page faults of growing again (4.4-4.6 s of CPU against 3.7-4.1 s).
constexpr std::size_t kKeepParserBytes = std::size_t{16} << 20;

// Bounds the recursion over values the decoder does not use, so a hostile nesting cannot
// exhaust the stack. Below simdjson's maximum depth (1024) by more than the levels above any
// skipped value: the iterator must never reach its own limit (a debug build asserts there).
constexpr int kMaxDepth = 1000;

/// Where inside a point ("[ts, "value"]") decoding failed; the caller owns the path prefix,
/// so the success path builds no strings.
struct Fault {
  std::string_view suffix;
  std::string_view message;
};

Error jsonFault(simdjson::error_code err) {
  return decoder::jsonFault(static_cast<int>(err));
}

std::string indexed(std::string_view base, std::size_t i, std::string_view suffix = {}) {
  return std::string(base) + "[" + std::to_string(i) + "]" + std::string(suffix);
}

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

// A token that starts no JSON value at all counts as "not of this type": every fault ends in
// explain(), which reports malformed JSON as such.
bool is(od::value& value, json_type type) {
  json_type actual{};
  return value.type().get(actual) == simdjson::SUCCESS && actual == type;
}

/// The end of the text of a string starting at `start` (after its opening quote): its closing
/// quote, or the first backslash when it holds an escape. Stage 1 proved the string closed, and
/// the padding after the body makes reading up to 7 bytes past that end safe. Eight bytes per
/// step: a byte loop made the whole decode ~15% slower (bench_sources), and most strings are
/// too short for a memchr call to pay off.
const char* plainEnd(const char* start) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = kOnes * 0x80;
  for (const char* at = start;; at += sizeof(std::uint64_t)) {
    std::uint64_t word = 0;
    std::memcpy(&word, at, sizeof word);
    const std::uint64_t quote = word ^ (kOnes * '"');
    const std::uint64_t slash = word ^ (kOnes * '\\');
    // The lowest byte flagged is a true match (borrows only flag bytes above a match).
    const std::uint64_t hits = (((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash)) & kHighs;
    if (hits != 0) {
      const int bit = std::endian::native == std::endian::little ? std::countr_zero(hits)
                                                                 : std::countl_zero(hits);
      return at + bit / 8;
    }
  }
}

/// The text of a string value: a view into the body unless it holds an escape, which is then
/// unescaped into the parser's string buffer (never reused within one document). Skipping the
/// copy of the other strings is most of what On-Demand saves over the DOM. Forced inline, as is
/// readKey: called out of line, the view went through memory and the decode took twice as long.
[[gnu::always_inline]] inline simdjson::error_code readText(od::value& value,
                                                            std::string_view& out) {
  const std::string_view token = value.raw_json_token();
  if (token.empty() || token.front() != '"') {
    return simdjson::INCORRECT_TYPE;
  }
  const char* start = token.data() + 1;
  const char* end = plainEnd(start);
  if (*end == '\\') {
    return value.get_string().get(out);
  }
  out = std::string_view(start, static_cast<std::size_t>(end - start));
  od::raw_json_string raw;
  return value.get_raw_json_string().get(raw);  // consumes the value
}

/// A field's key, as a view into the body unless it holds an escape (see readText).
[[gnu::always_inline]] inline simdjson::error_code readKey(od::field& field,
                                                           std::string_view& out) {
  const char* start = field.key().raw();
  const char* end = plainEnd(start);
  if (*end == '"') {
    out = std::string_view(start, static_cast<std::size_t>(end - start));
    return simdjson::SUCCESS;
  }
  return field.unescaped_key().get(out);
}

simdjson::error_code skipValidated(od::value& value, int depth);

/// Calls `on(key, value)` for every field in document order and stops at the first fault.
/// A value `on` leaves unread is skipped by On-Demand without validation: `on` may only do so
/// when the document is bound to end in a fault (then explain() validates the whole body) or
/// will be walked again.
template <class OnField>
std::optional<Error> forEachField(od::object& object, OnField&& on) {
  for (auto item : object) {
    if (auto err = item.error()) {
      return jsonFault(err);
    }
    // Moved out, never default-constructed: a field is a std::pair, whose default constructor
    // is compiled for the baseline target and so may not inline a SIMD kernel's members.
    od::field field = std::move(item).value_unsafe();
    std::string_view key;
    if (auto err = readKey(field, key)) {
      return jsonFault(err);
    }
    if (auto fault = on(key, field.value())) {
      return fault;
    }
  }
  return std::nullopt;
}

simdjson::error_code skipContainer(od::value& value, json_type type, int depth) {
  if (depth <= 0) {
    return simdjson::DEPTH_ERROR;
  }
  if (type == json_type::array) {
    od::array array;
    if (auto err = value.get_array().get(array)) {
      return err;
    }
    for (auto item : array) {
      od::value element;
      auto err = item.get(element);
      if (err == simdjson::SUCCESS) {
        err = skipValidated(element, depth - 1);
      }
      if (err != simdjson::SUCCESS) {
        return err;
      }
    }
    return simdjson::SUCCESS;
  }
  od::object object;
  if (auto err = value.get_object().get(object)) {
    return err;
  }
  auto fault =
      forEachField(object, [&](std::string_view, od::value& field) -> std::optional<Error> {
        if (auto err = skipValidated(field, depth - 1)) {
          return jsonFault(err);
        }
        return std::nullopt;
      });
  return fault ? simdjson::TAPE_ERROR : simdjson::SUCCESS;
}

/// Reads a value the decoder has no use for, as strictly as a DOM parse would.
simdjson::error_code skipValidated(od::value& value, int depth) {
  json_type type{};
  if (auto err = value.type().get(type)) {
    return err;
  }
  switch (type) {
    case json_type::array:
    case json_type::object:
      return skipContainer(value, type, depth);
    case json_type::string: {
      std::string_view text;
      return readText(value, text);
    }
    case json_type::number: {
      od::number number;
      return value.get_number().get(number);
    }
    case json_type::boolean: {
      bool flag = false;
      return value.get_bool().get(flag);
    }
    case json_type::null: {
      bool null = false;
      const auto err = value.is_null().get(null);
      return err != simdjson::SUCCESS ? err : null ? simdjson::SUCCESS : simdjson::N_ATOM_ERROR;
    }
  }
  return simdjson::TAPE_ERROR;
}

std::optional<Error> skipField(od::value& value) {
  if (auto err = skipValidated(value, kMaxDepth)) {
    return jsonFault(err);
  }
  return std::nullopt;
}

/// Records the first occurrence of a string field (a DOM lookup finds the first one too);
/// `out` stays empty when that occurrence is not a string.
std::optional<Error> firstText(od::value& value, bool& seen, std::optional<std::string_view>& out) {
  if (!seen && is(value, json_type::string)) {
    seen = true;
    std::string_view text;
    if (auto err = readText(value, text)) {
      return jsonFault(err);
    }
    out = text;
    return std::nullopt;
  }
  seen = true;
  return skipField(value);
}

std::optional<Fault> decodeTimestamp(od::value& value, double& out) {
  // A malformed number fails here too; explain() then reports it as malformed JSON.
  if (!is(value, json_type::number) || value.get_double().get(out) != simdjson::SUCCESS) {
    return Fault{"[0]", "expected a numeric timestamp"};
  }
  return std::nullopt;
}

std::optional<Fault> decodeNumber(od::value& value, double& out) {
  if (is(value, json_type::string)) {
    std::string_view text;
    if (readText(value, text) != simdjson::SUCCESS || !parseValue(text, out)) {
      return Fault{"[1]", "not a number"};
    }
    return std::nullopt;
  }
  if (!is(value, json_type::number) || value.get_double().get(out) != simdjson::SUCCESS) {
    return Fault{"[1]", "expected a string or number value"};
  }
  return std::nullopt;
}

std::optional<Fault> decodePoint(od::value& point, SampleView& out) {
  od::array pair;
  if (!is(point, json_type::array) || point.get_array().get(pair) != simdjson::SUCCESS) {
    return Fault{"", "expected a [timestamp, \"value\"] array"};
  }
  // The element count is checked before the elements, as a DOM decoder would; elements past
  // the second are left unread, which is fine because they make the point a fault.
  std::size_t count = 0;
  std::optional<Fault> element;
  for (auto item : pair) {
    od::value value;
    if (item.get(value) != simdjson::SUCCESS) {
      return Fault{"", "expected a [timestamp, \"value\"] array"};
    }
    if (count == 0) {
      element = decodeTimestamp(value, out.timestamp);
    } else if (count == 1 && !element) {
      element = decodeNumber(value, out.value);
    }
    ++count;
  }
  if (count != 2) {
    return Fault{"", "expected exactly two elements [timestamp, \"value\"]"};
  }
  return element;
}

/// First occurrences of the fields of one sample object.
struct SampleFields {
  bool metric = false;
  bool value = false;
  bool histogram = false;
  std::optional<Fault> point;
};

/// Walks one document. Faults are reported in the order a validating decoder checks them
/// (status, warnings, data; inside a sample metric before value) whatever the field order.
class Walk {
 public:
  Walk(std::vector<LabelView>& labels, const SampleVisitor& visit, const DecodeLimits& limits)
      : labels_(labels), visit_(visit), limits_(limits) {}

  const DecodeSummary& summary() const { return summary_; }

  /// Whether the walk stopped at limits_.max_samples (a valid body, only too large).
  bool capped() const { return capped_; }

  std::optional<Error> document(od::document& doc) {
    json_type type{};
    od::object top;
    if (doc.type().get(type) != simdjson::SUCCESS || type != json_type::object ||
        doc.get_object().get(top) != simdjson::SUCCESS) {
      return makeError("expected a JSON object", "$");
    }
    if (auto fault = forEachField(
            top, [&](std::string_view key, od::value& value) { return topField(key, value); })) {
      return fault;
    }
    // The root is walked to its end: any token left is trailing content (3.0 has no at_end()).
    if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS) {
      return jsonFault(simdjson::TRAILING_CONTENT);
    }
    if (auto fault = topFault()) {
      return fault;
    }
    return data_deferred_ ? deferred(top, "data", [&](od::value& value) { return data(value); })
                          : data_fault_;
  }

 private:
  std::optional<Error> topField(std::string_view key, od::value& value) {
    if (key == "status") {
      return firstText(value, seen_status_, status_);
    }
    if (key == "errorType") {
      return firstText(value, seen_error_type_, error_type_);
    }
    if (key == "error") {
      return firstText(value, seen_error_, error_);
    }
    if (key == "warnings" && !seen_warnings_) {
      seen_warnings_ = true;
      warnings_fault_ = warnings(value);
      return std::nullopt;
    }
    if (key == "data" && !seen_data_) {
      seen_data_ = true;
      // Samples are only decoded once the status said "success"; a status after the data
      // (unusual, but JSON has no field order) makes a second pass over the object.
      data_deferred_ = !seen_status_;
      if (seen_status_ && status_ == "success") {
        data_fault_ = data(value);
      }
      return std::nullopt;
    }
    return skipField(value);
  }

  /// The fault of the top level fields, in the order a DOM lookup would meet them.
  std::optional<Error> topFault() const {
    if (!status_) {
      return makeError("missing or not a string", "status");
    }
    if (*status_ == "error") {
      return makeError("query failed: " + std::string(error_type_.value_or("unknown error type")) +
                       ": " + std::string(error_.value_or("no error message")));
    }
    if (*status_ != "success") {
      return makeError("unknown status \"" + std::string(*status_) + "\"", "status");
    }
    if (warnings_fault_) {
      return warnings_fault_;
    }
    if (!seen_data_) {
      return makeError("missing or not an object", "data");
    }
    return std::nullopt;
  }

  /// Decodes the first field `name` of an object already walked once.
  template <class Decode>
  static std::optional<Error> deferred(od::object& object, std::string_view name, Decode&& decode) {
    if (auto err = object.reset().error()) {
      return jsonFault(err);
    }
    bool seen = false;
    std::optional<Error> fault;
    auto broken = forEachField(object, [&](std::string_view key, od::value& value) {
      if (key == name && !seen) {
        seen = true;
        fault = decode(value);
      }
      return std::optional<Error>();  // every other value was validated in the first pass
    });
    return broken ? broken : fault;
  }

  std::optional<Error> warnings(od::value& value) {
    od::array list;
    if (!is(value, json_type::array) || value.get_array().get(list) != simdjson::SUCCESS) {
      return makeError("expected an array of strings", "warnings");
    }
    std::size_t i = 0;
    for (auto item : list) {
      od::value element;
      std::string_view text;
      if (item.get(element) != simdjson::SUCCESS || readText(element, text) != simdjson::SUCCESS) {
        return makeError("expected a string", indexed("warnings", i));
      }
      summary_.warnings.emplace_back(text);
      ++i;
    }
    return std::nullopt;
  }

  std::optional<Error> data(od::value& value) {
    od::object object;
    if (!is(value, json_type::object) || value.get_object().get(object) != simdjson::SUCCESS) {
      return makeError("missing or not an object", "data");
    }
    bool seen_type = false;
    bool seen_result = false;
    bool result_deferred = false;
    std::optional<std::string_view> type;
    std::optional<Error> fault;
    auto broken = forEachField(object, [&](std::string_view key, od::value& field) {
      if (key == "resultType") {
        return firstText(field, seen_type, type);
      }
      if (key != "result" || seen_result) {
        return skipField(field);
      }
      seen_result = true;
      result_deferred = !seen_type;
      if (seen_type && type && supported(*type)) {
        fault = result(field, *type);
      }
      return std::optional<Error>();
    });
    if (broken) {
      return broken;
    }
    if (!type) {
      return makeError("missing or not a string", "data.resultType");
    }
    if (!seen_result) {
      return makeError("missing", "data.result");
    }
    if (!supported(*type)) {
      return makeError(
          "unsupported resultType \"" + std::string(*type) + "\" (expected vector or scalar)",
          "data.resultType");
    }
    if (result_deferred) {
      return deferred(object, "result", [&](od::value& field) { return result(field, *type); });
    }
    return fault;
  }

  static bool supported(std::string_view type) { return type == "vector" || type == "scalar"; }

  std::optional<Error> result(od::value& value, std::string_view type) {
    return type == "vector" ? vector(value) : scalar(value);
  }

  std::optional<Error> scalar(od::value& value) {
    SampleView view;
    if (auto fault = decodePoint(value, view)) {
      return makeError(std::string(fault->message), "data.result" + std::string(fault->suffix));
    }
    visit_(view);
    summary_.samples = 1;
    return std::nullopt;
  }

  // DAGADVISOR_DECODER_HOT: flattened in the SIMD kernels, whose On-Demand calls are only
  // inline, not forced (see response_decoder_haswell.cpp): the whole per-sample walk is inlined.
  DAGADVISOR_DECODER_HOT std::optional<Error> vector(od::value& value) {
    od::array items;
    if (!is(value, json_type::array) || value.get_array().get(items) != simdjson::SUCCESS) {
      return makeError("expected an array", "data.result");
    }
    std::size_t i = 0;
    for (auto item : items) {
      if (i == limits_.max_samples) {
        return capFault();
      }
      od::value element;
      if (auto err = item.get(element)) {
        return jsonFault(err);
      }
      if (auto fault = sample(element, i)) {
        return fault;
      }
      ++i;
    }
    summary_.samples = i;
    return std::nullopt;
  }

  Error capFault() {
    capped_ = true;
    std::string message = "more than " + std::to_string(limits_.max_samples) + " series";
    if (!limits_.setting.empty()) {
      message += " (the cap " + std::string(limits_.setting) + ")";
    }
    return makeError(message, "data.result");
  }

  std::optional<Error> sample(od::value& value, std::size_t i) {
    od::object object;
    if (!is(value, json_type::object) || value.get_object().get(object) != simdjson::SUCCESS) {
      return makeError("expected an object", indexed("data.result", i));
    }
    labels_.clear();
    SampleView view;
    SampleFields seen;
    auto fault = forEachField(object, [&](std::string_view key, od::value& field) {
      if (key == "metric" && !seen.metric) {
        seen.metric = true;
        return labels(field, i);  // a label fault comes first: stop at once
      }
      if (key == "value" && !seen.value) {
        seen.value = true;
        seen.point = decodePoint(field, view);
        return std::optional<Error>();  // a later "metric" may still hold the first fault
      }
      seen.histogram = seen.histogram || key == "histogram";
      return skipField(field);
    });
    if (fault) {
      return fault;
    }
    if (!seen.value) {
      return makeError(seen.histogram ? "native histogram samples are not supported" : "missing",
                       indexed("data.result", i, ".value"));
    }
    if (seen.point) {
      return makeError(std::string(seen.point->message),
                       indexed("data.result", i, ".value") + std::string(seen.point->suffix));
    }
    view.labels = labels_.data();
    view.label_count = labels_.size();
    visit_(view);
    return std::nullopt;
  }

  std::optional<Error> labels(od::value& value, std::size_t i) {
    od::object object;
    if (!is(value, json_type::object) || value.get_object().get(object) != simdjson::SUCCESS) {
      return makeError("expected an object", indexed("data.result", i, ".metric"));
    }
    return forEachField(object, [&](std::string_view key, od::value& field) {
      std::string_view text;
      if (readText(field, text) != simdjson::SUCCESS) {
        return std::optional<Error>(makeError(
            "expected a string", indexed("data.result", i, ".metric." + std::string(key))));
      }
      labels_.emplace_back(key, text);
      return std::optional<Error>();
    });
  }

  std::vector<LabelView>& labels_;
  const SampleVisitor& visit_;
  const DecodeLimits& limits_;
  DecodeSummary summary_;
  bool capped_ = false;
  bool seen_status_ = false;
  bool seen_error_type_ = false;
  bool seen_error_ = false;
  bool seen_warnings_ = false;
  bool seen_data_ = false;
  bool data_deferred_ = false;
  std::optional<std::string_view> status_;
  std::optional<std::string_view> error_type_;
  std::optional<std::string_view> error_;
  std::optional<Error> warnings_fault_;
  std::optional<Error> data_fault_;
};

class Decoder {
 public:
  bool busy() const { return busy_; }

  /// `padded`: SIMDJSON_PADDING readable bytes follow the body, so it is parsed where it is.
  Result<DecodeSummary> decode(std::string_view body, bool padded, const SampleVisitor& visit,
                               const DecodeLimits& limits) {
    struct Busy {  // released even when the visitor throws
      Decoder& self;
      explicit Busy(Decoder& d) : self(d) { self.busy_ = true; }
      ~Busy() {
        self.busy_ = false;
        self.labels_.clear();
      }
    } busy(*this);
    auto result = decodeBody(body, padded, visit, limits);
    if (body.size() > kKeepParserBytes) {
      parser_ = od::parser{};
      copy_ = std::string();
    }
    return result;
  }

 private:
  Result<DecodeSummary> decodeBody(std::string_view body, bool padded, const SampleVisitor& visit,
                                   const DecodeLimits& limits) {
    od::document doc;
    const char* json = padded ? body.data() : paddedCopy(body);
    std::optional<Error> fault;
    bool out_of_memory = false;
    Walk walk(labels_, visit, limits);
    if (auto err =
            parser_.iterate(json, body.size(), body.size() + simdjson::SIMDJSON_PADDING).get(doc)) {
      fault = jsonFault(err);
      out_of_memory = err == simdjson::MEMALLOC;
    } else {
      fault = walk.document(doc);
    }
    // A capped body is not validated further: the DOM parse explain() pays would take several
    // times the body's size, the very memory the cap is there to bound (and the memory a parse
    // that ran out of it did not get).
    if (fault && (walk.capped() || out_of_memory)) {
      return std::move(*fault);
    }
    if (fault) {
      return decoder::explain(body, padded, std::move(*fault));
    }
    return walk.summary();
  }

  /// The body followed by blank padding, in a buffer reused across calls.
  const char* paddedCopy(std::string_view body) {
    copy_.clear();
    copy_.reserve(body.size() + simdjson::SIMDJSON_PADDING);  // no-op once large enough
    copy_.append(body);
    copy_.append(simdjson::SIMDJSON_PADDING, ' ');
    return copy_.data();
  }

  od::parser parser_;
  std::string copy_;               // padded copy of bodies that come without spare capacity
  std::vector<LabelView> labels_;  // reused across samples and calls: no allocation per sample
  bool busy_ = false;
};

}  // namespace

Result<DecodeSummary> DAGADVISOR_DECODER_ENTRY(std::string_view body, bool padded,
                                               const SampleVisitor& visit,
                                               const DecodeLimits& limits) {
  // One parser per thread keeps its buffers warm across the queries of every cycle.
  thread_local Decoder shared;
  if (shared.busy()) {  // a visitor that decodes again must not clobber the outer labels
    Decoder nested;
    return nested.decode(body, padded, visit, limits);
  }
  return shared.decode(body, padded, visit, limits);
}

}  // namespace dagadvisor::sources::decoder
