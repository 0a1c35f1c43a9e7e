#include "common/cancellation.h"

#include <catch2/catch.hpp>
#include <thread>

namespace dagadvisor {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

TEST_CASE("a cancellation keeps its first reason and stops its children, not its parent") {
  auto parent = std::make_shared<Cancellation>();
  auto child = std::make_shared<Cancellation>(parent);
  CHECK_FALSE(child->stopped());
  CHECK(child->reason().empty());
  CHECK_FALSE(child->stoppedBecause());
  child->cancel("a reload was requested");
  child->cancel("later reason");
  CHECK(child->stopped());
  CHECK(child->reason() == "a reload was requested");
  CHECK(child->stoppedBecause() == "stopped: a reload was requested");
  CHECK_FALSE(parent->stopped());
  CHECK_FALSE(parent->stoppedBecause());

  auto sibling = std::make_shared<Cancellation>(parent);
  parent->cancel("the daemon is stopping");
  CHECK(sibling->stopped());
  CHECK(sibling->reason() == "the daemon is stopping");
}

TEST_CASE("the earliest deadline of a chain applies, and passing it stops") {
  const auto now = SteadyClock::now();
  auto parent = std::make_shared<Cancellation>(nullptr, now + 50ms);
  Cancellation child(parent, now + 10s);
  REQUIRE(child.deadline());
  CHECK(*child.deadline() == now + 50ms);
  CHECK(child.remaining() <= 50ms);
  CHECK_FALSE(Cancellation().deadline());
  CHECK_FALSE(Cancellation().remaining());
  std::this_thread::sleep_for(80ms);
  CHECK(child.stopped());
  CHECK(child.reason() == "cycle deadline passed");
  CHECK(child.remaining() == 0ms);
}

TEST_CASE("sleepFor ends early when cancelled from another thread") {
  auto cancel = std::make_shared<Cancellation>();
  std::thread stopper([cancel] {
    std::this_thread::sleep_for(50ms);
    cancel->cancel("stop");
  });
  const auto start = SteadyClock::now();
  CHECK_FALSE(cancel->sleepFor(30s));
  stopper.join();
  CHECK(SteadyClock::now() - start < 5s);
  CHECK(Cancellation().sleepFor(1ms));  // not cancelled: sleeps the whole time
}

}  // namespace
}  // namespace dagadvisor
