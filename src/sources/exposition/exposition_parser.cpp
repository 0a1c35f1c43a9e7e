#include "sources/exposition/exposition_parser.h"

#include <cstring>
#include <string>
#include <vector>

#include "sources/exposition/exposition_tokens.h"

namespace dagadvisor::sources::exposition {
namespace {

using detail::skipBlanks;
using detail::takeToken;

constexpr std::string_view kNameLabel = "__name__";
constexpr std::size_t kMaxDetail = 40;  // bytes of the offending text quoted in an error

class Parser {
 public:
  Parser(const ParseOptions& options, const SampleVisitor* plain, const TypedSampleVisitor* typed)
      : options_(options),
        open_metrics_(options.format == Format::kOpenMetrics),
        plain_(plain),
        typed_(typed) {}

  Result<ExpositionSummary> run(std::string_view body) {
    const char* p = body.data();
    const char* end = p + body.size();
    while (p < end) {
      const auto* newline = static_cast<const char*>(std::memchr(p, '\n', end - p));
      const char* eol = newline != nullptr ? newline : end;
      std::string_view text(p, static_cast<std::size_t>(eol - p));
      if (!text.empty() && text.back() == '\r') {
        text.remove_suffix(1);
      }
      ++summary_.lines;
      if (!line(text)) {
        return failure();
      }
      p = newline != nullptr ? newline + 1 : end;
    }
    if (open_metrics_ && !eof_) {
      fail("missing \"# EOF\" at the end of an OpenMetrics body");
      return failure();
    }
    return summary_;
  }

 private:
  bool line(std::string_view text) {
    if (eof_) {
      return fail("text after \"# EOF\"", text);
    }
    if (!open_metrics_) {
      skipBlanks(text);  // 0.0.4 tolerates indentation and blank lines
      if (text.empty()) {
        return true;
      }
    }
    if (text.empty()) {
      return fail("empty line (not allowed in OpenMetrics)");
    }
    return text[0] == '#' ? comment(text.substr(1)) : sample(text);
  }

  bool comment(std::string_view text) {
    if (skipBlanks(text) == 0 && open_metrics_) {
      return fail("expected a blank after '#'");
    }
    const std::string_view keyword = takeToken(text);
    if (keyword == "HELP" || keyword == "TYPE" || (keyword == "UNIT" && open_metrics_)) {
      return descriptor(keyword, text);
    }
    if (open_metrics_ && keyword == "EOF" && text.empty()) {
      eof_ = true;
      return true;
    }
    // 0.0.4 allows free comments; OpenMetrics only the four keywords.
    return !open_metrics_ || fail("unknown comment; expected HELP, TYPE, UNIT or EOF", keyword);
  }

  bool descriptor(std::string_view keyword, std::string_view text) {
    if (skipBlanks(text) == 0) {
      return fail("expected a blank and a metric name after the keyword", keyword);
    }
    const std::string_view name = takeToken(text);
    if (name.empty() || detail::scanMetricName(name) != name.size()) {
      return fail("invalid metric name", name);
    }
    if (keyword != "TYPE") {
      return true;  // HELP text and units are free text, and nothing downstream reads them
    }
    skipBlanks(text);
    const std::string_view type_name = takeToken(text);
    const auto type = detail::parseMetricType(type_name);
    skipBlanks(text);
    if (!type || !text.empty()) {
      return fail("missing or unknown metric type", type_name);
    }
    family_ = name;
    type_ = *type;
    ++summary_.families;
    return true;
  }

  bool sample(std::string_view text) {
    const std::size_t name_size = detail::scanMetricName(text);
    if (name_size == 0) {
      return fail("expected a metric name", text);
    }
    const std::string_view name = text.substr(0, name_size);
    text.remove_prefix(name_size);
    ascii_line_ = detail::isAscii(text);
    labels_.clear();
    labels_.emplace_back(kNameLabel, name);
    scratch_.clear();
    std::size_t blanks = skipBlanks(text);
    if (!text.empty() && text[0] == '{') {
      if (!labelSet(text, labels_, text.size())) {
        return false;
      }
      blanks = skipBlanks(text);
    }
    if (blanks == 0) {
      return fail("expected a blank and a value after the metric", text);
    }
    SampleView view;
    if (!valueAndTimestamp(text, view.value, view.timestamp)) {
      return false;
    }
    if (!text.empty() && !exemplar(text)) {
      return false;
    }
    view.labels = labels_.data();
    view.label_count = labels_.size();
    emit(view, name);
    return true;
  }

  // Reads "value [timestamp]" and stops at the end or at a '#' that may start an exemplar.
  bool valueAndTimestamp(std::string_view& text, double& value, double& timestamp) {
    const std::string_view value_text = takeToken(text);
    if (!detail::parseSampleValue(value_text, value)) {
      return fail("invalid sample value", value_text);
    }
    timestamp = options_.default_timestamp;
    skipBlanks(text);
    if (text.empty() || text[0] == '#') {
      return true;
    }
    const std::string_view stamp = takeToken(text);
    const bool parsed = open_metrics_ ? detail::parseSecondsTimestamp(stamp, timestamp)
                                      : detail::parseMillisTimestamp(stamp, timestamp);
    if (!parsed) {
      return fail(open_metrics_ ? "invalid timestamp (expected seconds)"
                                : "invalid timestamp (expected integer milliseconds)",
                  stamp);
    }
    skipBlanks(text);
    return text.empty() || text[0] == '#' || fail("unexpected text after the timestamp", text);
  }

  // An OpenMetrics exemplar " # {labels} value [timestamp]": checked, then dropped.
  bool exemplar(std::string_view text) {
    if (!open_metrics_) {
      return fail("exemplars are only allowed in OpenMetrics", text);
    }
    text.remove_prefix(1);  // the '#'
    if (skipBlanks(text) == 0 || text.empty() || text[0] != '{') {
      return fail("expected \" # {\" to start an exemplar", text);
    }
    exemplar_labels_.clear();
    if (!labelSet(text, exemplar_labels_, text.size())) {
      return false;
    }
    if (skipBlanks(text) == 0) {
      return fail("expected a blank and a value in the exemplar", text);
    }
    double value = 0;
    double timestamp = 0;
    if (!valueAndTimestamp(text, value, timestamp)) {
      return false;
    }
    return text.empty() || fail("unexpected text after the exemplar", text);
  }

  // `text` starts at '{'; on success it starts after the matching '}'. Accepts `{}` and a
  // trailing comma, like Prometheus' own parser.
  bool labelSet(std::string_view& text, std::vector<LabelView>& out, std::size_t line_size) {
    text.remove_prefix(1);
    for (;;) {
      skipBlanks(text);
      if (text.empty()) {
        return fail("unterminated label set (missing '}')");
      }
      if (text[0] == '}') {
        text.remove_prefix(1);
        return true;
      }
      if (!label(text, out, line_size)) {
        return false;
      }
      skipBlanks(text);
      if (!text.empty() && text[0] == ',') {
        text.remove_prefix(1);
      } else if (text.empty() || text[0] != '}') {
        return fail("expected ',' or '}' after a label", text);
      }
    }
  }

  bool label(std::string_view& text, std::vector<LabelView>& out, std::size_t line_size) {
    const std::size_t name_size = detail::scanLabelName(text);
    if (name_size == 0) {
      return fail("expected a label name", text);
    }
    const std::string_view name = text.substr(0, name_size);
    text.remove_prefix(name_size);
    skipBlanks(text);
    if (text.empty() || text[0] != '=') {
      return fail("expected '=' after the label name", name);
    }
    text.remove_prefix(1);
    skipBlanks(text);
    if (text.empty() || text[0] != '"') {
      return fail("expected a quoted label value", text);
    }
    text.remove_prefix(1);
    std::string_view value;
    if (!quoted(text, value, line_size)) {
      return false;
    }
    for (const LabelView& seen : out) {
      if (seen.first == name) {
        return fail("duplicate label", name);
      }
    }
    out.emplace_back(name, value);
    return true;
  }

  // `text` starts after the opening quote; on success it starts after the closing one.
  bool quoted(std::string_view& text, std::string_view& value, std::size_t line_size) {
    const auto* close = static_cast<const char*>(std::memchr(text.data(), '"', text.size()));
    const std::size_t length =
        close != nullptr ? static_cast<std::size_t>(close - text.data()) : text.size();
    if (std::memchr(text.data(), '\\', length) == nullptr) {
      if (close == nullptr) {
        return fail("unterminated label value (missing '\"')");
      }
      value = text.substr(0, length);
      text.remove_prefix(length + 1);
    } else if (!unescape(text, value, line_size)) {
      return false;
    }
    return ascii_line_ || detail::isValidUtf8(value) || fail("invalid UTF-8 in label value");
  }

  // Escaped values are rare; they are decoded into scratch_, which is reserved to the line's
  // size before the first one so that earlier views into it stay valid.
  bool unescape(std::string_view& text, std::string_view& value, std::size_t line_size) {
    if (scratch_.empty()) {
      scratch_.reserve(line_size);
    }
    const std::size_t start = scratch_.size();
    for (std::size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (c == '"') {
        value = std::string_view(scratch_).substr(start);
        text.remove_prefix(i + 1);
        return true;
      }
      if (c == '\\') {
        const std::size_t slash = i;
        const char next = ++i < text.size() ? text[i] : '\0';  // a final '\\' escapes nothing
        if (next != '\\' && next != '"' && next != 'n') {
          return fail("invalid escape in label value (expected \\\\, \\\" or \\n)",
                      text.substr(slash, 2));
        }
        c = next == 'n' ? '\n' : next;
      }
      scratch_.push_back(c);
    }
    return fail("unterminated label value (missing '\"')");
  }

  void emit(const SampleView& view, std::string_view name) {
    ++summary_.samples;
    if (plain_ != nullptr) {
      (*plain_)(view);
      return;
    }
    const bool typed = detail::belongsToFamily(name, family_, type_);
    const SampleContext context{typed ? family_ : name, typed ? type_ : MetricType::kUnknown,
                                summary_.lines};
    (*typed_)(view, context);
  }

  bool fail(std::string_view message, std::string_view detail = {}) {
    error_.assign(message);
    if (!detail.empty()) {
      error_ += " near \"";
      error_ += detail.substr(0, kMaxDetail);
      error_ += '"';
    }
    return false;
  }

  Error failure() const { return makeError(error_, "line " + std::to_string(summary_.lines)); }

  const ParseOptions& options_;
  const bool open_metrics_;
  const SampleVisitor* plain_;
  const TypedSampleVisitor* typed_;
  ExpositionSummary summary_;
  std::vector<LabelView> labels_;  // reused for every sample: no allocation per line
  std::vector<LabelView> exemplar_labels_;
  std::string scratch_;
  std::string_view family_;
  MetricType type_ = MetricType::kUnknown;
  bool eof_ = false;
  bool ascii_line_ = true;  // the current sample line has no byte >= 0x80
  std::string error_;
};

}  // namespace

Format formatFromContentType(std::string_view content_type) {
  constexpr std::string_view kOpenMetrics = "application/openmetrics-text";
  return content_type.substr(0, kOpenMetrics.size()) == kOpenMetrics ? Format::kOpenMetrics
                                                                     : Format::kPrometheusText;
}

Result<ExpositionSummary> parseExposition(std::string_view body, const ParseOptions& options,
                                          const SampleVisitor& visit) {
  return Parser(options, &visit, nullptr).run(body);
}

Result<ExpositionSummary> parseExpositionTyped(std::string_view body, const ParseOptions& options,
                                               const TypedSampleVisitor& visit) {
  return Parser(options, nullptr, &visit).run(body);
}

}  // namespace dagadvisor::sources::exposition
