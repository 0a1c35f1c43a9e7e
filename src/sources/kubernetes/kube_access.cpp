#include "sources/kubernetes/kube_access.h"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <functional>

#include "common/base64.h"

namespace dagadvisor::sources {
namespace {

// Relative paths in a kubeconfig are relative to the file, as kubectl reads them.
std::string resolve(const std::string& base_dir, const std::string& path) {
  if (path.empty() || path.front() == '/') {
    return path;
  }
  return (std::filesystem::path(base_dir) / path).string();
}

YAML::Node named(const YAML::Node& list, const std::string& name) {
  if (list.IsSequence()) {
    for (const YAML::Node& entry : list) {
      if (entry["name"] && entry["name"].as<std::string>() == name) {
        return entry;
      }
    }
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string text(const YAML::Node& node, const char* key) {
  return node && node[key] && node[key].IsScalar() ? node[key].as<std::string>() : std::string();
}

// Either a file path or inline base64 data for one PEM; fills the file or the memory option.
Result<void> pem(const YAML::Node& node, const char* file_key, const char* data_key,
                 const std::string& dir, std::string& file, std::string& memory) {
  if (auto data = text(node, data_key); !data.empty()) {
    std::erase_if(data, [](char c) { return c == '\n' || c == '\r' || c == ' '; });
    auto decoded = decodeBase64(data);
    if (!decoded) {
      return makeError("not valid base64", data_key);
    }
    memory = std::move(*decoded);
  } else {
    file = resolve(dir, text(node, file_key));
  }
  return {};
}

Result<KubeAccess> fromConfig(const YAML::Node& root, const std::string& dir,
                              const std::string& wanted_context) {
  const std::string context_name =
      wanted_context.empty() ? text(root, "current-context") : wanted_context;
  const YAML::Node context = named(root["contexts"], context_name)["context"];
  if (!context) {
    return makeError("no context \"" + context_name + "\"", "current-context");
  }
  const YAML::Node cluster = named(root["clusters"], text(context, "cluster"))["cluster"];
  if (!cluster || text(cluster, "server").empty()) {
    return makeError("context \"" + context_name + "\" names no cluster with a server", "clusters");
  }
  const YAML::Node user = named(root["users"], text(context, "user"))["user"];
  if (user && (user["exec"] || user["auth-provider"])) {
    return makeError(
        "exec and auth-provider credentials are not supported: use a token, a "
        "client certificate or the in-cluster service account",
        "users");
  }
  KubeAccess access;
  access.server = text(cluster, "server");
  while (!access.server.empty() && access.server.back() == '/') {
    access.server.pop_back();
  }
  HttpClientOptions& http = access.http;
  http.tls_verify = text(cluster, "insecure-skip-tls-verify") != "true";
  for (auto result : {pem(cluster, "certificate-authority", "certificate-authority-data", dir,
                          http.ca_file, http.ca_pem),
                      pem(user, "client-certificate", "client-certificate-data", dir,
                          http.client_cert_file, http.client_cert_pem),
                      pem(user, "client-key", "client-key-data", dir, http.client_key_file,
                          http.client_key_pem)}) {
    if (!result) {
      return result.error();
    }
  }
  if (auto token = text(user, "token"); !token.empty()) {
    http.headers["Authorization"] = "Bearer " + token;
  }
  http.bearer_token_file = resolve(dir, text(user, "tokenFile"));
  return access;
}

// `load` reads the YAML (and throws what yaml-cpp throws); `name` names the kubeconfig in errors.
Result<KubeAccess> fromLoaded(const std::function<YAML::Node()>& load, const std::string& name,
                              const std::string& dir, const std::string& context) {
  try {
    auto access = fromConfig(load(), dir, context);
    if (!access) {
      return makeError("kubeconfig " + name + ": " + access.error().describe());
    }
    return access;
  } catch (const YAML::Exception& e) {
    return makeError("kubeconfig " + name + ": " + e.what());
  }
}

}  // namespace

Result<KubeAccess> kubeAccessFromKubeconfig(const std::string& path, const std::string& context) {
  return fromLoaded([&] { return YAML::LoadFile(path); }, path,
                    std::filesystem::path(path).parent_path().string(), context);
}

Result<KubeAccess> kubeAccessFromKubeconfigText(std::string_view yaml, const std::string& dir,
                                                const std::string& context) {
  return fromLoaded([&] { return YAML::Load(std::string(yaml)); }, "<text>", dir, context);
}

Result<KubeAccess> kubeAccessInCluster(const std::string& account_dir) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr) {
    return makeError("not running in a pod: KUBERNETES_SERVICE_HOST/PORT are not set");
  }
  KubeAccess access;
  const std::string address(host);
  // An IPv6 service address needs brackets in a URL.
  access.server = "https://" +
                  (address.find(':') != std::string::npos ? "[" + address + "]" : address) + ":" +
                  port;
  access.http.bearer_token_file = account_dir + "/token";
  access.http.ca_file = account_dir + "/ca.crt";
  return access;
}

}  // namespace dagadvisor::sources
