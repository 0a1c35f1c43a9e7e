#include "advice/patch_yaml.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "advice/engine_patch.h"

using namespace dagadvisor;
using advice::PodSpecPath;

namespace {

const PodSpecPath kDeployment{{"spec", "template", "spec"}};

}  // namespace

TEST_CASE("a toleration is appended, or its list created only where absent", "[advice][patch]") {
  const auto variants = advice::tolerationPatches(kDeployment, {"nvidia.com/gpu", "NoSchedule"});
  REQUIRE(variants.size() == 2);
  const YAML::Node append = YAML::Load(advice::yamlOfOps(variants[0]));
  REQUIRE(append.size() == 1);
  CHECK(append[0]["op"].as<std::string>() == "add");
  CHECK(append[0]["path"].as<std::string>() == "/spec/template/spec/tolerations/-");
  CHECK(append[0]["value"]["key"].as<std::string>() == "nvidia.com/gpu");
  CHECK(append[0]["value"]["operator"].as<std::string>() == "Exists");
  const YAML::Node create = YAML::Load(advice::yamlOfOps(variants[1]));
  REQUIRE(create.size() == 2);
  CHECK(create[0]["op"].as<std::string>() == "test");
  CHECK(create[0]["path"].as<std::string>() == "/spec/template/spec/tolerations");
  CHECK(create[0]["value"].IsNull());
  CHECK(create[1]["path"].as<std::string>() == "/spec/template/spec/tolerations");
  REQUIRE(create[1]["value"].IsSequence());
  CHECK(create[1]["value"][0]["effect"].as<std::string>() == "NoSchedule");
}

TEST_CASE("a pod affinity term keeps the other terms: one variant per level that may be missing",
          "[advice][patch]") {
  advice::PodAffinitySpec spec;
  spec.match_labels = {{"dag-run", "2026-11-30"}};
  spec.topology_key = "topology.kubernetes.io/zone";
  const auto variants = advice::podAffinityPatches(kDeployment, spec);
  REQUIRE(variants.size() == 4);
  const std::string list =
      "/spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution";
  CHECK(YAML::Load(advice::yamlOfOps(variants[0]))[0]["path"].as<std::string>() == list + "/-");
  CHECK(YAML::Load(advice::yamlOfOps(variants[1]))[0]["path"].as<std::string>() == list);
  CHECK(YAML::Load(advice::yamlOfOps(variants[2]))[0]["path"].as<std::string>() ==
        "/spec/template/spec/affinity/podAffinity");
  const YAML::Node deepest = YAML::Load(advice::yamlOfOps(variants[3]));
  CHECK(deepest[0]["path"].as<std::string>() == "/spec/template/spec/affinity");
  const YAML::Node term =
      deepest[1]["value"]["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0];
  CHECK(term["weight"].as<int>() == 100);
  // A date-like run id stays a string.
  CHECK(term["podAffinityTerm"]["labelSelector"]["matchLabels"]["dag-run"].Tag() == "!");
}

TEST_CASE("a nodeSelector key is set without replacing the others", "[advice][patch]") {
  const auto variants = advice::nodeSelectorPatches(kDeployment, "node-type", "gpu");
  REQUIRE(variants.size() == 2);
  CHECK(YAML::Load(advice::yamlOfOps(variants[0]))[0]["path"].as<std::string>() ==
        "/spec/template/spec/nodeSelector/node-type");
  CHECK(YAML::Load(advice::yamlOfOps(variants[1]))[1]["value"]["node-type"].as<std::string>() ==
        "gpu");
}

TEST_CASE("JSON pointers escape / and ~ in label keys", "[advice][patch]") {
  CHECK(advice::jsonPointer({"spec", "nodeSelector", "kubernetes.io/os"}) ==
        "/spec/nodeSelector/kubernetes.io~1os");
  CHECK(advice::jsonPointer({"a~b"}) == "/a~0b");
}

TEST_CASE("a node taint is added by command or JSON patch, never as a whole list",
          "[advice][patch]") {
  const advice::TaintSpec taint{"nvidia.com/gpu", "present", "NoSchedule"};
  CHECK(advice::taintCommand("gpu-1", taint) ==
        "kubectl taint node gpu-1 nvidia.com/gpu=present:NoSchedule");
  const auto variants = advice::nodeTaintPatches(taint);
  REQUIRE(variants.size() == 3);
  CHECK(YAML::Load(advice::yamlOfOps(variants[0]))[0]["path"].as<std::string>() ==
        "/spec/taints/-");
  CHECK(YAML::Load(advice::yamlOfOps(variants[2]))[0]["path"].as<std::string>() ==
        "/spec");  // `spec: null`
}

TEST_CASE("PriorityClasses do not preempt unless asked to", "[advice][patch]") {
  const auto never = advice::priorityClassManifest("crit", 1000, "d");
  CHECK(never["preemptionPolicy"] == "Never");
  CHECK(never["globalDefault"] == false);
  const auto preempt = advice::priorityClassManifest("crit", 1000, "d", true);
  CHECK(preempt["preemptionPolicy"] == "PreemptLowerPriority");
}

TEST_CASE("requests name each container as the workload does", "[advice][patch]") {
  advice::RequestsPatchSpec spec{"apps/v1",
                                 "Deployment",
                                 "web",
                                 "api",
                                 {{"app", 1500, 512LL << 20}, {"proxy", 100, 64LL << 20}}};
  const auto doc = advice::requestsPatch(spec);
  const auto& containers = doc["spec"]["template"]["spec"]["containers"];
  REQUIRE(containers.size() == 2);
  CHECK(containers[0]["name"] == "app");
  CHECK(containers[0]["resources"]["requests"]["cpu"] == "1500m");
  CHECK(containers[1]["resources"]["requests"]["memory"] == "64Mi");
}

TEST_CASE("each engine's pods are changed where the engine defines them", "[advice][engine]") {
  using advice::PodField;
  const auto argo = advice::podSpecSite({"argo", "etl", "", "daily"}, PodField::kPriorityClass);
  CHECK(argo.path.base == advice::JsonPath{"spec"});
  CHECK(argo.priority_field == "podPriorityClassName");
  CHECK_THAT(argo.apply, Catch::Contains("kubectl patch workflowtemplate daily -n etl"));
  CHECK_THAT(argo.native, Catch::Contains("spec.templates[].priorityClassName"));
  CHECK_THAT(argo.native, Catch::Contains("{{workflow.name}}"));
  const auto tekton = advice::podSpecSite({"tekton", "ci", "", "build"}, PodField::kTolerations);
  CHECK(tekton.path.inner == advice::JsonPath{"taskRunTemplate", "podTemplate"});
  CHECK_THAT(tekton.native, Catch::Contains("spec.taskRunSpecs[].podTemplate.tolerations"));
  const auto airflow = advice::podSpecSite({"airflow", "a", "", "d"}, PodField::kAffinity);
  CHECK_THAT(airflow.native, Catch::Contains("pod_override"));
  CHECK_THAT(airflow.native, Catch::Contains("pod_mutation_hook"));
  CHECK_THAT(advice::podSpecSite({"kubeflow", "a", "", "d"}, PodField::kTolerations).native,
             Catch::Contains("kfp.kubernetes.add_toleration"));
  const auto rs = advice::podSpecSite({"", "web", "ReplicaSet", "api-7d9"}, PodField::kAffinity);
  CHECK_THAT(rs.apply, Catch::StartsWith("kubectl patch deployment api -n web --type=json"));
  const auto job = advice::podSpecSite({"", "b", "Job", "report-29012345"}, PodField::kAffinity);
  CHECK(job.path.base == advice::JsonPath{"spec", "jobTemplate", "spec", "template", "spec"});
  CHECK_THAT(job.apply, Catch::Contains("cronjob report -n b"));
  CHECK(advice::perRunLabels("argo", {{"workflows.argoproj.io/workflow", "daily-x1"}}).first ==
        std::vector<std::pair<std::string, std::string>>{
            {"workflows.argoproj.io/workflow", "{{workflow.name}}"}});
  // A pod owned by an Argo Workflow is changed in Argo's terms, not as a plain pod: in its
  // Workflow, which the daemon can name (the template it came from, it cannot).
  const auto wf = advice::podSpecSite({"", "a", "Workflow", "daily-x1"}, PodField::kNodeSelector);
  CHECK_THAT(wf.apply, Catch::Contains("kubectl patch workflow daily-x1 -n a"));
  CHECK_THAT(wf.description, Catch::Contains("Workflow a/daily-x1"));
  CHECK(wf.object.kind == "Workflow");
  CHECK(wf.object.names == std::vector<std::string>{"daily-x1"});
  CHECK_FALSE(advice::perRunLabels("tekton", {{"tekton.dev/pipelineRun", "r"}}).second);
}
