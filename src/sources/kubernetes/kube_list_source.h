#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace dagadvisor::sources {

/// One LIST of a resource, as the API server sent it: the raw pages (each a JSON list object), so
/// that a snapshot can record them verbatim and consumers parse them in place.
struct KubeList {
  std::vector<std::string> pages;
  std::size_t items = 0;  // counted by the live client; a snapshot replay leaves it 0
  /// 200, or the status of a LIST that found nothing to read: 404 (the resource is not served:
  /// the engine's CRD is not installed) or 403 (RBAC forbids it). Those have no pages.
  int status = 200;

  bool absent() const { return status != 200; }
};

/// Where Kubernetes LISTs come from: the API server, a recording of it, or a snapshot replay.
class KubeListSource {
 public:
  virtual ~KubeListSource() = default;

  /// LISTs `path` (e.g. "/apis/argoproj.io/v1alpha1/namespaces/ci/workflows") with an optional
  /// label selector, every page. 404 and 403 are a KubeList with that status; transport errors,
  /// other statuses and bodies that are not lists are Errors naming the resource.
  virtual Result<KubeList> list(const std::string& path, const std::string& label_selector) = 0;

  /// A short description for logs and reports; never contains credentials.
  virtual std::string describe() const = 0;

  /// Why a LIST of `path` answered 404, in words for a warning: the API server does not serve the
  /// resource (its CRD is not installed); a source that is not the API server says what it lacks.
  virtual std::string whyNotServed(const std::string& path) const {
    return "not installed (404 on " + path + ")";
  }
};

using KubeListSourcePtr = std::unique_ptr<KubeListSource>;

/// The LIST path of `resource` in `group_version`, in `namespace_` or cluster-wide (""): the
/// core group "v1" is served under /api, every other group under /apis.
inline std::string kubeListPath(std::string_view group_version, std::string_view namespace_,
                                std::string_view resource) {
  std::string path = (group_version == "v1" ? "/api/" : "/apis/") + std::string(group_version);
  if (!namespace_.empty()) {
    path.append("/namespaces/").append(namespace_);
  }
  return path.append("/").append(resource);
}

/// The one field selector the daemon sends (the pending pods' LIST), as it is sent.
inline constexpr std::string_view kPendingPodsQuery = "fieldSelector=status.phase%3DPending";

}  // namespace dagadvisor::sources
