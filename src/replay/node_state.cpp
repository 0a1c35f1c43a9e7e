#include "replay/node_state.h"

#include <algorithm>

namespace dagadvisor::replay {

model::ResourceVector nonZeroRequests(const model::ResourceVector& requests) {
  constexpr std::int64_t kDefaultMilliCpu = 100;
  constexpr std::int64_t kDefaultMemory = 200LL * 1024 * 1024;
  model::ResourceVector out = requests;
  out.cpu_millis = out.cpu_millis > 0 ? out.cpu_millis : kDefaultMilliCpu;
  out.memory_bytes = out.memory_bytes > 0 ? out.memory_bytes : kDefaultMemory;
  return out;
}

void NodeState::add(ReplayPodId id, const model::ResourceVector& requests) {
  requested += requests;
  non_zero_requested += nonZeroRequests(requests);
  pods.push_back(id);
}

void NodeState::remove(ReplayPodId id, const model::ResourceVector& requests) {
  const auto it = std::find(pods.begin(), pods.end(), id);
  if (it == pods.end()) {
    return;
  }
  pods.erase(it);
  requested -= requests;
  non_zero_requested -= nonZeroRequests(requests);
}

}  // namespace dagadvisor::replay
