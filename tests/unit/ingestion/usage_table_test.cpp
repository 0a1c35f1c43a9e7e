#include "ingestion/usage_table.h"

#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ingestion/cluster_builder.h"

namespace dagadvisor::ingestion {
namespace {

TEST_CASE("a usage table finds each pod's usage by namespace and name", "[ingestion]") {
  UsageTable table;
  table.add("ml", "train-0").cpu_cores = 2;
  table.add("ml", "train-1").memory_bytes = 5;
  table.add("ml", "train-0").samples = 12;  // the same record again
  CHECK(table.size() == 2);
  REQUIRE(table.find("ml", "train-0"));
  CHECK(table.find("ml", "train-0")->cpu_cores == 2);
  CHECK(table.find("ml", "train-0")->samples == 12);
  CHECK(table.find("ml", "train-1")->memory_bytes == 5);
  CHECK_FALSE(table.find("etl", "train-0"));
  CHECK_FALSE(table.find("ml", "train-2"));
}

model::Pod keptPod(std::string name, std::optional<double> cpu_cores) {
  model::Pod pod;
  pod.namespace_ = "ml";
  pod.name = std::move(name);
  pod.uid = pod.name + "-uid";
  if (cpu_cores) {
    pod.usage.emplace().cpu_cores = *cpu_cores;
  }
  return pod;
}

TEST_CASE("a read that keeps an earlier usage shares it, and its pods keep what it gave them",
          "[ingestion]") {
  // The earlier read gave train-0 the usage the table has for it.
  auto earlier = std::make_shared<UsageTable>();
  earlier->add("ml", "train-0").cpu_cores = 1.5;
  ClusterBuilder builder(2000);
  builder.keepPod(keptPod("train-0", 1.5));
  builder.keepPod(keptPod("train-1", std::nullopt));
  builder.keepUsage(earlier);
  CHECK(builder.usage().get() == earlier.get());  // the same table, not a copy
  const model::ClusterSnapshot snapshot = std::move(builder).build();
  REQUIRE(snapshot.pods().size() == 2);
  REQUIRE(snapshot.pod(0).usage);
  CHECK(snapshot.pod(0).usage->cpu_cores == 1.5);
  CHECK_FALSE(snapshot.pod(1).usage);
}

TEST_CASE("a read that answers usage gives it to the pods it keeps, and takes the old one away",
          "[ingestion]") {
  ClusterBuilder builder(2000);
  const sources::LabelView labels[] = {{"namespace", "ml"}, {"pod", "train-1"}};
  sources::SampleView sample;
  sample.labels = labels;
  sample.label_count = 2;
  sample.value = 0.5;
  builder.add(QueryId::kPodUsageCpu, sample);
  builder.keepPod(keptPod("train-0", 1.5));  // no longer in the answer
  builder.keepPod(keptPod("train-1", 1.5));
  const model::ClusterSnapshot snapshot = std::move(builder).build();
  REQUIRE(snapshot.pods().size() == 2);
  CHECK_FALSE(snapshot.pod(0).usage);
  REQUIRE(snapshot.pod(1).usage);
  CHECK(snapshot.pod(1).usage->cpu_cores == 0.5);
}

}  // namespace
}  // namespace dagadvisor::ingestion
