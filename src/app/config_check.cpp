#include "app/config_check.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <variant>

#include "common/secrets.h"
#include "config/config_fields.h"
#include "server/web_config.h"
#include "sources/secret_file.h"

namespace dagadvisor::app {
namespace {

// A file a setting names must be a readable regular file; "" when it is.
std::string fileProblem(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status)) {
    return "cannot read " + path + ": no such file";
  }
  if (!std::filesystem::is_regular_file(status)) {
    return "cannot read " + path + ": not a regular file";
  }
  return std::ifstream(path).good() ? "" : "cannot read " + path + ": permission denied";
}

void checkReadable(config::Config& config, std::vector<Error>& problems) {
  for (const config::Field& field : config::configFields(config)) {
    const auto* path = std::get_if<std::string*>(&field.ref);
    if (!field.path.ends_with("_file") || path == nullptr || (*path)->empty()) {
      continue;
    }
    if (std::string problem = fileProblem(**path); !problem.empty()) {
      problems.push_back(makeError(std::move(problem), std::string(field.path)));
    }
  }
}

// A readable but empty secret file fails every request; only reading it tells. A file that
// cannot be read at all was reported by checkReadable under the same field.
Result<std::string> readSecret(const std::string& path, const std::string& field) {
  if (path.empty() || !fileProblem(path).empty()) {
    return std::string();
  }
  return sources::SecretFile(path, field).value();
}

void checkSecrets(const std::string& prefix, const config::HttpAuth& auth,
                  std::vector<Error>& problems) {
  if (auto token = readSecret(auth.bearer_token_file, prefix + ".bearer_token_file"); !token) {
    problems.push_back(token.error());
  }
  auto password = readSecret(auth.basic_auth.password_file, prefix + ".basic_auth.password_file");
  if (!password) {
    problems.push_back(password.error());
  } else if (!auth.basic_auth.username.empty()) {
    registerBasicCredentials(auth.basic_auth.username, *password);
  }
}

void checkWebConfig(const config::Config& config, std::vector<Error>& problems) {
  const std::string& web = config.server.web_config_file;
  if (!web.empty() && fileProblem(web).empty()) {
    if (auto loaded = server::loadWebConfig(web); !loaded.ok()) {
      problems.push_back(makeError(loaded.error().message, "server.web_config_file"));
    }
  }
}

}  // namespace

std::vector<Error> checkConfigFiles(const config::Config& config) {
  std::vector<Error> problems;
  config::Config fields = config;  // configFields() hands out mutable references
  checkReadable(fields, problems);
  checkSecrets("sources.prometheus", config.sources.prometheus, problems);
  checkSecrets("sources.airflow", config.sources.airflow, problems);
  checkSecrets("sources.scrape", config.sources.scrape, problems);
  registerCredentialHeaders(config.sources.prometheus.headers);
  checkWebConfig(config, problems);
  return problems;
}

std::optional<Error> configFilesProblem(const config::Config& config) {
  const std::vector<Error> problems = checkConfigFiles(config);
  if (problems.empty()) {
    return std::nullopt;
  }
  std::string message = "invalid configuration:";
  for (const Error& problem : problems) {
    message += "\n  " + problem.describe();
  }
  return makeError(std::move(message));
}

}  // namespace dagadvisor::app
