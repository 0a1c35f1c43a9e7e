#include "live.h"

#include <CivetServer.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>

#include "exposition.h"
#include "native_histogram.h"
#include "simulation.h"

namespace dagadvisor::sim {
namespace {

volatile std::sig_atomic_t gStop = 0;

void onSignal(int) {
  gStop = 1;
}

void reply(mg_connection* conn, const char* content_type, const std::string& body) {
  mg_printf(conn,
            "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n"
            "Content-Length: %zu\r\nConnection: close\r\n\r\n",
            content_type, body.size());
  mg_write(conn, body.data(), body.size());
}

// Simulated time of a scrape: serialised, and never going backwards.
class SimulatedClock {
 public:
  SimulatedClock(const History& h, double speed)
      : h_(h), speed_(speed), begin_(std::chrono::steady_clock::now()) {}

  double now() {
    std::lock_guard<std::mutex> lock(mutex_);
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
    double t = std::min(h_.end, h_.scenario->output.windowStart + elapsed * speed_);
    last_ = std::max(t, last_);
    return last_;
  }

 private:
  const History& h_;
  double speed_;
  std::chrono::steady_clock::time_point begin_;
  std::mutex mutex_;
  double last_ = -1e300;
};

// Renders one text scrape; the exposition is rebuilt for each one, so scrapes are independent.
class MetricsHandler : public CivetHandler {
 public:
  MetricsHandler(const History& h, SimulatedClock& clock, bool classic_sli)
      : h_(h), clock_(clock), classic_sli_(classic_sli) {}

  bool handleGet(CivetServer*, mg_connection* conn) override {
    reply(conn, "text/plain; version=0.0.4", render(clock_.now()));
    return true;
  }

 private:
  std::string render(double t) {
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* mem = open_memstream(&data, &size);
    if (mem == nullptr) {
      return "";
    }
    {
      SampleWriter writer(mem, false, 0);
      Exposition exposition(h_, writer, h_.scenario->output.usage);
      if (!classic_sli_) {
        exposition.omitClassicSli();
      }
      exposition.writeHeader();
      exposition.writeStep(t);
    }
    std::fclose(mem);
    std::string out(data, size);
    std::free(data);
    return out;
  }

  const History& h_;
  SimulatedClock& clock_;
  bool classic_sli_;
};

// The scheduler's SLI histograms as native histograms, in the protobuf format.
class NativeHandler : public CivetHandler {
 public:
  NativeHandler(const History& h, SimulatedClock& clock) : h_(h), clock_(clock) {}

  bool handleGet(CivetServer*, mg_connection* conn) override {
    reply(conn, kProtobufContentType, nativeSliScrape(h_, clock_.now()));
    return true;
  }

 private:
  const History& h_;
  SimulatedClock& clock_;
};

}  // namespace

int serve(const Scenario& input, const Advice& advice, const std::string& listen, double speed,
          bool native_histograms) {
  if (!(speed > 0)) {
    std::cerr << "dagadvisor-sim: --speed must be positive\n";
    return 2;
  }
  Scenario s = input;
  // Simulated time t = window start maps to "now", so the timestamps inside the series are
  // close to the scrape times.
  s.start = static_cast<std::int64_t>(std::time(nullptr)) -
            static_cast<std::int64_t>(s.output.windowStart);
  History h = simulate(s, advice);
  for (const auto& line : describeReport(h.applied)) {
    std::cerr << "dagadvisor-sim: " << line << "\n";
  }
  SimulatedClock clock(h, speed);
  MetricsHandler handler(h, clock, !native_histograms);
  NativeHandler native(h, clock);
  try {
    CivetServer server(std::vector<std::string>{"listening_ports", listen, "num_threads", "4"});
    server.addHandler("/metrics", handler);
    if (native_histograms) {
      server.addHandler("/metrics/native", native);
    }
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    std::cout << "dagadvisor-sim: serving " << s.name << " on http://" << listen << "/metrics\n"
              << std::flush;
    while (!gStop) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  } catch (const CivetException& e) {
    std::cerr << "dagadvisor-sim: cannot listen on " << listen << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace dagadvisor::sim
