#pragma once

#include <cstddef>
#include <string>

#include "common/result.h"
#include "sources/http_client.h"
#include "sources/kubernetes/kube_access.h"
#include "sources/kubernetes/kube_list_source.h"

namespace dagadvisor::sources {

/// A read-only Kubernetes API client: GET and LIST only, nothing else exists here. LISTs are
/// paginated with `limit`/`continue`, so a 150,000-pod cluster never arrives as one huge body.
class KubernetesSource final : public KubeListSource {
 public:
  /// `page_size` is the `limit` of each page (0: no limit, one response); a LIST stops with an
  /// Error after `max_pages` pages.
  KubernetesSource(KubeAccess access, std::size_t page_size = 500, std::size_t max_pages = 10000);

  /// LISTs `path` (e.g. "/api/v1/pods", "/apis/argoproj.io/v1alpha1/workflows") with an optional
  /// label selector, following `metadata.continue` until the end. A 404 (e.g. Argo not
  /// installed) or 403 is a KubeList with that status; other failures are Errors naming the
  /// resource.
  Result<KubeList> list(const std::string& path, const std::string& label_selector = {}) override;

  std::string describe() const override { return access_.describe(); }

 private:
  KubeAccess access_;
  std::size_t page_size_;
  std::size_t max_pages_;
  HttpClient client_;
};

}  // namespace dagadvisor::sources
