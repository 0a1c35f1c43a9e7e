#pragma once

#include <optional>
#include <vector>

#include "common/result.h"
#include "config/config.h"

namespace dagadvisor::app {

/// What loading alone cannot know, checked the same way by `check-config`, by `serve` at start
/// and by every reload: every file a setting names exists and is readable, every secret file
/// (bearer_token_file, basic_auth.password_file) holds a secret, and the web config parses. One
/// Error per problem, each naming its field. Reading the secrets registers them, with the
/// credential headers' values and the basic-auth encodings, so that no output repeats them.
std::vector<Error> checkConfigFiles(const config::Config& config);

/// checkConfigFiles() as one Error: "invalid configuration:" then one problem a line, each
/// naming its field; nullopt when there is none.
std::optional<Error> configFilesProblem(const config::Config& config);

}  // namespace dagadvisor::app
