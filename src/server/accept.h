#pragma once

#include <string_view>

namespace dagadvisor::server {

/// The quality (RFC 9110 §12.4.2) an Accept or Accept-Encoding header gives `token` ("gzip",
/// "application/yaml"): its q parameter, 1 when it has none, 0 when the header does not name
/// it or refuses it ("application/yaml;q=0"). Names and parameters are compared without case;
/// wildcards are not expanded (a caller that honours "*/*" asks for it by name).
double acceptQuality(std::string_view header, std::string_view token);

}  // namespace dagadvisor::server
