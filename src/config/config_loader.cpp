// The only file that knows the configuration's YAML format; yaml-cpp's exceptions stop here.
#include "config/config_loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/duration.h"
#include "config/config_fields.h"

namespace dagadvisor::config {
namespace {

std::string describeNode(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return inQuotes(node.Scalar());
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "nothing";
  }
}

std::string didYouMean(std::string_view suggestion) {
  return suggestion.empty() ? "" : "; did you mean '" + std::string(suggestion) + "'?";
}

// Walks the YAML tree against the field tree, writing what it can and recording every
// problem instead of stopping at the first.
class Loader {
 public:
  Loader(Config& config, std::vector<Error>& errors)
      : fields_(configFields(config)), root_(fieldTree(fields_)), errors_(errors) {}

  void load(const YAML::Node& node) { loadSection(node, root_); }

 private:
  void loadSection(const YAML::Node& node, const FieldNode& section) {
    const std::string path(section.path);
    if (node.IsNull()) {
      return;  // a section with every setting commented out
    }
    if (!node.IsMap()) {
      return fail(path, "expected a map, got " + describeNode(node));
    }
    std::set<std::string> seen;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        fail(path, "keys must be strings, got " + describeNode(entry.first));
        continue;
      }
      const std::string& key = entry.first.Scalar();
      const FieldNode* child = section.child(key);
      if (!seen.insert(key).second) {
        fail(path.empty() ? key : path + "." + key, "duplicate key");
      } else if (child == nullptr) {
        const std::string full = path.empty() ? key : path + "." + key;
        fail(full, unknownKeyMessage(full, section, key));
      } else if (child->field != nullptr) {
        loadField(*child->field, entry.second);
      } else {
        loadSection(entry.second, *child);
      }
    }
  }

  std::string unknownKeyMessage(const std::string& full, const FieldNode& section,
                                const std::string& key) const {
    for (const RetiredSetting& retired : kRetiredSettings) {
      if (retired.path == full) {
        return retired.replaced_by.empty()
                   ? "no longer a setting (it was never read): remove it"
                   : "no longer a setting: moved to " + std::string(retired.replaced_by);
      }
    }
    return "unknown key" + didYouMean(suggestKey(root_, section, key));
  }

  void fail(const std::string& path, std::string message) {
    errors_.push_back(makeError(std::move(message), path));
  }

  void loadField(const Field& field, const YAML::Node& node) {
    const std::string path(field.path);
    if (!std::visit([&](auto* target) { return read(node, path, *target); }, field.ref)) {
      fail(path, "expected " + std::string(kindName(field.ref)) + ", got " + describeNode(node));
    }
  }

  // Each read() stores the value and returns true, or returns false when the node has the wrong
  // type. A more precise problem (a bad duration, a bad list item) is reported on the spot.
  template <typename T>
  static bool readScalar(const YAML::Node& node, T& out) {
    T value{};
    if (!node.IsScalar() || !YAML::convert<T>::decode(node, value)) {
      return false;
    }
    out = value;
    return true;
  }

  bool read(const YAML::Node& node, const std::string&, std::string& out) {
    return readScalar(node, out);
  }
  bool read(const YAML::Node& node, const std::string&, int& out) { return readScalar(node, out); }
  bool read(const YAML::Node& node, const std::string&, double& out) {
    return readScalar(node, out);
  }
  bool read(const YAML::Node& node, const std::string&, bool& out) { return readScalar(node, out); }

  bool read(const YAML::Node& node, const std::string& path, Seconds& out) {
    if (!node.IsScalar()) {
      return false;
    }
    Result<Duration> parsed = parseDuration(node.Scalar());
    if (!parsed.ok()) {
      fail(path, "not a duration (" + inQuotes(node.Scalar()) +
                     "); write a number and a unit, e.g. \"30s\", \"5m\" or \"1h30m\"");
    } else {
      out = std::chrono::duration_cast<Seconds>(*parsed);
    }
    return true;
  }

  bool read(const YAML::Node& node, const std::string& path, StringList& out) {
    if (!node.IsSequence()) {
      return false;
    }
    StringList values;
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (!node[i].IsScalar()) {
        fail(path + "[" + std::to_string(i) + "]",
             "expected a string, got " + describeNode(node[i]));
        continue;
      }
      values.push_back(node[i].Scalar());
    }
    out = std::move(values);
    return true;
  }

  bool read(const YAML::Node& node, const std::string& path, StringMap& out) {
    if (node.IsNull()) {
      out.clear();
      return true;
    }
    if (!node.IsMap()) {
      return false;
    }
    StringMap values;
    for (const auto& entry : node) {
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "?";
      if (!entry.first.IsScalar() || !entry.second.IsScalar()) {
        fail(path + "." + key, "expected a string, got " + describeNode(entry.second));
      } else if (!values.emplace(key, entry.second.Scalar()).second) {
        fail(path + "." + key, "duplicate key");
      }
    }
    out = std::move(values);
    return true;
  }

  std::vector<Field> fields_;
  FieldNode root_;
  std::vector<Error>& errors_;
};

Error syntaxError(const YAML::Exception& e, std::string_view origin) {
  std::string where(origin);
  if (!e.mark.is_null()) {
    where += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
  }
  return makeError(e.msg.empty() ? std::string(e.what()) : e.msg, where);
}

void emitValue(YAML::Emitter& out, const FieldRef& ref) {
  struct Writer {
    YAML::Emitter& emitter;
    void operator()(const std::string* v) const { emitter << *v; }
    void operator()(const int* v) const { emitter << *v; }
    void operator()(const double* v) const { emitter << formatNumber(*v); }
    void operator()(const bool* v) const { emitter << *v; }
    void operator()(const Seconds* v) const {
      emitter << formatDuration(std::chrono::round<Duration>(*v));
    }
    void operator()(const StringList* v) const {
      emitter << (v->empty() ? YAML::Flow : YAML::Block) << YAML::BeginSeq;
      for (const std::string& item : *v) {
        emitter << item;
      }
      emitter << YAML::EndSeq;
    }
    void operator()(const StringMap* v) const {
      emitter << (v->empty() ? YAML::Flow : YAML::Block) << YAML::BeginMap;
      for (const auto& [key, value] : *v) {
        emitter << YAML::Key << key << YAML::Value << value;
      }
      emitter << YAML::EndMap;
    }
  };
  std::visit(Writer{out}, ref);
}

void emitSection(YAML::Emitter& out, const FieldNode& section) {
  out << YAML::BeginMap;
  for (const FieldNode& child : section.children) {
    out << YAML::Key << std::string(child.name) << YAML::Value;
    if (child.field != nullptr) {
      emitValue(out, child.field->ref);
    } else {
      emitSection(out, child);
    }
  }
  out << YAML::EndMap;
}

}  // namespace

std::string ConfigErrors::describe() const {
  std::string text;
  for (const Error& error : errors) {
    text += error.describe() + "\n";
  }
  return text;
}

std::variant<Config, ConfigErrors> loadConfigText(std::string_view yaml, Config defaults,
                                                  std::string_view origin) {
  Config config = std::move(defaults);
  ConfigErrors result;
  try {
    const YAML::Node root = YAML::Load(std::string(yaml));
    if (!root.IsNull() && !root.IsMap()) {
      result.errors.push_back(
          makeError("expected a map of settings at the top level, got " + describeNode(root),
                    std::string(origin)));
      return result;
    }
    Loader(config, result.errors).load(root);
  } catch (const YAML::Exception& e) {
    result.errors.push_back(syntaxError(e, origin));
    return result;
  }
  ConfigErrors semantic = validate(config);
  result.errors.insert(result.errors.end(), semantic.errors.begin(), semantic.errors.end());
  if (!result.errors.empty()) {
    return result;
  }
  return config;
}

std::variant<Config, ConfigErrors> loadConfigFile(const std::string& path, Config defaults) {
  auto unreadable = [&](std::string reason) {
    return ConfigErrors{{makeError("cannot read the configuration file (" + reason + ")", path)}};
  };
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    return unreadable("it is a directory");
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return unreadable(errno != 0 ? std::strerror(errno) : "cannot open it");
  }
  // An empty file leaves `text` failed; only a failure of `in` means the read went wrong.
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return unreadable(errno != 0 ? std::strerror(errno) : "read failed");
  }
  return loadConfigText(text.str(), std::move(defaults), path);
}

std::string renderConfigYaml(const Config& config) {
  Config copy = config;  // the field table hands out mutable references
  const std::vector<Field> fields = configFields(copy);
  YAML::Emitter out;
  emitSection(out, fieldTree(fields));
  return std::string(out.c_str()) + "\n";
}

std::string renderFieldValue(const FieldRef& ref) {
  YAML::Emitter out;
  out << YAML::Flow;
  emitValue(out, ref);
  return out.c_str();
}

}  // namespace dagadvisor::config
