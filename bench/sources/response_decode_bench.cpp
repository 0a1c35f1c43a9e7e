// Prometheus JSON decoding (sources::decodeInstantVector) on a 100k-series instant vector,
// next to simdjson's own parse of the same bytes and nlohmann::json for reference.
// SPEC §6: decoding must stay within 2x of simdjson's parse time. The *Cold benchmarks run on a
// fresh thread (a fresh parser) and report the memory touched for the first time (faulted_MB):
// issue #4, page zeroing dominates a cold analysis cycle.

#include <benchmark/benchmark.h>
#include <simdjson.h>
#include <sys/resource.h>

#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>

#include "sources/http_client.h"
#include "sources/prometheus/response_parser.h"
#include "synthetic_pods.h"

namespace dagadvisor::bench {
namespace {

namespace ondemand = simdjson::ondemand;

// A /api/v1/query body for 100k pods, padded like the bodies HttpClient returns.
std::string vectorBody(std::size_t series) {
  std::string body = R"({"status":"success","data":{"resultType":"vector","result":[)";
  for (std::size_t i = 0; i < series; ++i) {
    body += i == 0 ? R"({"metric":{)" : R"(,{"metric":{)";
    const Labels labels = podLabels(i);
    for (std::size_t l = 0; l < labels.size(); ++l) {
      body += l == 0 ? "\"" : ",\"";
      body += labels[l].first;
      body += "\":\"";
      body += labels[l].second;
      body += '"';
    }
    body += R"(},"value":[1764460800.123,"1"]})";
  }
  body += "]}}";
  body.reserve(body.size() + sources::kBodyPadding);
  return body;
}

const std::string& body100k() {
  static const std::string body = vectorBody(100000);
  return body;
}

const std::string& body50k() {
  static const std::string body = vectorBody(50000);
  return body;
}

void setBytes(benchmark::State& state, std::string_view body) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * body.size()));
  state.counters["body_MB"] = static_cast<double>(body.size()) / 1e6;
}

template <class Body>
double decodeOnce(const Body& body, benchmark::State& state) {
  double sum = 0;
  auto decoded = sources::decodeInstantVector(body, [&](const sources::SampleView& view) {
    sum += view.value + static_cast<double>(view.label_count);
  });
  if (!decoded) {
    state.SkipWithError(decoded.error().describe().c_str());
  }
  return sum;
}

// Arg = series (100k: the 53 MB case of issue #4; 50k: 26 MB). A string_view is copied into the
// decoder's padded buffer first. One untimed decode first warms the per-thread decoder.
void BM_DecodeInstantVector(benchmark::State& state) {
  const std::string& body = state.range(0) == 100000 ? body100k() : body50k();
  decodeOnce(std::string_view(body), state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(decodeOnce(std::string_view(body), state));
  }
  setBytes(state, body);
}
BENCHMARK(BM_DecodeInstantVector)->Unit(benchmark::kMillisecond)->Arg(100000)->Arg(50000);

// What the sources hand over: a body with spare capacity, which the decoder parses in place.
sources::QueryBody paddedBody() {
  sources::QueryBody body;
  body.json.reserve(body100k().size() + sources::kBodyPadding);  // a plain copy would drop it
  body.json.append(body100k());
  return body;
}

void BM_DecodeQueryBody(benchmark::State& state) {
  const sources::QueryBody body = paddedBody();
  decodeOnce(body, state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(decodeOnce(body, state));
  }
  state.SetLabel(std::string(sources::decoderKernel()));
  setBytes(state, body.json);
}
BENCHMARK(BM_DecodeQueryBody)->Unit(benchmark::kMillisecond);

// The same with each simdjson kernel the CPU can run (BM_DecodeQueryBody uses the one simdjson's
// runtime dispatch chose): fallback is the walk every build had before the kernels were
// compiled separately.
void decodeWithKernel(benchmark::State& state, std::string_view kernel) {
  const sources::QueryBody body = paddedBody();
  auto once = [&] {
    double sum = 0;
    auto decoded = sources::detail::decodeInstantVectorWith(
        kernel, body, [&](const sources::SampleView& view) {
          sum += view.value + static_cast<double>(view.label_count);
        });
    if (!decoded) {
      state.SkipWithError(decoded.error().describe().c_str());
    }
    return sum;
  };
  once();
  for (auto _ : state) {
    benchmark::DoNotOptimize(once());
  }
  state.SetLabel(std::string(kernel));
  setBytes(state, body.json);
}

const bool kKernelBenchmarks = [] {
  for (std::string_view kernel : sources::detail::decoderKernels()) {
    benchmark::RegisterBenchmark(
        ("BM_DecodeQueryBodyKernel/" + std::string(kernel)).c_str(),
        [kernel](benchmark::State& state) { decodeWithKernel(state, kernel); })
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

long minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

// Runs `work` on a fresh thread, as the first decode of a cycle meets a cold decoder, and
// reports the pages it touched for the first time (page zeroing dominates a cold cycle).
template <class Work>
void coldRuns(benchmark::State& state, std::string_view body, Work work) {
  long faults = 0;
  for (auto _ : state) {
    std::thread run([&] {
      const long before = minorFaults();
      work();
      faults += minorFaults() - before;
    });
    run.join();
  }
  const double per_run = static_cast<double>(faults) / static_cast<double>(state.iterations());
  state.counters["faulted_MB"] = per_run * 4096 / 1e6;
  setBytes(state, body);
}

// The decoder's first decode on a thread: a fresh parser, as after a body above
// kKeepParserBytes or on a new worker thread.
void BM_DecodeQueryBodyCold(benchmark::State& state) {
  const sources::QueryBody body = paddedBody();
  coldRuns(state, body.json, [&] { benchmark::DoNotOptimize(decodeOnce(body, state)); });
}
BENCHMARK(BM_DecodeQueryBodyCold)->Unit(benchmark::kMillisecond)->UseRealTime();

// Cost per series as the body grows (Arg = series; 100k is the reference cluster's largest
// query): a fresh decoder per run, warm (a second decode on the same thread) and cold.
void BM_DecodeScaling(benchmark::State& state) {
  const auto series = static_cast<std::size_t>(state.range(0));
  sources::QueryBody body;
  body.json = sources::BodyBuffer(vectorBody(series));
  long faults = 0;
  for (auto _ : state) {
    std::thread run([&] {
      const long before = minorFaults();
      benchmark::DoNotOptimize(decodeOnce(body, state));
      faults += minorFaults() - before;
    });
    run.join();
  }
  const double runs = static_cast<double>(state.iterations());
  state.counters["faulted_MB"] = static_cast<double>(faults) / runs * 4096 / 1e6;
  state.counters["ns_per_series"] =
      benchmark::Counter(static_cast<double>(series) * runs,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  setBytes(state, body.json);
}
BENCHMARK(BM_DecodeScaling)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Arg(25000)
    ->Arg(50000)
    ->Arg(100000)
    ->Arg(200000);

// simdjson's DOM parse alone, building the tape only: in place (arg 0, the body is padded) or
// copied into the parser's own padded buffer first (arg 1, what parse(ptr, len) does by default).
// The first parse sizes the parser's buffers (page faults included); it is not timed.
void BM_SimdjsonDomParse(benchmark::State& state) {
  const std::string& body = body100k();
  const bool in_place = state.range(0) == 0;
  simdjson::dom::parser parser;
  if (parser.parse(body.data(), body.size(), !in_place).error() != simdjson::SUCCESS) {
    state.SkipWithError("simdjson parse failed");
    return;
  }
  for (auto _ : state) {
    simdjson::dom::element root;
    if (parser.parse(body.data(), body.size(), !in_place).get(root) != simdjson::SUCCESS) {
      state.SkipWithError("simdjson parse failed");
      return;
    }
    benchmark::DoNotOptimize(root);
  }
  state.SetLabel(simdjson::get_active_implementation()->name());  // runtime-dispatched kernel
  setBytes(state, body);
}
BENCHMARK(BM_SimdjsonDomParse)->Unit(benchmark::kMillisecond)->Arg(0)->Arg(1);

// A fresh DOM parser's in-place parse: the page faults of its tape and string buffer.
void BM_SimdjsonDomParseCold(benchmark::State& state) {
  const std::string& body = body100k();
  coldRuns(state, body, [&] {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    if (parser.parse(body.data(), body.size(), false).get(root) != simdjson::SUCCESS) {
      state.SkipWithError("simdjson parse failed");
    }
    benchmark::DoNotOptimize(root);
  });
}
BENCHMARK(BM_SimdjsonDomParseCold)->Unit(benchmark::kMillisecond)->UseRealTime();

struct Tally {
  std::size_t chars = 0;
  double sum = 0;
};

bool walk(ondemand::value value, Tally& tally);

bool walkObject(ondemand::value value, Tally& tally) {
  ondemand::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) {
    return false;
  }
  for (auto item : object) {
    ondemand::field field;
    std::string_view key;
    if (std::move(item).get(field) != simdjson::SUCCESS ||
        field.unescaped_key().get(key) != simdjson::SUCCESS || !walk(field.value(), tally)) {
      return false;
    }
    tally.chars += key.size();
  }
  return true;
}

bool walkArray(ondemand::value value, Tally& tally) {
  ondemand::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) {
    return false;
  }
  for (auto item : array) {
    ondemand::value element;
    if (std::move(item).get(element) != simdjson::SUCCESS || !walk(element, tally)) {
      return false;
    }
  }
  return true;
}

// Visits every key and scalar, which is what a decoder has to do at least.
bool walk(ondemand::value value, Tally& tally) {
  ondemand::json_type type;
  if (value.type().get(type) != simdjson::SUCCESS) {
    return false;
  }
  switch (type) {
    case ondemand::json_type::object:
      return walkObject(value, tally);
    case ondemand::json_type::array:
      return walkArray(value, tally);
    case ondemand::json_type::string: {
      std::string_view text;
      tally.chars += value.get_string().get(text) == simdjson::SUCCESS ? text.size() : 0;
      return true;
    }
    case ondemand::json_type::number: {
      double number = 0;
      tally.sum += value.get_double().get(number) == simdjson::SUCCESS ? number : 0;
      return true;
    }
    default:
      return true;
  }
}

void BM_SimdjsonOndemandWalk(benchmark::State& state) {
  const std::string& body = body100k();
  ondemand::parser parser;
  for (auto _ : state) {
    ondemand::document doc;
    ondemand::value root;
    Tally tally;
    if (parser.iterate(body.data(), body.size(), body.capacity()).get(doc) != simdjson::SUCCESS ||
        doc.get_value().get(root) != simdjson::SUCCESS || !walk(root, tally)) {
      state.SkipWithError("simdjson on-demand walk failed");
      return;
    }
    benchmark::DoNotOptimize(tally);
  }
  // On-demand is compiled for the build's -march (no runtime dispatch), unlike the DOM parser.
  state.SetLabel(simdjson::builtin_implementation()->name());
  setBytes(state, body);
}
BENCHMARK(BM_SimdjsonOndemandWalk)->Unit(benchmark::kMillisecond);

void BM_NlohmannParse(benchmark::State& state) {
  const std::string& body = body100k();
  for (auto _ : state) {
    auto json = nlohmann::json::parse(body, nullptr, false);  // no exceptions: discarded on error
    if (json.is_discarded()) {
      state.SkipWithError("nlohmann parse failed");
      return;
    }
    benchmark::DoNotOptimize(json);
  }
  setBytes(state, body);
}
BENCHMARK(BM_NlohmannParse)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace dagadvisor::bench
