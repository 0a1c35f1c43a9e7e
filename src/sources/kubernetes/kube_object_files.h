#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "sources/kubernetes/kube_list_source.h"

namespace dagadvisor::sources {

/// Kubernetes LISTs answered from what `kubectl get … -o json` printed, for users whose
/// kubeconfig the daemon cannot use (exec plugins: EKS, GKE, AKS) or who may not give it API
/// access: `kubectl get workflows,pipelineruns,taskruns,priorityclasses -A -o json > objects.json`.
/// Each file is a kubectl List (any `kind` ending in "List" with `items`) or a single object.
/// Objects are served under the LIST path of their apiVersion and kind (Workflow, PipelineRun,
/// TaskRun, PriorityClass, Pod; other kinds are ignored): a LIST of a namespace gets that
/// namespace's objects, a cluster-wide LIST all of them. A resource the files hold no object of
/// answers 404, as a resource the API server does not serve: not known, rather than none.
class KubeObjectFiles final : public KubeListSource {
 public:
  /// Reads and indexes every file. Errors (a missing or unreadable file, text that is not JSON,
  /// JSON that is neither a list nor an object) name the file in `field`.
  static Result<std::unique_ptr<KubeObjectFiles>> open(const std::vector<std::string>& paths);

  /// What open() does with one file's text, `name` standing for its path.
  static Result<std::unique_ptr<KubeObjectFiles>> fromText(const std::string& name,
                                                           std::string_view text);

  /// The objects of `path`'s resource as one page. The only field selector is the pending pods'
  /// `status.phase=Pending` (the one the daemon asks); label selectors are `key=value` terms,
  /// comma-separated. Anything else is an Error: the files cannot answer it as the server would.
  Result<KubeList> list(const std::string& path, const std::string& label_selector) override;

  std::string describe() const override;
  /// The files hold none of the kind: kubectl was not asked for it, or the cluster has none.
  std::string whyNotServed(const std::string& path) const override;

 private:
  explicit KubeObjectFiles(std::vector<std::string> paths) : paths_(std::move(paths)) {}
  Result<void> index(const std::string& name, std::string_view text);

  // One object, with what the LISTs filter on read once, not parsed again every cycle.
  struct Stored {
    std::string namespace_;
    std::string item;   // the object's JSON
    std::string phase;  // status.phase: the pending pods' field selector
    std::map<std::string, std::string> labels;
  };
  std::vector<std::string> paths_;
  // "/apis/tekton.dev/v1/pipelineruns" (no namespace) → the objects of that resource.
  std::map<std::string, std::vector<Stored>> by_resource_;
  std::size_t ignored_ = 0;  // objects of kinds the daemon does not LIST
};

}  // namespace dagadvisor::sources
