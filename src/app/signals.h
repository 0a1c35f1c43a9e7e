#pragma once

#include <functional>
#include <thread>

namespace dagadvisor::app {

/// Turns SIGTERM/SIGINT and SIGHUP into callbacks on a thread of its own (sigwait), so the rest
/// of the program never runs code in a signal handler. Construct it before starting any other
/// thread: the signals are blocked for every thread created afterwards.
class SignalWatcher {
 public:
  SignalWatcher(std::function<void()> on_stop, std::function<void()> on_reload);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

 private:
  std::thread thread_;
};

}  // namespace dagadvisor::app
