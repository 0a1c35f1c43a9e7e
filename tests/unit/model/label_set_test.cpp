#include <catch2/catch.hpp>
#include <string>

#include "model/cluster.h"

namespace dagadvisor::model {
namespace {

TEST_CASE("a copy of a label set shares its items until one of the two is set", "[model]") {
  LabelSet original;
  original.set("dag-id", "train");
  original.set("run_id", "r1");
  const LabelSet copy = original;
  CHECK(&copy.items() == &original.items());  // shared, not copied

  LabelSet changed = original;
  changed.set("run_id", "r2");
  changed.set("task", "fit");
  CHECK(&changed.items() != &original.items());
  CHECK(original.get("run_id") == "r1");
  CHECK_FALSE(original.has("task"));
  CHECK(copy.get("run_id") == "r1");
  CHECK(changed.get("run_id") == "r2");
  CHECK(changed.get("dag_id") == "train");
  CHECK(changed.items().size() == 3);

  original.set("dag_id", "score");  // still shared with `copy`: copied first
  CHECK(copy.get("dag-id") == "train");
  CHECK(original.get("dag-id") == "score");
}

TEST_CASE("an empty label set has no items, and its copies stay independent", "[model]") {
  LabelSet empty;
  CHECK(empty.empty());
  CHECK(empty.items().empty());
  CHECK_FALSE(empty.get("anything"));
  LabelSet copy = empty;
  copy.set("a", "1");
  CHECK(empty.empty());
  CHECK_FALSE(copy.empty());
}

TEST_CASE("get finds a key in either spelling, short or long", "[model]") {
  LabelSet labels;
  labels.set("tekton.dev/pipelineTask", "build");
  const std::string long_key = "example.com/" + std::string(100, 'x') + "camelCase";
  labels.set(long_key, "long");  // more than the 128 characters normalised on the stack
  CHECK(labels.get("tekton.dev/pipelineTask") == std::optional<std::string_view>("build"));
  CHECK(labels.get("tekton_dev_pipeline_task") == std::optional<std::string_view>("build"));
  CHECK(labels.get(long_key) == std::optional<std::string_view>("long"));
  CHECK(labels.get(LabelSet::normalizeKey(long_key)) == std::optional<std::string_view>("long"));
  CHECK_FALSE(labels.get("tekton.dev/pipeline").has_value());
  CHECK(labels.items().size() == 2);
}

}  // namespace
}  // namespace dagadvisor::model
