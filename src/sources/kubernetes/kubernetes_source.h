#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/result.h"
#include "sources/http_client.h"
#include "sources/kubernetes/kube_access.h"

namespace dagadvisor::sources {

/// One LIST of a resource, as the API server sent it: the raw pages (each a JSON list object), so
/// that a snapshot can record them verbatim and consumers parse them in place.
struct KubeList {
  std::vector<std::string> pages;
  std::size_t items = 0;
};

/// A read-only Kubernetes API client: GET and LIST only, nothing else exists here. LISTs are
/// paginated with `limit`/`continue`, so a 150,000-pod cluster never arrives as one huge body.
class KubernetesSource {
 public:
  KubernetesSource(KubeAccess access, std::size_t page_size = 500);

  /// LISTs `path` (e.g. "/api/v1/pods", "/apis/argoproj.io/v1alpha1/workflows") with an optional
  /// label selector, following `metadata.continue` until the end (at most max_pages pages).
  /// A 404 (e.g. Argo not installed) is an Error naming the resource.
  Result<KubeList> list(const std::string& path, const std::string& label_selector = {},
                        std::size_t max_pages = 10000);

  std::string describe() const { return access_.describe(); }

 private:
  KubeAccess access_;
  std::size_t page_size_;
  HttpClient client_;
};

}  // namespace dagadvisor::sources
