// kubeconfig files: any YAML gives an access or an Error, never an exception (yaml-cpp throws on
// every mistyped node); an access has a server without a trailing '/'.

#include "fuzz_check.h"
#include "sources/kubernetes/kube_access.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const auto access =
      sources::kubeAccessFromKubeconfigText(fuzz::asText(data, size), "/nonexistent/kube");
  if (access) {
    fuzz::check(!access->server.empty() && access->server.back() != '/',
                "the server is set, without a trailing '/'");
  }
  return 0;
}
