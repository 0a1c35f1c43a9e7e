#include "ingestion/usage_table.h"

#include <catch2/catch.hpp>
#include <memory>
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

TEST_CASE("a read that keeps an earlier usage shares it and gives it to its pods", "[ingestion]") {
  auto earlier = std::make_shared<UsageTable>();
  earlier->add("ml", "train-0").cpu_cores = 1.5;
  ClusterBuilder builder(2000);
  model::Pod pod;
  pod.namespace_ = "ml";
  pod.name = "train-0";
  pod.uid = "u1";
  builder.keepPod(std::move(pod));
  builder.keepUsage(earlier);
  CHECK(builder.usage().get() == earlier.get());  // the same table, not a copy
  const model::ClusterSnapshot snapshot = std::move(builder).build();
  REQUIRE(snapshot.pods().size() == 1);
  REQUIRE(snapshot.pod(0).usage);
  CHECK(snapshot.pod(0).usage->cpu_cores == 1.5);
}

}  // namespace
}  // namespace dagadvisor::ingestion
