#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "sources/http_client.h"

namespace dagadvisor::sources {

/// Where the Kubernetes API is and how to authenticate to it, ready for an HttpClient.
struct KubeAccess {
  std::string server;  // https://host:port, no trailing '/'
  HttpClientOptions http;
  std::string describe() const { return "kubernetes " + redactUrl(server); }
};

/// Reads a kubeconfig file: the current context (or `context` when given), its cluster's server
/// and CA (file or inline data), and its user's bearer token (inline or tokenFile) or client
/// certificate and key (files or inline data). Exec and auth-provider plugins are refused with a
/// message that says so: dagadvisor runs no programs to get credentials.
Result<KubeAccess> kubeAccessFromKubeconfig(const std::string& path,
                                            const std::string& context = {});

/// The same for a kubeconfig already in memory, whose relative paths are relative to `dir`.
/// Never throws on any input.
Result<KubeAccess> kubeAccessFromKubeconfigText(std::string_view yaml, const std::string& dir,
                                                const std::string& context = {});

/// The in-cluster service account: KUBERNETES_SERVICE_HOST/PORT and the token and CA mounted under
/// `account_dir` (the token is re-read when it rotates).
Result<KubeAccess> kubeAccessInCluster(
    const std::string& account_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

}  // namespace dagadvisor::sources
