// The YAML configuration loader: any text gives a Config or field-named errors, never an
// exception; a Config it accepts renders (renderConfigYaml) to YAML that loads back to a Config
// rendering the same. The defaults are Config{} without the detectors' sections (which live in
// advice/, far up the stages), so `detectors:` keys are unknown here.

#include <variant>

#include "config/config_loader.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  auto loaded = config::loadConfigText(fuzz::asText(data, size), config::Config{});
  if (auto* errors = std::get_if<config::ConfigErrors>(&loaded)) {
    fuzz::check(!errors->errors.empty(), "a refused configuration says why");
    return 0;
  }
  const std::string rendered = config::renderConfigYaml(std::get<config::Config>(loaded));
  auto reloaded = config::loadConfigText(rendered, config::Config{}, "<rendered>");
  fuzz::check(std::holds_alternative<config::Config>(reloaded), "a rendered config loads back");
  fuzz::check(config::renderConfigYaml(std::get<config::Config>(reloaded)) == rendered,
              "a rendered config loads back to the same config");
  return 0;
}
