#include "advice/patch.h"

#include <map>
#include <tuple>

namespace dagadvisor::advice {
namespace {

bool joinable(const Patch& p) {
  return p.type == PatchType::kJson && p.needs_value.empty() && p.pods &&
         p.pods->match_labels.empty();
}

// What two joinable patches must share to be one.
std::string alikeKey(const Patch& p) {
  return nlohmann::ordered_json{p.step,
                                p.object.api_version,
                                p.object.kind,
                                p.object.namespace_,
                                variantsJson(p.variants),
                                variantsJson(p.pod_variants),
                                p.engine_note}
      .dump();
}

void join(Patch& into, Patch&& other) {
  into.object.names.insert(into.object.names.end(), other.object.names.begin(),
                           other.object.names.end());
  into.pods->names.insert(into.pods->names.end(), other.pods->names.begin(),
                          other.pods->names.end());
  if (into.command.find(other.command) == std::string::npos) {
    into.command += "\n" + other.command;  // the same command (a local manifest) once
  }
}

// "train, train-b and 2 more": the names a purpose shows; the object lists every one.
std::string someNames(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 10;
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < kShown; ++i) {
    text += (i == 0 ? "" : ", ") + names[i];
  }
  if (names.size() > kShown) {
    text += " and " + std::to_string(names.size() - kShown) + " more";
  }
  return text;
}

}  // namespace

nlohmann::ordered_json opsJson(const JsonPatchOps& ops) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const JsonPatchOp& op : ops) {
    list.push_back({{"op", op.op}, {"path", op.path}, {"value", op.value}});
  }
  return list;
}

nlohmann::ordered_json variantsJson(const JsonPatchVariants& variants) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const JsonPatchOps& ops : variants) {
    out.push_back(opsJson(ops));
  }
  return out;
}

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

std::vector<Patch> mergeAlike(std::vector<Patch> patches, const std::string& what) {
  std::vector<Patch> out;
  std::map<std::string, std::size_t> index;  // alike key → position in out
  for (Patch& p : patches) {
    if (!joinable(p)) {
      out.push_back(std::move(p));
      continue;
    }
    auto [it, added] = index.try_emplace(alikeKey(p), out.size());
    if (added) {
      out.push_back(std::move(p));
    } else {
      join(out[it->second], std::move(p));
    }
  }
  for (const auto& [key, at] : index) {
    Patch& p = out[at];
    if (p.object.names.size() > 1) {
      p.purpose = what + " in the " + std::to_string(p.object.names.size()) + " " + p.object.kind +
                  "s of namespace " + p.object.namespace_ + " (" + someNames(p.object.names) + ")";
    }
  }
  return out;
}

}  // namespace dagadvisor::advice
