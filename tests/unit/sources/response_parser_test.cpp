#include "sources/prometheus/response_parser.h"

#include <simdjson.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/percent_encoding.h"
#include "common/secrets.h"
#include "sources/http_client.h"
#include "sources/prometheus/response_decoder.h"
#include "support/test_support.h"

namespace dagadvisor::sources {
namespace {

using testing::prometheusFixture;

/// An owned copy of a SampleView, which is only valid during the visitor call.
struct Sample {
  std::map<std::string, std::string> labels;
  double timestamp = 0;
  double value = 0;
};

struct Decoded {
  Result<DecodeSummary> summary;
  std::vector<Sample> samples;
};

template <class Body>
Decoded decode(const Body& body) {
  std::vector<Sample> samples;
  auto summary = decodeInstantVector(body, [&](const SampleView& view) {
    Sample sample{{}, view.timestamp, view.value};
    for (std::size_t i = 0; i < view.label_count; ++i) {
      sample.labels.emplace(view.labels[i].first, view.labels[i].second);
    }
    samples.push_back(std::move(sample));
  });
  return {std::move(summary), std::move(samples)};
}

std::string vectorOf(const std::string& samples) {
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + samples + "]}}";
}

TEST_CASE("decodes a vector with labels, in response order", "[parser]") {
  const auto decoded = decode(prometheusFixture("vector_labels.json"));
  REQUIRE(decoded.summary.ok());
  CHECK(decoded.summary->samples == 3);
  CHECK(decoded.summary->warnings.empty());
  REQUIRE(decoded.samples.size() == 3);

  const Sample& first = decoded.samples[0];
  CHECK(first.labels.size() == 4);
  CHECK(first.labels.at("__name__") == "kube_pod_info");
  CHECK(first.labels.at("pod") == "train-7f9c");
  CHECK(first.labels.at("node") == "gpu-node-1");
  CHECK(first.timestamp == Approx(1795856400.123).epsilon(1e-15));
  CHECK(first.value == 1.0);

  CHECK(decoded.samples[1].labels.at("namespace") == "etl");
  CHECK(decoded.samples[1].value == 2500.0);
  CHECK(decoded.samples[2].labels.empty());
  CHECK(decoded.samples[2].timestamp == 1795856400.0);  // an integer timestamp
  CHECK(decoded.samples[2].value == -0.25);
}

TEST_CASE("a source's body is parsed in place when padded, copied when not", "[parser]") {
  const std::string text = prometheusFixture("vector_labels.json");
  const Decoded reference = decode(std::string_view(text));
  REQUIRE(reference.summary.ok());

  // Junk after the end must not count.
  QueryBody padded{BodyBuffer(text + std::string(kBodyPadding, '"'))};
  padded.json.setSize(text.size());
  REQUIRE(padded.json.capacity() >= text.size() + kBodyPadding);
  // No spare bytes: the text filled with blanks up to the end of its buffer's last page.
  QueryBody tight{BodyBuffer(text)};
  tight.json.append(std::string(tight.json.capacity() - tight.json.size(), ' '));
  REQUIRE(tight.json.size() == tight.json.capacity());

  for (const QueryBody* body : {&padded, &tight}) {
    const Decoded decoded = decode(*body);
    REQUIRE(decoded.summary.ok());
    REQUIRE(decoded.samples.size() == reference.samples.size());
    for (std::size_t i = 0; i < decoded.samples.size(); ++i) {
      CHECK(decoded.samples[i].labels == reference.samples[i].labels);
      CHECK(decoded.samples[i].value == reference.samples[i].value);
    }
  }
}

TEST_CASE("a label value echoing a registered secret reaches the visitor scrubbed", "[parser]") {
  const std::string secret = "parser-test-f00d/4e1c=";  // its URL-encoded form differs
  registerSecret(secret);
  const std::string echoed = "default seen " + percentEncode(secret);
  const std::string body = vectorOf(R"({"metric":{"namespace":")" + echoed + R"(","pod":"a"},)" +
                                    R"("value":[1,"1"]},{"metric":{"namespace":"x )" + secret +
                                    R"(","pod":"b"},"value":[1,"2"]},)" +
                                    R"({"metric":{"namespace":"etl","pod":"c"},"value":[1,"3"]})");
  for (const std::string_view kernel : detail::decoderKernels()) {
    CAPTURE(kernel);
    std::vector<Sample> samples;
    const auto summary = detail::decodeInstantVectorWith(kernel, body, [&](const SampleView& v) {
      Sample sample{{}, v.timestamp, v.value};
      for (std::size_t i = 0; i < v.label_count; ++i) {
        sample.labels.emplace(v.labels[i].first, v.labels[i].second);
      }
      samples.push_back(std::move(sample));
    });
    REQUIRE(summary.ok());
    REQUIRE(samples.size() == 3);
    CHECK(samples[0].labels.at("namespace") == "default seen <redacted>");
    CHECK(samples[1].labels.at("namespace") == "x <redacted>");
    CHECK(samples[1].labels.at("pod") == "b");  // the other labels of a scrubbed sample stay
    CHECK(samples[1].value == 2.0);
    CHECK(samples[2].labels.at("namespace") == "etl");
  }
}

TEST_CASE("SampleView::label finds a label or returns empty", "[parser]") {
  std::vector<std::string> pods;
  std::vector<std::string> missing;
  auto summary =
      decodeInstantVector(prometheusFixture("vector_labels.json"), [&](const SampleView& view) {
        pods.emplace_back(view.label("pod"));
        missing.emplace_back(view.label("no_such_label"));
      });
  REQUIRE(summary.ok());
  CHECK(pods == std::vector<std::string>{"train-7f9c", "extract-2", ""});
  CHECK(missing == std::vector<std::string>{"", "", ""});
}

TEST_CASE("decodes a scalar as one sample without labels", "[parser]") {
  const auto decoded = decode(prometheusFixture("scalar.json"));
  REQUIRE(decoded.summary.ok());
  CHECK(decoded.summary->samples == 1);
  REQUIRE(decoded.samples.size() == 1);
  CHECK(decoded.samples[0].labels.empty());
  CHECK(decoded.samples[0].timestamp == 1795856400.5);
  CHECK(decoded.samples[0].value == 42.75);
}

TEST_CASE("an empty vector calls no visitor", "[parser]") {
  const auto decoded = decode(prometheusFixture("empty_vector.json"));
  REQUIRE(decoded.summary.ok());
  CHECK(decoded.summary->samples == 0);
  CHECK(decoded.samples.empty());
}

TEST_CASE("decodes NaN, +Inf, -Inf and bare JSON numbers", "[parser]") {
  const auto decoded = decode(prometheusFixture("special_values.json"));
  REQUIRE(decoded.summary.ok());
  REQUIRE(decoded.samples.size() == 4);
  CHECK(decoded.samples[0].labels.at("case") == "nan");
  CHECK(std::isnan(decoded.samples[0].value));
  CHECK(std::isinf(decoded.samples[1].value));
  CHECK(decoded.samples[1].value > 0);
  CHECK(std::isinf(decoded.samples[2].value));
  CHECK(decoded.samples[2].value < 0);
  CHECK(decoded.samples[3].value == 7.0);
}

TEST_CASE("a status:error body is an Error carrying errorType and error", "[parser]") {
  const auto decoded = decode(prometheusFixture("error_bad_data.json"));
  REQUIRE_FALSE(decoded.summary.ok());
  const std::string message = decoded.summary.error().describe();
  CHECK_THAT(message, Catch::Contains("bad_data"));
  CHECK_THAT(message, Catch::Contains("1:5: parse error: unexpected end of input"));
  CHECK(decoded.samples.empty());
}

TEST_CASE("warnings are reported in the summary; infos are ignored", "[parser]") {
  const auto decoded = decode(prometheusFixture("warnings.json"));
  REQUIRE(decoded.summary.ok());
  CHECK(decoded.summary->warnings ==
        std::vector<std::string>{"PromQL warning: encountered a mix of histograms and floats",
                                 "partial response: store gateway unavailable"});
  CHECK(decoded.samples.size() == 1);
}

TEST_CASE("a matrix result is refused at data.resultType", "[parser]") {
  const auto decoded = decode(prometheusFixture("matrix.json"));
  REQUIRE_FALSE(decoded.summary.ok());
  CHECK(decoded.summary.error().field == "data.resultType");
  CHECK_THAT(decoded.summary.error().message, Catch::Contains("matrix"));
}

TEST_CASE("simdjson's allocation failure is named as such, not as malformed JSON", "[parser]") {
  const Error out_of_memory = decoder::jsonFault(simdjson::MEMALLOC);
  CHECK_THAT(out_of_memory.message, Catch::StartsWith("out of memory while decoding the answer"));
  CHECK_THAT(out_of_memory.message, !Catch::Contains("malformed"));
  CHECK_THAT(decoder::jsonFault(simdjson::TAPE_ERROR).message, Catch::StartsWith("malformed JSON"));
}

TEST_CASE("wrong types are Errors naming the JSON path", "[parser]") {
  const std::string ok = R"({"metric":{"pod":"a"},"value":[1795856400,"1"]})";
  struct Case {
    std::string body;
    std::string path;
  };
  const std::vector<Case> cases = {
      {vectorOf(ok + "," + ok + "," + ok + R"(,{"metric":{},"value":"1"})"),
       "data.result[3].value"},
      {vectorOf(R"({"metric":[],"value":[1,"1"]})"), "data.result[0].metric"},
      {vectorOf(R"({"metric":{"pod":7},"value":[1,"1"]})"), "data.result[0].metric.pod"},
      {vectorOf(R"({"metric":{}})"), "data.result[0].value"},
      {vectorOf(R"({"metric":{},"value":[1,"1",2]})"), "data.result[0].value"},
      {vectorOf(R"({"metric":{},"value":["1","1"]})"), "data.result[0].value[0]"},
      {vectorOf(R"({"metric":{},"value":[1,"one"]})"), "data.result[0].value[1]"},
      {vectorOf(R"({"metric":{},"value":[1,""]})"), "data.result[0].value[1]"},
      {vectorOf(R"({"metric":{},"value":[1,"1.5x"]})"), "data.result[0].value[1]"},
      {vectorOf(R"({"metric":{},"value":[1,true]})"), "data.result[0].value[1]"},
      {vectorOf(ok + R"(,"not an object")"), "data.result[1]"},
      {R"({"status":"success"})", "data"},
      {R"({"status":"success","data":[]})", "data"},
      {R"({"status":"success","data":{"result":[]}})", "data.resultType"},
      {R"({"status":"success","data":{"resultType":"vector"}})", "data.result"},
      {R"({"status":"success","data":{"resultType":"vector","result":{}}})", "data.result"},
      {R"({"status":"success","data":{"resultType":"scalar","result":"1"}})", "data.result"},
      {R"({"status":"success","data":{"resultType":"scalar","result":[1,"x"]}})", "data.result[1]"},
      {R"({"data":{"resultType":"vector","result":[]}})", "status"},
      {R"({"status":"maybe","data":{"resultType":"vector","result":[]}})", "status"},
      {R"({"status":"success","warnings":"w","data":{"resultType":"vector","result":[]}})",
       "warnings"},
      {R"({"status":"success","warnings":["a",1],"data":{"resultType":"vector","result":[]}})",
       "warnings[1]"},
      {R"([1,2,3])", "$"},
      {R"("success")", "$"},
      {"", "$"},
  };
  for (const auto& c : cases) {
    INFO(c.body);
    const auto decoded = decode(c.body);
    REQUIRE_FALSE(decoded.summary.ok());
    CHECK(decoded.summary.error().field == c.path);
    CHECK_FALSE(decoded.summary.error().message.empty());
  }
}

TEST_CASE("a native histogram sample is refused with a clear message", "[parser]") {
  const auto decoded =
      decode(vectorOf(R"({"metric":{},"histogram":[1,{"count":"2","sum":"3","buckets":[]}]})"));
  REQUIRE_FALSE(decoded.summary.ok());
  CHECK(decoded.summary.error().field == "data.result[0].value");
  CHECK_THAT(decoded.summary.error().message, Catch::Contains("histogram"));
}

TEST_CASE("escaped keys and values decode to their unescaped text", "[parser]") {
  const auto decoded = decode(
      vectorOf(R"({"metric":{"a\"b":"x\"y","uni":"\u00e9t\u00e9 \ud83d\ude00","path":"c:\\tmp\/x",)"
               R"("plain":"p"},"value":[1,"1"]})"));
  REQUIRE(decoded.summary.ok());
  REQUIRE(decoded.samples.size() == 1);
  const auto& labels = decoded.samples[0].labels;
  CHECK(labels.at("a\"b") == "x\"y");
  CHECK(labels.at("uni") == "\xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80");  // UTF-8 of été and U+1F600
  CHECK(labels.at("path") == "c:\\tmp/x");
  CHECK(labels.at("plain") == "p");
}

TEST_CASE("all label views of a sample stay valid during the visitor call", "[parser]") {
  // Several escaped strings per sample: unescaping one must not overwrite an earlier one.
  std::string samples;
  for (int i = 0; i < 3; ++i) {
    const std::string n = std::to_string(i);
    samples += std::string(i == 0 ? "" : ",") + R"({"metric":{"k\u0031":"v\"1-)" + n +
               R"(","k\u0032":"v\"2-)" + n + R"(","k3":"v3-)" + n + R"("},"value":[1,"1"]})";
  }
  std::vector<std::string> seen;
  auto summary = decodeInstantVector(vectorOf(samples), [&](const SampleView& view) {
    std::string all;
    for (std::size_t i = 0; i < view.label_count; ++i) {
      all += std::string(view.labels[i].first) + "=" + std::string(view.labels[i].second) + ";";
    }
    seen.push_back(all);
  });
  REQUIRE(summary.ok());
  CHECK(seen == std::vector<std::string>{"k1=v\"1-0;k2=v\"2-0;k3=v3-0;",
                                         "k1=v\"1-1;k2=v\"2-1;k3=v3-1;",
                                         "k1=v\"1-2;k2=v\"2-2;k3=v3-2;"});
}

TEST_CASE("a vector past the series cap stops at the cap, naming it and its setting", "[parser]") {
  const std::string one = R"({"metric":{"pod":"p"},"value":[1,"1"]})";
  // A wrongly typed sample past the cap: the walk stops before it is reached.
  const QueryBody body{
      BodyBuffer(vectorOf(one + "," + one + "," + one + R"(,{"metric":[],"value":1})"))};
  const DecodeLimits limits{2, "sources.prometheus.max_series_per_query"};
  for (std::string_view kernel : detail::decoderKernels()) {
    INFO(kernel);
    std::size_t visited = 0;
    auto summary = detail::decodeInstantVectorWith(
        kernel, body, [&](const SampleView&) { ++visited; }, limits);
    REQUIRE_FALSE(summary.ok());
    CHECK(visited == 2);
    CHECK(summary.error().field == "data.result");
    CHECK(summary.error().message ==
          "more than 2 series (the cap sources.prometheus.max_series_per_query)");
  }
  std::size_t visited = 0;
  const QueryBody fits{BodyBuffer(vectorOf(one + "," + one))};
  auto summary = decodeInstantVector(
      fits, [&](const SampleView&) { ++visited; }, limits);
  REQUIRE(summary.ok());
  CHECK(visited == 2);
}

TEST_CASE("labels without escapes are views into a padded body, not copies", "[parser]") {
  QueryBody body{BodyBuffer(prometheusFixture("vector_labels.json"))};
  body.json.reserve(body.json.size() + kBodyPadding);
  const char* begin = body.json.data();
  const char* end = begin + body.json.size();
  std::size_t inside = 0;
  std::size_t labels = 0;
  auto summary = decodeInstantVector(body, [&](const SampleView& view) {
    for (std::size_t i = 0; i < view.label_count; ++i, ++labels) {
      for (std::string_view text : {view.labels[i].first, view.labels[i].second}) {
        inside += text.data() >= begin && text.data() + text.size() <= end ? 1 : 0;
      }
    }
  });
  REQUIRE(summary.ok());
  CHECK(labels > 0);
  CHECK(inside == 2 * labels);
}

TEST_CASE("field order does not matter", "[parser]") {
  const std::string canonical =
      R"({"status":"success","data":{"resultType":"vector","result":[)"
      R"({"metric":{"pod":"a"},"value":[1795856400,"1.5"]}]},"warnings":["w"]})";
  const std::string shuffled =
      R"({"warnings":["w"],"data":{"result":[{"value":[1795856400,"1.5"],"metric":{"pod":"a"}}],)"
      R"("stats":{"timings":{"evalTotalTime":0.1}},"resultType":"vector"},"status":"success"})";
  const auto expected = decode(canonical);
  const auto decoded = decode(shuffled);
  REQUIRE(expected.summary.ok());
  REQUIRE(decoded.summary.ok());
  CHECK(decoded.summary->warnings == expected.summary->warnings);
  REQUIRE(decoded.samples.size() == 1);
  CHECK(decoded.samples[0].labels == expected.samples[0].labels);
  CHECK(decoded.samples[0].value == 1.5);
  CHECK(decoded.samples[0].timestamp == 1795856400.0);
}

TEST_CASE("faults are reported in the same order whatever the field order", "[parser]") {
  struct Case {
    std::string body;
    std::string path;
  };
  const std::vector<Case> cases = {
      // a bad label comes before a bad value even when the value is written first
      {vectorOf(R"({"value":[1,"x"],"metric":{"pod":1}})"), "data.result[0].metric.pod"},
      // the status is checked first even when it comes last
      {R"({"data":{"resultType":"vector","result":[]},"status":7})", "status"},
      // warnings are checked before data even when they come after it
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]},)"
       R"("warnings":[1]})",
       "warnings[0]"},
      // a missing result is reported before an unsupported resultType
      {R"({"status":"success","data":{"resultType":"matrix"}})", "data.result"},
      // the first of duplicate keys is the one that counts
      {R"({"status":"success","status":"error","data":{"resultType":"vector","result":7}})",
       "data.result"},
  };
  for (const auto& c : cases) {
    INFO(c.body);
    const auto decoded = decode(c.body);
    REQUIRE_FALSE(decoded.summary.ok());
    CHECK(decoded.summary.error().field == c.path);
  }
}

TEST_CASE("a status after the data still decides before any sample is visited", "[parser]") {
  const auto decoded = decode(
      std::string(R"({"data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"]}]},)") +
      R"("status":"error","errorType":"timeout","error":"too slow"})");
  REQUIRE_FALSE(decoded.summary.ok());
  CHECK_THAT(decoded.summary.error().message, Catch::Contains("timeout"));
  CHECK(decoded.samples.empty());
}

TEST_CASE("malformed JSON anywhere is reported as such, even in ignored fields", "[parser]") {
  const std::string data = R"("data":{"resultType":"vector","result":[]})";
  for (const std::string& body : std::vector<std::string>{
           R"({"status":"success",)" + data + R"(,"infos":[tru]})",
           R"({"status":"success",)" + data + R"(,"stats":{"a":1,}})",
           R"({"status":"success",)" + data + R"(,"x":"bad \q escape"})",
           R"({"status":"success",)" + data + R"(,"x":01})",
           R"({"status":"success",)" + data + "} {}",
           R"({"status":"success",)" + data + "}x",
           // a type fault met first does not hide the malformed part after it
           std::string(R"({"status":7,"data":[nul]})"),
           vectorOf(R"({"metric":{"pod":1},"value":[1,"1"]},{"metric":{"pod":"a\x"}})"),
       }) {
    INFO(body);
    const auto decoded = decode(body);
    REQUIRE_FALSE(decoded.summary.ok());
    CHECK(decoded.summary.error().field == "$");
    CHECK_THAT(decoded.summary.error().message, Catch::StartsWith("malformed JSON"));
  }
}

TEST_CASE("values nested deeper than the parser allows are an Error, not a crash", "[parser]") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const auto decoded =
      decode(R"({"status":"success","data":{"resultType":"vector","result":[]},"x":)" + deep + "}");
  REQUIRE_FALSE(decoded.summary.ok());
  CHECK(decoded.summary.error().field == "$");
}

TEST_CASE("every strict prefix of a valid body is an Error", "[parser]") {
  for (const char* name : {"vector_labels.json", "scalar.json", "special_values.json",
                           "warnings.json", "error_bad_data.json", "empty_vector.json"}) {
    std::string body = prometheusFixture(name);
    body.erase(body.find_last_not_of(" \n") + 1);  // a prefix without trailing blanks is whole
    REQUIRE(decode(body).summary.ok() == (std::string(name) != "error_bad_data.json"));
    for (std::size_t n = 0; n < body.size(); ++n) {
      INFO(name << " prefix of " << n << " bytes");
      const auto decoded = decode(std::string_view(body).substr(0, n));
      REQUIRE_FALSE(decoded.summary.ok());
    }
  }
}

TEST_CASE("corrupted bodies never crash", "[parser]") {
  const std::string original = prometheusFixture("special_values.json");
  std::mt19937 random(20261130);  // fixed seed: failures reproduce
  std::uniform_int_distribution<std::size_t> position(0, original.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::size_t errors = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string body = original;
    for (int flips = 0; flips < 3; ++flips) {
      body[position(random)] = static_cast<char>(byte(random));
    }
    std::size_t visited = 0;
    auto summary = decodeInstantVector(body, [&](const SampleView&) { ++visited; });
    errors += summary.ok() ? 0 : 1;
    if (summary.ok()) {
      CHECK(summary->samples == visited);
    }
  }
  CHECK(errors > 0);  // the corruption did reach the decoder's error paths
}

TEST_CASE("a visitor may decode another body without corrupting its own labels", "[parser]") {
  const std::string outer = prometheusFixture("vector_labels.json");
  const std::string inner = prometheusFixture("special_values.json");
  std::vector<std::string> pods_after_nested;
  std::size_t nested_samples = 0;
  auto summary = decodeInstantVector(outer, [&](const SampleView& view) {
    auto nested = decodeInstantVector(inner, [&](const SampleView&) { ++nested_samples; });
    REQUIRE(nested.ok());
    pods_after_nested.emplace_back(view.label("pod"));
  });
  REQUIRE(summary.ok());
  CHECK(nested_samples == 3 * 4);
  CHECK(pods_after_nested == std::vector<std::string>{"train-7f9c", "extract-2", ""});
}

/// What one kernel made of a body, in a form two kernels' outcomes compare with ==.
std::string kernelOutcome(std::string_view kernel, std::string_view body) {
  std::string seen;
  auto summary = detail::decodeInstantVectorWith(kernel, body, [&](const SampleView& view) {
    for (std::size_t i = 0; i < view.label_count; ++i) {
      seen += std::string(view.labels[i].first) + "=" + std::string(view.labels[i].second) + ",";
    }
    seen += std::to_string(view.timestamp) + " " + std::to_string(view.value) + ";";
  });
  if (!summary.ok()) {
    return "error " + summary.error().describe() + " after " + seen;
  }
  seen += " samples " + std::to_string(summary->samples);
  for (const auto& warning : summary->warnings) {
    seen += " warning " + warning;
  }
  return seen;
}

TEST_CASE("the decoder uses a kernel this CPU runs, and every kernel decodes alike", "[parser]") {
  const std::vector<std::string_view> kernels = detail::decoderKernels();
  REQUIRE_FALSE(kernels.empty());
  CHECK(std::find(kernels.begin(), kernels.end(), decoderKernel()) != kernels.end());
  CHECK_FALSE(detail::decodeInstantVectorWith("no-such-kernel", std::string_view("{}"),
                                              [](const SampleView&) {})
                  .ok());
  const std::string_view reference = kernels.back();  // the builtin one, on every CPU
  std::vector<std::string> bodies;
  for (const char* name : {"vector_labels.json", "scalar.json", "special_values.json",
                           "warnings.json", "error_bad_data.json", "empty_vector.json"}) {
    const std::string body = prometheusFixture(name);
    for (std::size_t n = 0; n <= body.size(); n += 7) {
      bodies.push_back(body.substr(0, n));
    }
    bodies.push_back(body);
  }
  bodies.push_back(vectorOf(R"({"metric":{"a\"b":"c\\d\u00e9","pod":"p"},"value":[1,"2"]})"));
  bodies.push_back(R"({"data":{"result":[{"value":[1,"NaN"],"metric":{"x":"y"}}],)"
                   R"("resultType":"vector"},"status":"success"})");
  const std::string original = prometheusFixture("special_values.json");
  std::mt19937 random(20261201);  // fixed seed: failures reproduce
  std::uniform_int_distribution<std::size_t> position(0, original.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 500; ++round) {
    std::string body = original;
    for (int flips = 0; flips < 3; ++flips) {
      body[position(random)] = static_cast<char>(byte(random));
    }
    bodies.push_back(std::move(body));
  }
  for (std::string_view kernel : kernels) {
    for (const std::string& body : bodies) {
      INFO(kernel << " on " << body);
      REQUIRE(kernelOutcome(kernel, body) == kernelOutcome(reference, body));
    }
  }
}

}  // namespace
}  // namespace dagadvisor::sources

namespace dagadvisor::sources {

TEST_CASE("the stats a stats=all query gets are read from the body's tail", "[parser]") {
  // As Prometheus 2.42 (Debian 12) answers `sum by (job) (up)` with stats=all.
  const std::string body =
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"self",)"
      R"("note":"\"stats\":{"},"value":[1796166095.101,"1"]}],"stats":{"timings":)"
      R"({"evalTotalTime":0.000210092,"resultSortTime":0,"queryPreparationTime":0.000087591,)"
      R"("innerEvalTime":0.000113199,"execQueueTime":0.000109563,"execTotalTime":0.000331143},)"
      R"("samples":{"totalQueryableSamples":1,"peakSamples":3}}}})";
  const auto stats = parseQueryStats(body);
  REQUIRE(stats);
  CHECK(stats->eval_seconds == 0.000210092);
  CHECK(stats->exec_seconds == 0.000331143);
  CHECK(stats->queryable_samples == 1);
  CHECK(stats->peak_samples == 3);
  std::size_t samples = 0;
  REQUIRE(decodeInstantVector(body, [&](const SampleView&) { ++samples; }).ok());
  CHECK(samples == 1);  // the decoder skips the stats

  CHECK_FALSE(parseQueryStats(prometheusFixture("vector_labels.json")));
  CHECK_FALSE(parseQueryStats(R"({"data":{"stats":{"timings":{)"));  // cut short
}

}  // namespace dagadvisor::sources
