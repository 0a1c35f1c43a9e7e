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
#include "simulation.h"

namespace dagadvisor::sim {
namespace {

volatile std::sig_atomic_t gStop = 0;

void onSignal(int) {
  gStop = 1;
}

// Renders one scrape; the exposition keeps state between scrapes, so calls are serialised and
// simulated time never goes backwards.
class MetricsHandler : public CivetHandler {
 public:
  MetricsHandler(const History& h, double speed)
      : h_(h), speed_(speed), begin_(std::chrono::steady_clock::now()) {}

  bool handleGet(CivetServer*, mg_connection* conn) override {
    std::string body = render();
    mg_printf(conn,
              "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
              "Content-Length: %zu\r\nConnection: close\r\n\r\n",
              body.size());
    mg_write(conn, body.data(), body.size());
    return true;
  }

 private:
  std::string render() {
    std::lock_guard<std::mutex> lock(mutex_);
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
    double t = std::min(h_.end, h_.scenario->output.windowStart + elapsed * speed_);
    t = std::max(t, last_);
    last_ = t;
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* mem = open_memstream(&data, &size);
    if (mem == nullptr) {
      return "";
    }
    {
      SampleWriter writer(mem, false, 0);
      Exposition exposition(h_, writer, h_.scenario->output.usage);
      exposition.writeHeader();
      exposition.writeStep(t);
    }
    std::fclose(mem);
    std::string out(data, size);
    std::free(data);
    return out;
  }

  const History& h_;
  double speed_;
  std::chrono::steady_clock::time_point begin_;
  std::mutex mutex_;
  double last_ = -1e300;
};

}  // namespace

int serve(const Scenario& input, Policy policy, const std::string& listen, double speed) {
  if (!(speed > 0)) {
    std::cerr << "dagadvisor-sim: --speed must be positive\n";
    return 2;
  }
  Scenario s = input;
  // Simulated time t = window start maps to "now", so the timestamps inside the series are
  // close to the scrape times.
  s.start = static_cast<std::int64_t>(std::time(nullptr)) -
            static_cast<std::int64_t>(s.output.windowStart);
  History h = simulate(s, policy);
  MetricsHandler handler(h, speed);
  try {
    CivetServer server(std::vector<std::string>{"listening_ports", listen, "num_threads", "4"});
    server.addHandler("/metrics", handler);
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
