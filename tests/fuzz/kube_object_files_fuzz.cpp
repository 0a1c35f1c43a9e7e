// What `kubectl get … -o json` printed (a file a user hands to `--objects`): never throws; an
// accepted file answers every LIST the daemon asks either "not served" (404, no page) or with one
// page that parses as a JSON list holding as many items as it says.

#include <nlohmann/json.hpp>
#include <string>

#include "fuzz_check.h"
#include "sources/kubernetes/kube_object_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  auto files = sources::KubeObjectFiles::fromText("objects.json", fuzz::asText(data, size));
  if (!files) {
    return 0;
  }
  for (const char* path :
       {"/apis/argoproj.io/v1alpha1/workflows", "/apis/tekton.dev/v1/namespaces/ci/pipelineruns",
        "/apis/tekton.dev/v1beta1/taskruns", "/apis/scheduling.k8s.io/v1/priorityclasses",
        "/api/v1/pods?fieldSelector=status.phase%3DPending", "/api/v1/namespaces/a/pods"}) {
    for (const char* selector : {"", "tekton.dev/pipelineRun=x"}) {
      const auto list = (*files)->list(path, selector);
      fuzz::check(list.ok(), "the daemon's LISTs are all answerable");
      if (list->status != 200) {
        fuzz::check(list->status == 404 && list->pages.empty(), "an absent kind is a 404");
        continue;
      }
      fuzz::check(list->pages.size() == 1, "one page");
      const auto page = nlohmann::json::parse(list->pages[0], nullptr, false);
      fuzz::check(
          page.is_object() && page["items"].is_array() && page["items"].size() == list->items,
          "the page is a list of as many items as counted");
    }
  }
  return 0;
}
