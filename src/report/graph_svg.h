#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace dagadvisor::report {

/// Lays out a DOT graph with Graphviz' "dot" engine and renders it as SVG (libgvc). Graphviz is
/// not thread-safe: calls are serialised by one process-wide mutex, so callers should render
/// once and cache. Bad DOT text comes back as an error, never a crash.
Result<std::string> renderGraphSvg(std::string_view dot);

}  // namespace dagadvisor::report
