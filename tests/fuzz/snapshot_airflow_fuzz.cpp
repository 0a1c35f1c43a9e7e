// A snapshot's airflow.json: never throws; an accepted recording renders
// (renderAirflowRecording) to text that parses back and renders the same.

#include "fuzz_check.h"
#include "sources/snapshot/airflow_snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const auto recording = sources::parseAirflowRecording(fuzz::asText(data, size));
  if (!recording) {
    return 0;
  }
  const std::string rendered = sources::renderAirflowRecording(*recording);
  const auto again = sources::parseAirflowRecording(rendered);
  fuzz::check(again.ok(), "a rendered recording parses back");
  fuzz::check(sources::renderAirflowRecording(*again) == rendered, "and renders the same");
  return 0;
}
