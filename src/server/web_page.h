#pragma once

#include <string_view>

#include "server/http_server.h"

namespace dagadvisor::server {

/// The single self-contained HTML page (inline CSS and JS, no outside network) served at `/`:
/// it reads the JSON API and shows the ranked recommendations with evidence and patches, the
/// runs with critical path, wait share, DAG and Gantt pictures, and the nodes' fragmentation.
std::string_view webPageHtml();

/// Registers GET / (the page above).
void registerWebPage(HttpServer& server);

}  // namespace dagadvisor::server
