#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace dagadvisor::testing {

/// Absolute path of a file under tests/fixtures/.
std::string fixturePath(std::string_view relative);

/// The whole content of a file; fails the current test when it cannot be read.
std::string readFile(const std::string& path);

/// A recorded Prometheus response under tests/fixtures/prometheus/.
std::string prometheusFixture(std::string_view name);

/// A workflow object (Argo, Tekton, Kubernetes list) under tests/fixtures/workflows/, parsed.
nlohmann::json workflowFixture(std::string_view name);

/// Whether any of `lines` contains `text` (problems, warnings, log lines).
bool anyContains(const std::vector<std::string>& lines, std::string_view text);

}  // namespace dagadvisor::testing
