#pragma once

namespace dagadvisor::app {

/// Exit codes every command follows.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // a source or the analysis failed
inline constexpr int kExitUsage = 2;    // bad command line or configuration

/// The whole program: parse the command line, load the config, run the command.
int run(int argc, char** argv);

}  // namespace dagadvisor::app
