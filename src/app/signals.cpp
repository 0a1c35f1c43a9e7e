#include "app/signals.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>

namespace dagadvisor::app {
namespace {

// SIGUSR2 is our private wake-up to end the watcher when the program stops without a signal.
sigset_t watchedSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR2);
  return set;
}

}  // namespace

SignalWatcher::SignalWatcher(std::function<void()> on_stop, std::function<void()> on_reload) {
  const sigset_t set = watchedSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([set, on_stop = std::move(on_stop), on_reload = std::move(on_reload)] {
    for (;;) {
      int signal = 0;
      if (sigwait(&set, &signal) != 0) {
        continue;
      }
      if (signal == SIGHUP) {
        on_reload();
        continue;
      }
      if (signal != SIGUSR2) {
        on_stop();
      }
      return;
    }
  });
}

SignalWatcher::~SignalWatcher() {
  if (thread_.joinable()) {
    pthread_kill(thread_.native_handle(), SIGUSR2);
    thread_.join();
  }
}

}  // namespace dagadvisor::app
