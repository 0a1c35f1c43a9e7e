// A snapshot's manifest.json (a file a user hands to `--snapshot`): never throws; an accepted
// manifest names only safe query files, and renders (renderManifest) to text that parses back
// and renders the same.

#include "fuzz_check.h"
#include "sources/snapshot/snapshot_format.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const auto manifest = sources::parseManifest(fuzz::asText(data, size));
  if (!manifest) {
    return 0;
  }
  for (const sources::ManifestQuery& query : manifest->queries) {
    fuzz::check(sources::isSafeQueryName(query.name), "query names are safe file names");
  }
  const std::string rendered = sources::renderManifest(*manifest);
  const auto again = sources::parseManifest(rendered);
  fuzz::check(again.ok(), "a rendered manifest parses back");
  fuzz::check(sources::renderManifest(*again) == rendered, "and renders the same");
  return 0;
}
