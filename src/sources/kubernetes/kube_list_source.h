#pragma once

#include <cstddef>
#include <memory>
#include <string>
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
};

using KubeListSourcePtr = std::unique_ptr<KubeListSource>;

}  // namespace dagadvisor::sources
