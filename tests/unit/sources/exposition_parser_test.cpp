#include "sources/exposition/exposition_parser.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "support/test_support.h"

namespace dagadvisor::sources::exposition {
namespace {

using testing::fixturePath;
using testing::readFile;

/// An owned copy of one visited sample (the views die with the visitor call).
struct Sample {
  std::vector<std::pair<std::string, std::string>> labels;  // in visit order
  double timestamp = 0;
  double value = 0;
  std::string family;
  MetricType type = MetricType::kUnknown;
  std::size_t line = 0;

  std::string label(const std::string& name) const {
    for (const auto& [key, text] : labels) {
      if (key == name) {
        return text;
      }
    }
    return "<absent>";
  }
};

struct Parsed {
  Result<ExpositionSummary> summary;
  std::vector<Sample> samples;
};

ParseOptions openMetrics(double default_timestamp = 0) {
  return ParseOptions{Format::kOpenMetrics, default_timestamp};
}

Parsed parse(std::string_view body, const ParseOptions& options = {}) {
  std::vector<Sample> samples;
  auto summary =
      parseExpositionTyped(body, options, [&](const SampleView& view, const SampleContext& ctx) {
        Sample sample;
        for (std::size_t i = 0; i < view.label_count; ++i) {
          sample.labels.emplace_back(view.labels[i].first, view.labels[i].second);
        }
        sample.timestamp = view.timestamp;
        sample.value = view.value;
        sample.family = std::string(ctx.family);
        sample.type = ctx.type;
        sample.line = ctx.line;
        samples.push_back(std::move(sample));
      });
  return {std::move(summary), std::move(samples)};
}

/// The samples of `body`; fails the test when the body does not parse.
std::vector<Sample> parseOk(std::string_view body, const ParseOptions& options = {}) {
  Parsed parsed = parse(body, options);
  INFO((parsed.summary ? "" : parsed.summary.error().describe()));
  REQUIRE(parsed.summary.ok());
  REQUIRE(parsed.summary->samples == parsed.samples.size());
  return std::move(parsed.samples);
}

/// The error of `body`, which must not parse.
Error parseError(std::string_view body, const ParseOptions& options = {}) {
  Parsed parsed = parse(body, options);
  REQUIRE_FALSE(parsed.summary.ok());
  return parsed.summary.error();
}

std::vector<Sample> samplesNamed(const std::vector<Sample>& samples, const std::string& name) {
  std::vector<Sample> out;
  for (const Sample& sample : samples) {
    if (sample.label("__name__") == name) {
      out.push_back(sample);
    }
  }
  return out;
}

std::string fixture(const char* name) {
  return readFile(fixturePath(std::string("exposition/") + name));
}

// Expected counts come from grep (see tests/fixtures/exposition/README.md), not from the parser.
TEST_CASE("the kube-state-metrics scrape parses completely with names, labels and values",
          "[exposition]") {
  const std::string body = fixture("nri-kubernetes-1_35-ksm.metrics.txt");
  Parsed parsed = parse(body);
  REQUIRE(parsed.summary.ok());
  CHECK(parsed.summary->samples == 1698);
  CHECK(parsed.summary->families == 231);
  CHECK(parsed.summary->lines == 2160);
  for (const Sample& sample : parsed.samples) {
    REQUIRE(sample.labels.at(0).first == "__name__");
  }

  const auto pods = samplesNamed(parsed.samples, "kube_pod_info");
  REQUIRE(pods.size() == 25);
  CHECK(pods[0].label("pod") == "kube-apiserver-datagen-1-35");
  CHECK(pods[0].label("namespace") == "kube-system");
  CHECK(pods[0].label("node") == "datagen-1-35");
  CHECK(pods[0].label("priority_class") == "system-node-critical");
  CHECK(pods[0].label("host_network") == "true");
  CHECK(pods[0].labels.size() == 11);  // __name__ and the ten labels of the line
  CHECK(pods[1].label("priority_class").empty());
  CHECK(pods[0].type == MetricType::kGauge);

  const auto allocatable = samplesNamed(parsed.samples, "kube_node_status_allocatable");
  REQUIRE(allocatable.size() == 8);
  CHECK(allocatable[2].label("resource") == "memory");
  CHECK(allocatable[2].value == 8.216887296e+09);
  CHECK(allocatable[3].value == 110);

  const auto requests = samplesNamed(parsed.samples, "kube_pod_container_resource_requests");
  CHECK(requests.size() == 28);
  double cpu = 0;
  for (const Sample& sample : requests) {
    cpu += sample.label("resource") == "cpu" ? sample.value : 0;
  }
  CHECK(cpu == Approx(1.435));  // summed with awk and bc
}

TEST_CASE("the kube-scheduler scrape resolves histogram series to their family", "[exposition]") {
  const std::string body = fixture("nri-kubernetes-1_35-kube-scheduler.metrics.txt");
  Parsed parsed = parse(body);
  REQUIRE(parsed.summary.ok());
  CHECK(parsed.summary->samples == 2334);
  CHECK(parsed.summary->families == 207);

  std::vector<Sample> sli;
  for (const Sample& sample : parsed.samples) {
    if (sample.family == "scheduler_pod_scheduling_sli_duration_seconds") {
      sli.push_back(sample);
    }
  }
  REQUIRE(sli.size() == 46);  // grep -c '^scheduler_pod_scheduling_sli_duration_seconds'
  for (const Sample& sample : sli) {
    CHECK(sample.type == MetricType::kHistogram);
  }
  const Sample& inf = sli[20];
  CHECK(inf.line == 2462);
  CHECK(inf.label("__name__") == "scheduler_pod_scheduling_sli_duration_seconds_bucket");
  CHECK(inf.label("le") == "+Inf");
  CHECK(inf.value == 18);
  const Sample& sum = sli[44];
  CHECK(sum.label("__name__") == "scheduler_pod_scheduling_sli_duration_seconds_sum");
  CHECK(sum.label("attempts") == "2");
  CHECK(sum.value == 45.842036938999996);
  CHECK(sli[45].value == 2);
}

TEST_CASE("Prometheus' alltypes fixture parses as text and as OpenMetrics", "[exposition]") {
  const std::string body = fixture("alltypes.237mfs.prom.txt");
  for (const Format format : {Format::kPrometheusText, Format::kOpenMetrics}) {
    Parsed parsed = parse(body, ParseOptions{format, 0});
    INFO((parsed.summary ? "" : parsed.summary.error().describe()));
    REQUIRE(parsed.summary.ok());
    CHECK(parsed.summary->samples == 1857);
    CHECK(parsed.summary->families == 237);
    const auto build = samplesNamed(parsed.samples, "prometheus_build_info");
    REQUIRE(build.size() == 1);
    CHECK(build[0].label("revision") == "7086161a93b262aa0949dbf2aba15a5a7b13e0a3");
    CHECK(build[0].label("tags") == "netgo,builtinassets,stringlabels");
    CHECK(build[0].line == 373);
  }
}

TEST_CASE("the plain visitor sees the same samples as the typed one", "[exposition]") {
  const std::string body = fixture("nri-kubernetes-1_35-ksm.metrics.txt");
  std::size_t visits = 0;
  double total = 0;
  auto summary = parseExposition(body, {}, [&](const SampleView& view) {
    ++visits;
    total += view.value;
  });
  REQUIRE(summary.ok());
  const auto typed = parseOk(body);
  CHECK(visits == typed.size());
  CHECK(total == std::accumulate(typed.begin(), typed.end(), 0.0,
                                 [](double acc, const Sample& s) { return acc + s.value; }));
}

TEST_CASE("label values are unescaped", "[exposition]") {
  const auto samples =
      parseOk("m{a=\"x\\\\y\",b=\"say \\\"hi\\\"\",c=\"one\\ntwo\",d=\"plain\",e=\"\\\\\"} 1\n");
  REQUIRE(samples.size() == 1);
  CHECK(samples[0].label("a") == "x\\y");
  CHECK(samples[0].label("b") == "say \"hi\"");
  CHECK(samples[0].label("c") == "one\ntwo");
  CHECK(samples[0].label("d") == "plain");
  CHECK(samples[0].label("e") == "\\");
}

TEST_CASE("many escaped values on one long line stay intact", "[exposition]") {
  std::string line = "m{";
  for (int i = 0; i < 40; ++i) {
    line += "l" + std::to_string(i) + "=\"v\\\"" + std::string(static_cast<std::size_t>(i), 'x') +
            "\",";
  }
  line += "} 1\n";
  const auto samples = parseOk(line);
  REQUIRE(samples.size() == 1);
  REQUIRE(samples[0].labels.size() == 41);
  for (int i = 0; i < 40; ++i) {
    CHECK(samples[0].label("l" + std::to_string(i)) ==
          "v\"" + std::string(static_cast<std::size_t>(i), 'x'));
  }
}

TEST_CASE("label values must be valid UTF-8", "[exposition]") {
  const auto samples =
      parseOk("m{a=\"caf\xc3\xa9\",b=\"\xe6\x97\xa5\xe6\x9c\xac\",c=\"\xf0\x9f\x98\x80\"} 1\n");
  REQUIRE(samples.size() == 1);
  CHECK(samples[0].label("a") == "caf\xc3\xa9");
  CHECK(samples[0].label("c") == "\xf0\x9f\x98\x80");
  for (const char* bad : {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe6\x97",
                          "abcdefgh\x80", "\\\\\xc3"}) {
    INFO(bad);
    const Error error = parseError(std::string("m{a=\"") + bad + "\"} 1\n");
    CHECK_THAT(error.message, Catch::Contains("invalid UTF-8"));
  }
}

TEST_CASE("special values NaN, +Inf and -Inf are decoded", "[exposition]") {
  const auto samples = parseOk("a NaN\nb +Inf\nc -Inf\nd Nan\ne Inf\nf -1.5e-3\ng +2\n");
  REQUIRE(samples.size() == 7);
  CHECK(std::isnan(samples[0].value));
  CHECK(samples[1].value == HUGE_VAL);
  CHECK(samples[2].value == -HUGE_VAL);
  CHECK(std::isnan(samples[3].value));  // prometheus-cpp writes "Nan"
  CHECK(samples[4].value == HUGE_VAL);
  CHECK(samples[5].value == -0.0015);
  CHECK(samples[6].value == 2);
}

TEST_CASE("timestamps are milliseconds in 0.0.4 and seconds in OpenMetrics", "[exposition]") {
  const auto text = parseOk("a 1 1700000000123\nb 2 -5000\nc 3\n", ParseOptions{{}, 42});
  REQUIRE(text.size() == 3);
  CHECK(text[0].timestamp == Approx(1700000000.123).margin(1e-6));
  CHECK(text[1].timestamp == -5);
  CHECK(text[2].timestamp == 42);  // the default (e.g. the scrape time)

  const auto om = parseOk("a 1 1700000000.5\nb 2\n# EOF\n", openMetrics(7));
  REQUIRE(om.size() == 2);
  CHECK(om[0].timestamp == 1700000000.5);
  CHECK(om[1].timestamp == 7);
}

TEST_CASE("HELP, TYPE, UNIT and EOF lines are read in OpenMetrics", "[exposition]") {
  const auto samples = parseOk(
      "# TYPE job_seconds histogram\n"
      "# UNIT job_seconds seconds\n"
      "# HELP job_seconds Job \\\"latency\\\".\n"
      "job_seconds_bucket{le=\"1\"} 3 # {trace_id=\"abc\"} 0.5 1700000000.1\n"
      "job_seconds_bucket{le=\"+Inf\"} 4 # {} 9\n"
      "job_seconds_count 4\n"
      "job_seconds_sum 2.5\n"
      "job_seconds_created 1700000000\n"
      "# TYPE runs counter\n"
      "runs_total 7 1700000001 # {id=\"x\",} 1 1700000000.9\n"
      "# TYPE build info\n"
      "build_info{version=\"1\"} 1\n"
      "# TYPE queue gaugehistogram\n"
      "queue_gsum 1\n"
      "# TYPE rpc summary\n"
      "rpc{quantile=\"0.5\"} 0.1\n"
      "rpc_count 10\n"
      "stray_metric 5\n"
      "# EOF\n",
      openMetrics());
  REQUIRE(samples.size() == 11);
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(samples[i].family == "job_seconds");
    CHECK(samples[i].type == MetricType::kHistogram);
  }
  CHECK(samples[0].value == 3);  // not the exemplar's 0.5
  CHECK(samples[0].labels.size() == 2);
  CHECK(samples[0].timestamp == 0);
  CHECK(samples[5].family == "runs");
  CHECK(samples[5].type == MetricType::kCounter);
  CHECK(samples[5].timestamp == 1700000001);
  CHECK(samples[6].type == MetricType::kInfo);
  CHECK(samples[7].type == MetricType::kGaugeHistogram);
  CHECK(samples[8].type == MetricType::kSummary);
  CHECK(samples[9].family == "rpc");
  CHECK(samples[9].label("__name__") == "rpc_count");
  CHECK(samples[10].family == "stray_metric");
  CHECK(samples[10].type == MetricType::kUnknown);
}

TEST_CASE("empty label sets, trailing commas and blanks are accepted", "[exposition]") {
  const auto samples = parseOk(
      "a{} 1\n"
      "b{x=\"1\",} 2\n"
      "c { x = \"1\" , y=\"2\" } 3\n"
      "d\t4\t5000\n");
  REQUIRE(samples.size() == 4);
  CHECK(samples[0].labels.size() == 1);
  CHECK(samples[0].label("__name__") == "a");
  CHECK(samples[1].labels.size() == 2);
  CHECK(samples[1].label("x") == "1");
  CHECK(samples[2].label("y") == "2");
  CHECK(samples[2].value == 3);
  CHECK(samples[3].value == 4);
  CHECK(samples[3].timestamp == 5);
}

TEST_CASE("0.0.4 skips blank lines, free comments, indentation and CRLF", "[exposition]") {
  const auto samples = parseOk(
      "\n# a free comment\n#no blank\n# UNIT is a comment in 0.0.4\n  a 1\r\n\n# EOF\nb 2\n");
  REQUIRE(samples.size() == 2);
  CHECK(samples[0].label("__name__") == "a");
  CHECK(samples[0].value == 1);
  CHECK(samples[1].label("__name__") == "b");
  CHECK(samples[1].line == 8);
}

TEST_CASE("a body without a final newline still yields its last sample", "[exposition]") {
  const auto samples = parseOk("a 1\nb 2");
  REQUIRE(samples.size() == 2);
  CHECK(samples[1].value == 2);
}

TEST_CASE("the Content-Type picks the format", "[exposition]") {
  CHECK(formatFromContentType("application/openmetrics-text; version=1.0.0; charset=utf-8") ==
        Format::kOpenMetrics);
  CHECK(formatFromContentType("text/plain; version=0.0.4; charset=utf-8") ==
        Format::kPrometheusText);
  CHECK(formatFromContentType("") == Format::kPrometheusText);
}

TEST_CASE("syntax errors name the line and the fault", "[exposition]") {
  struct Case {
    const char* body;
    const char* fragment;
  };
  const Case cases[] = {
      {"9abc 1\n", "expected a metric name"},
      {"abc\n", "expected a blank and a value"},
      {"abc{}\n", "expected a blank and a value"},
      {"abc 1x\n", "invalid sample value"},
      {"abc \n", "invalid sample value"},
      {"abc 1 1.5\n", "expected integer milliseconds"},
      {"abc 1 2 3\n", "unexpected text after the timestamp"},
      {"abc{a=\"b\" 1\n", "expected ',' or '}'"},
      {"abc{a=\"b\",\n", "unterminated label set"},
      {"abc{a=\"b} 1\n", "unterminated label value"},
      {"abc{a=\"b\\\"} 1\n", "unterminated label value"},
      {"abc{a=\"\\x\"} 1\n", "invalid escape"},
      {"abc{a=\"\\", "invalid escape"},  // found by libFuzzer: a backslash ends the body
      {"abc{a \"b\"} 1\n", "expected '='"},
      {"abc{a=b} 1\n", "expected a quoted label value"},
      {"abc{1a=\"b\"} 1\n", "expected a label name"},
      {"abc{,} 1\n", "expected a label name"},
      {"abc{a=\"1\",a=\"2\"} 1\n", "duplicate label"},
      {"abc{__name__=\"x\"} 1\n", "duplicate label"},
      {"abc{a=\"1\" b=\"2\"} 1\n", "expected ',' or '}'"},
      {"# TYPE abc bogus\n", "missing or unknown metric type"},
      {"# TYPE abc\n", "missing or unknown metric type"},
      {"# TYPE abc counter extra\n", "missing or unknown metric type"},
      {"# TYPE 1abc counter\n", "invalid metric name"},
      {"# HELP\n", "expected a blank and a metric name"},
      {"abc 1 # {a=\"b\"} 1\n", "exemplars are only allowed in OpenMetrics"},
  };
  for (const Case& c : cases) {
    const std::string body = std::string("ok 1\n# HELP ok fine\n") + c.body;
    INFO(body);
    const Error error = parseError(body);
    CHECK(error.field == "line 3");
    CHECK_THAT(error.message, Catch::Contains(c.fragment));
  }
}

TEST_CASE("OpenMetrics is strict about EOF, blank lines, comments and exemplars", "[exposition]") {
  struct Case {
    const char* body;
    const char* field;
    const char* fragment;
  };
  const Case cases[] = {
      {"a 1\nb 2\n", "line 2", "missing \"# EOF\""},
      {"a 1\n# EOF\nb 2\n", "line 3", "text after \"# EOF\""},
      {"a 1\n\n# EOF\n", "line 2", "empty line"},
      {"a 1\n# free comment\n# EOF\n", "line 2", "unknown comment"},
      {"a 1\n#EOF\n", "line 2", "expected a blank after '#'"},
      {"a 1 abc\n# EOF\n", "line 1", "expected seconds"},
      {"a 1 NaN\n# EOF\n", "line 1", "expected seconds"},
      {"a 1 #{x=\"1\"} 1\n# EOF\n", "line 1", "to start an exemplar"},
      {"a 1 # {x=\"1\"}\n# EOF\n", "line 1", "expected a blank and a value in the exemplar"},
      {"a 1 # {x=\"1\"} 1 2 3\n# EOF\n", "line 1", "unexpected text after the timestamp"},
      {"a 1 # {x=1} 1\n# EOF\n", "line 1", "expected a quoted label value"},
  };
  for (const Case& c : cases) {
    INFO(c.body);
    const Error error = parseError(c.body, openMetrics());
    CHECK(error.field == c.field);
    CHECK_THAT(error.message, Catch::Contains(c.fragment));
  }
}

TEST_CASE("samples before a syntax error have been visited", "[exposition]") {
  Parsed parsed = parse("a 1\nb 2\nc{ 3\nd 4\n");
  REQUIRE_FALSE(parsed.summary.ok());
  CHECK(parsed.summary.error().field == "line 3");
  REQUIRE(parsed.samples.size() == 2);
  CHECK(parsed.samples[1].label("__name__") == "b");
}

/// Sample lines of a 0.0.4 body counted without the parser: non-empty and not a comment.
std::size_t countSampleLines(std::string_view body) {
  std::size_t count = 0;
  std::size_t start = 0;
  while (start < body.size()) {
    std::size_t end = body.find('\n', start);
    end = end == std::string_view::npos ? body.size() : end;
    count += end > start && body[start] != '#' ? 1 : 0;
    start = end + 1;
  }
  return count;
}

TEST_CASE("truncated and corrupted real input never crashes the parser", "[exposition]") {
  std::mt19937 rng(20261130);
  for (const char* name :
       {"nri-kubernetes-1_35-ksm.metrics.txt", "nri-kubernetes-1_35-kube-scheduler.metrics.txt"}) {
    const std::string body = fixture(name);
    std::uniform_int_distribution<std::size_t> position(0, body.size() - 1);
    for (int round = 0; round < 300; ++round) {
      // A copy sized exactly to the prefix, so that any read past the end is seen by ASan.
      const std::string prefix = body.substr(0, position(rng));
      for (const Format format : {Format::kPrometheusText, Format::kOpenMetrics}) {
        Parsed parsed = parse(prefix, ParseOptions{format, 0});
        if (!parsed.summary.ok()) {
          CHECK_THAT(parsed.summary.error().field, Catch::StartsWith("line "));
        }
      }
      // Cut at a line end, every sample line of the prefix must come out.
      const std::string whole_lines = prefix.substr(0, prefix.rfind('\n') + 1);
      CHECK(parseOk(whole_lines).size() == countSampleLines(whole_lines));

      std::string corrupted = prefix;
      for (int flips = 0; flips < 8 && !corrupted.empty(); ++flips) {
        corrupted[position(rng) % corrupted.size()] = static_cast<char>(rng() & 0xff);
      }
      Parsed garbage = parse(corrupted);
      CHECK((garbage.summary.ok() || !garbage.summary.error().message.empty()));
    }
  }
}

}  // namespace
}  // namespace dagadvisor::sources::exposition
