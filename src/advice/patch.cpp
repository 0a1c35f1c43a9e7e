#include "advice/patch.h"

namespace dagadvisor::advice {

std::string_view patchTypeName(PatchType type) {
  switch (type) {
    case PatchType::kJson:
      return "json";
    case PatchType::kStrategicMerge:
      return "strategic-merge";
    case PatchType::kCreate:
      return "create";
  }
  return "json";
}

}  // namespace dagadvisor::advice
