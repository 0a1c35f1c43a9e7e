#!/usr/bin/env python3
"""`dagadvisor-sim plan` on gpu-hoarding.yaml, checked against the scenario, against the
simulation of the same seed (generate's ground truth and metrics). The real API server takes
every object of a plan in the real-cluster tests (tests/cluster/).

Usage: plan_test.py <dagadvisor-sim> <config/scenarios dir> <recommendations fixture>
Standard library only. Prints 'N passed, 0 failed' at the end; exits 1 on the first failure.
"""

import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

SIM, SCENARIOS, ADVICE = sys.argv[1:4]
SCENARIO = os.path.join(SCENARIOS, "gpu-hoarding.yaml")
WORK = tempfile.mkdtemp(prefix="plan_test.")
PASSED = []

# gpu-hoarding.yaml, as written there.
NODE_POOLS = {  # pool: (count, node-type, accelerator, cpu, memory GiB, gpus)
    "cpu-m5": (4, "compute-optimized", None, 8, 32, 0),
    "gpu-g5": (3, "gpu", "nvidia-tesla", 16, 64, 4),
}
ZONES = ["zone-a", "zone-b"]
DAG = {
    "prepare": [],
    "train-a": ["prepare"],
    "train-b": ["prepare"],
    "train-c": ["prepare"],
    "train-d": ["prepare"],
    "publish": ["train-a", "train-b", "train-c", "train-d"],
}
GPU_TASKS = {"train-a", "train-b", "train-c", "train-d"}
NAMESPACES = ["logging", "ml", "monitoring", "online"]
IMAGE = "registry.k8s.io/pause:3.10"
ADMISSION_TOLERATIONS = {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def passed(name):
    PASSED.append(name)
    print(f"ok   {name}", flush=True)


def sim(*args, expect=0):
    result = subprocess.run([SIM, *args], capture_output=True, text=True, timeout=120)
    check(result.returncode == expect,
          f"dagadvisor-sim {' '.join(args)}: exit {result.returncode}, expected {expect}\n"
          f"{result.stderr}")
    return result


def plan(*args):
    return json.loads(sim("plan", "--scenario", SCENARIO, *args).stdout)


def objects_of(doc, kind):
    return [o for o in doc["objects"] if o["kind"] == kind]


# --- the plan against the scenario --------------------------------------------------------

def test_top_level(doc):
    check(doc["scenario"] == "gpu-hoarding" and doc["seed"] == 11 and doc["time_scale"] == 1,
          f"scenario/seed/time_scale: {doc['scenario']} {doc['seed']} {doc['time_scale']}")
    check(doc["changes"] == "baseline" and doc["applied_patches"] == [],
          "the default plan applies nothing")
    order = ["Namespace", "PriorityClass", "Node", "DaemonSet", "Deployment"]
    ranks = [order.index(o["kind"]) for o in doc["objects"]]
    check(ranks == sorted(ranks), f"objects out of order: {[o['kind'] for o in doc['objects']]}")
    check([o["metadata"]["name"] for o in objects_of(doc, "Namespace")] == NAMESPACES,
          "one Namespace per namespace used")
    check(objects_of(doc, "PriorityClass") == [], "gpu-hoarding has no PriorityClass of its own")
    passed("top level and object order")


def test_nodes(doc):
    nodes = objects_of(doc, "Node")
    expected = [f"{pool}-{i:03d}" for pool, spec in NODE_POOLS.items() for i in range(spec[0])]
    check([n["metadata"]["name"] for n in nodes] == expected, "node names")
    for node in nodes:
        name = node["metadata"]["name"]
        pool = name.rsplit("-", 1)[0]
        index = int(name.rsplit("-", 1)[1])
        _, node_type, accelerator, cpu, memory_gib, gpus = NODE_POOLS[pool]
        labels = {
            "kubernetes.io/hostname": name,
            "node-type": node_type,
            "topology.kubernetes.io/zone": ZONES[index % len(ZONES)],
            "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "type": "kwok",
        }
        if accelerator:
            labels["accelerator"] = accelerator
        check(node["metadata"]["labels"] == labels, f"{name}: labels {node['metadata']['labels']}")
        check(node["metadata"]["annotations"] == {"kwok.x-k8s.io/node": "fake"},
              f"{name}: the kwok annotation")
        check("taints" not in node["spec"], f"{name}: gpu-hoarding taints no node")
        capacity = node["status"]["capacity"]
        allocatable = node["status"]["allocatable"]
        check(capacity["cpu"] == str(cpu) and capacity["memory"] == str(memory_gib << 30)
              and capacity["pods"] == "110", f"{name}: capacity {capacity}")
        check(allocatable["cpu"] == f"{cpu * 1000 - 100}m", f"{name}: allocatable cpu")
        check(abs(int(allocatable["memory"]) - 0.95 * (memory_gib << 30)) <= 1,
              f"{name}: allocatable memory")
        if gpus:
            check(capacity["nvidia.com/gpu"] == str(gpus)
                  and allocatable["nvidia.com/gpu"] == str(gpus), f"{name}: GPU capacity")
        else:
            check("nvidia.com/gpu" not in capacity, f"{name}: a CPU node with GPUs")
    passed("nodes: names, labels, kwok fields, capacity and allocatable")


def test_workloads(doc):
    for kind, names in [("DaemonSet", ["fluent-bit", "node-agent"]),
                        ("Deployment", ["web", "cache"])]:
        objs = objects_of(doc, kind)
        check([o["metadata"]["name"] for o in objs] == names, f"{kind} names")
        for o in objs:
            selector = o["spec"]["selector"]["matchLabels"]
            check(o["spec"]["template"]["metadata"]["labels"] == selector,
                  f"{kind} {o['metadata']['name']}: template labels differ from the selector")
            containers = o["spec"]["template"]["spec"]["containers"]
            check(len(containers) == 1 and containers[0]["image"] == IMAGE
                  and containers[0]["name"] == o["metadata"]["name"]
                  and "requests" in containers[0]["resources"],
                  f"{kind} {o['metadata']['name']}: container {containers}")
    agent = objects_of(doc, "DaemonSet")[1]
    check(agent["spec"]["template"]["spec"]["tolerations"] == [{"operator": "Exists"}],
          "node-agent: the scenario's toleration only (admission adds the rest)")
    check("tolerations" not in objects_of(doc, "DaemonSet")[0]["spec"]["template"]["spec"],
          "fluent-bit tolerates nothing")
    check([d["spec"]["replicas"] for d in objects_of(doc, "Deployment")] == [18, 6], "replicas")
    passed("DaemonSets and Deployments")


def test_runs_and_pods(doc):
    check([r["arrival_seconds"] for r in doc["runs"]] == [600, 4200, 7800], "arrivals")
    for run in doc["runs"]:
        check(run["engine"] == "argo" and run["namespace"] == "ml"
              and run["workflow"] == "train-models" and run["reaction_seconds"] == 1,
              f"run {run['name']}: engine/namespace/workflow/reaction")
        check({t["id"]: t["parents"] for t in run["tasks"]} == DAG,
              f"run {run['name']}: parents differ from the scenario's DAG")
        for task in run["tasks"]:
            pod = task["pod"]
            meta = pod["metadata"]
            where = f"{run['name']}/{task['id']}"
            check(pod["apiVersion"] == "v1" and pod["kind"] == "Pod", f"{where}: not a v1 Pod")
            check(meta["namespace"] == "ml", f"{where}: namespace")
            check(meta["labels"] == {"workflows.argoproj.io/workflow": run["name"],
                                     "workflows.argoproj.io/completed": "false"},
                  f"{where}: Argo labels {meta['labels']}")
            check(meta["annotations"]["workflows.argoproj.io/node-name"]
                  == f"{run['name']}.{task['id']}", f"{where}: node-name annotation")
            check(meta["annotations"]["workflows.argoproj.io/node-id"].startswith(run["name"] + "-"),
                  f"{where}: node-id annotation")
            check(meta["ownerReferences"] == [{"apiVersion": "argoproj.io/v1alpha1",
                                               "kind": "Workflow", "name": run["name"],
                                               "controller": True}],
                  f"{where}: ownerReferences {meta.get('ownerReferences')}")
            for absent in ["uid", "creationTimestamp", "resourceVersion"]:
                check(absent not in meta, f"{where}: metadata.{absent}")
            check("status" not in pod and "nodeName" not in pod["spec"], f"{where}: status/nodeName")
            spec = pod["spec"]
            check(spec["restartPolicy"] == "Never", f"{where}: restartPolicy")
            check(not ADMISSION_TOLERATIONS & {t.get("key") for t in spec.get("tolerations", [])},
                  f"{where}: admission's tolerations in the plan")
            (container,) = spec["containers"]
            check(container["image"] == IMAGE and container["name"] == "main",
                  f"{where}: container")
            resources = container["resources"]
            if task["id"] in GPU_TASKS:
                check(resources["requests"]["nvidia.com/gpu"] == "1"
                      and resources["limits"] == {"nvidia.com/gpu": "1"},
                      f"{where}: a GPU request needs an equal limit")
            else:
                check("limits" not in resources, f"{where}: limits without GPUs")
            check(task["run_seconds"] > 0 and task["output_gb"] in (1, 2), f"{where}: figures")
    names = [t["pod"]["metadata"]["name"] for r in doc["runs"] for t in r["tasks"]]
    check(len(set(names)) == len(names), "pod names repeat")
    passed("runs: DAG, Argo labels, annotations, owner, pod spec")


# --- the plan against the simulation of the same seed ------------------------------------

def metric_samples(path, name):
    """{labels tuple: last value} of a metric family in an OpenMetrics file."""
    out = {}
    pattern = re.compile(r'(\w+)="([^"]*)"')
    with open(path) as f:
        for line in f:
            if line.startswith(name + "{"):
                labels, rest = line[len(name) + 1:].split("} ", 1)
                out[tuple(sorted(pattern.findall(labels)))] = float(rest.split()[0])
    return out


def counter_rates(path, name):
    """{(namespace, container, pod): rate per second} of a counter family in an OpenMetrics
    file, from each series' first and last samples."""
    first, last = {}, {}
    pattern = re.compile(r'(\w+)="([^"]*)"')
    with open(path) as f:
        for line in f:
            if line.startswith(name + "{"):
                labels, rest = line[len(name) + 1:].split("} ", 1)
                found = dict(pattern.findall(labels))
                key = (found["namespace"], found["container"], found["pod"])
                value, ts = (float(x) for x in rest.split()[:2])
                first.setdefault(key, (ts, value))
                last[key] = (ts, value)
    return {key: (last[key][1] - first[key][1]) / (last[key][0] - first[key][0])
            for key in last if last[key][0] > first[key][0]}


def sanitize(key):
    return re.sub(r"[^A-Za-z0-9]", "_", key).lower()


def test_against_simulation(doc):
    out = os.path.join(WORK, "generate")
    sim("generate", "--scenario", SCENARIO, "--out", out)
    with open(os.path.join(out, "ground_truth.json")) as f:
        truth = json.load(f)
    check([r["run"] for r in truth["runs"]] == [r["name"] for r in doc["runs"]],
          "run names differ from the simulation's")
    for simulated, planned in zip(truth["runs"], doc["runs"]):
        tasks = {t["id"]: t for t in planned["tasks"]}
        check(simulated["arrival"] - truth["window"]["start"] == planned["arrival_seconds"],
              f"{planned['name']}: arrival")
        for t in simulated["tasks"]:
            p = tasks[t["id"]]
            check(t["pod"] == p["pod"]["metadata"]["name"], f"{t['id']}: pod name")
            check(t["parents"] == p["parents"], f"{t['id']}: parents")
            # Whole seconds in the truth: started and finished are each rounded.
            ran = t["finished"] - t["started"] - t["transfer_seconds"]
            check(abs(ran - p["run_seconds"]) <= 1.5,
                  f"{planned['name']}/{t['id']}: ran {ran} s simulated, {p['run_seconds']} planned")
    metrics = os.path.join(out, "metrics.om")
    for family, field in [("kube_node_status_allocatable", "allocatable"),
                          ("kube_node_status_capacity", "capacity")]:
        samples = metric_samples(metrics, family)
        for node in objects_of(doc, "Node"):
            name = node["metadata"]["name"]
            for resource, value in node["status"][field].items():
                key = sanitize(resource)
                simulated = [v for labels, v in samples.items()
                             if ("node", name) in labels and ("resource", key) in labels]
                check(len(simulated) == 1, f"{name}: no {family} {key}")
                planned = float(value[:-1]) / 1000 if value.endswith("m") else float(value)
                check(abs(simulated[0] - planned) <= 1,
                      f"{name} {field} {resource}: simulated {simulated[0]}, planned {value}")
    labels = metric_samples(metrics, "kube_node_labels")
    kwok_added = {"kubernetes.io/os", "kubernetes.io/arch", "type"}
    for node in objects_of(doc, "Node"):
        name = node["metadata"]["name"]
        expected = {("label_" + sanitize(k), v) for k, v in node["metadata"]["labels"].items()
                    if k not in kwok_added}
        simulated = [set(l) - {("job", "kube-state-metrics"), ("node", name)}
                     for l in labels if ("node", name) in l]
        check(any({x for x in s if x[0].startswith("label_")} == expected for s in simulated),
              f"{name}: labels differ from the simulated kube_node_labels")
    test_usage_annotations(doc, metrics)
    passed("plan matches the simulation: runs, pods, parents, run times, nodes, usage")


def test_usage_annotations(doc, metrics):
    """kwok reports what each pod's usage annotations say: the simulation's cAdvisor figures
    (the working set exactly, the CPU counter's rate), by container for the workloads' pods and by
    name for the task pods."""
    planned = {}
    for kind in ("DaemonSet", "Deployment"):
        for o in objects_of(doc, kind):
            planned[(o["metadata"]["namespace"], o["metadata"]["name"], None)] = \
                o["spec"]["template"]["metadata"]["annotations"]
    for run in doc["runs"]:
        for task in run["tasks"]:
            meta = task["pod"]["metadata"]
            planned[(meta["namespace"], "main", meta["name"])] = meta["annotations"]

    def annotations_of(namespace, container, pod):
        return planned.get((namespace, container, pod)) or planned.get((namespace, container, None))

    memory = metric_samples(metrics, "container_memory_working_set_bytes")
    checked = 0
    for labels, value in memory.items():
        found = dict(labels)
        annotations = annotations_of(found["namespace"], found["container"], found["pod"])
        check(annotations is not None, f"{found['pod']}: simulated usage but no planned pod")
        check(abs(float(annotations["kwok.x-k8s.io/usage-memory"]) - value) <= 1,
              f"{found['pod']}: working set {value} simulated, "
              f"{annotations['kwok.x-k8s.io/usage-memory']} planned")
        checked += 1
    for (namespace, container, pod), rate in counter_rates(
            metrics, "container_cpu_usage_seconds_total").items():
        cpu = annotations_of(namespace, container, pod)["kwok.x-k8s.io/usage-cpu"]
        check(cpu.endswith("m") and abs(float(cpu[:-1]) / 1000 - rate) <= 0.002,
              f"{pod}: {rate} cores simulated, {cpu} planned")
        checked += 1
    check(checked > 0, "no usage series in the simulation")


# --- time scale, policies, errors --------------------------------------------------------

def test_time_scale(doc):
    scaled = plan("--time-scale", "0.05")
    check(scaled["time_scale"] == 0.05, "time_scale not recorded")
    check(scaled["objects"] == doc["objects"], "the time scale changed the objects")
    for run, fast in zip(doc["runs"], scaled["runs"]):
        check(math.isclose(fast["arrival_seconds"], run["arrival_seconds"] * 0.05, rel_tol=1e-12),
              f"{run['name']}: arrival not scaled")
        check(fast["reaction_seconds"] == run["reaction_seconds"], "reaction_seconds scaled")
        for task, quick in zip(run["tasks"], fast["tasks"]):
            check(math.isclose(quick["run_seconds"], task["run_seconds"] / 20, rel_tol=1e-12),
                  f"{task['id']}: {quick['run_seconds']} is not 1/20 of {task['run_seconds']}")
            check(quick["pod"] == task["pod"], f"{task['id']}: the time scale changed the pod")
    other = plan("--seed", "99")
    check(other["seed"] == 99, "--seed not recorded")
    check([r["name"] for r in other["runs"]] != [r["name"] for r in doc["runs"]],
          "another seed, the same run names")
    check(plan() == doc, "the same seed gave another plan")
    path = os.path.join(WORK, "plan.json")
    check(sim("plan", "--scenario", SCENARIO, "--out", path).stdout == "", "--out also printed")
    with open(path) as f:
        check(json.load(f) == doc, "--out wrote another plan than stdout")
    passed("--time-scale scales arrivals and run times only; --seed; --out")


def test_bad_time_scale():
    for value in ["0", "-1", "abc", "1x", "nan", "inf"]:
        result = sim("plan", "--scenario", SCENARIO, "--time-scale", value, expect=2)
        check("--time-scale" in result.stderr and result.stdout == "",
              f"--time-scale {value}: the message does not name the flag: {result.stderr}")
    passed("--time-scale 0, negative, not a number: exit 2 naming the flag")


def test_changes():
    remedied = plan("--policy", "remedied")
    check(remedied["changes"] == "remedied", "--policy remedied not recorded")
    classes = objects_of(remedied, "PriorityClass")
    check([c["metadata"]["name"] for c in classes] == ["dag-critical-path"]
          and classes[0]["value"] == 1000000 and classes[0]["preemptionPolicy"] == "Never",
          f"remedied: the critical path's PriorityClass: {classes}")
    for node in objects_of(remedied, "Node"):
        taints = node["spec"].get("taints", [])
        gpu = node["metadata"]["name"].startswith("gpu-")
        check((taints == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}])
              == gpu, f"remedied: taints of {node['metadata']['name']}: {taints}")
    for run in remedied["runs"]:
        for task in run["tasks"]:
            spec = task["pod"]["spec"]
            tolerated = {t.get("key") for t in spec.get("tolerations", [])}
            check("nvidia.com/gpu" in tolerated, f"remedied: {task['id']} lacks the GPU toleration")
            # Argo labels no task, and the namespace's tasks want different pools.
            check("nodeSelector" not in spec, f"remedied: {task['id']} has a nodeSelector")
    for deployment in objects_of(remedied, "Deployment"):
        check(deployment["spec"]["template"]["spec"].get("nodeSelector")
              == {"node-type": "compute-optimized"},
              f"remedied: {deployment['metadata']['name']} lacks its pool's nodeSelector")
    applied = plan("--apply", ADVICE)
    check(applied["changes"].endswith("gpu-hoarding-recommendations.json"), "--apply not recorded")
    truth_dir = os.path.join(WORK, "generate-apply")
    sim("generate", "--scenario", SCENARIO, "--out", truth_dir, "--apply", ADVICE)
    with open(os.path.join(truth_dir, "ground_truth.json")) as f:
        truth = json.load(f)

    def outcomes(report):
        return [(p["recommendation"], p["step"], p["status"]) for p in report]

    check(outcomes(applied["applied_patches"]) == outcomes(truth["applied_patches"]),
          f"--apply: outcomes differ from generate's\n{outcomes(applied['applied_patches'])}\n"
          f"{outcomes(truth['applied_patches'])}")
    gpu_nodes = [n for n in objects_of(applied, "Node") if n["metadata"]["name"].startswith("gpu")]
    check(all(any(t["key"] == "nvidia.com/gpu" for t in n["spec"].get("taints", []))
              for n in gpu_nodes), "--apply: the GPU taint is not on the GPU nodes")
    passed("--policy remedied and --apply change the objects as generate does")


def main():
    try:
        doc = plan()
        test_top_level(doc)
        test_nodes(doc)
        test_workloads(doc)
        test_runs_and_pods(doc)
        test_against_simulation(doc)
        test_time_scale(doc)
        test_bad_time_scale()
        test_changes()
    except Exception as e:  # a Failure, or a plan not shaped as expected
        kind = "" if isinstance(e, Failure) else f"{type(e).__name__}: "
        print(f"FAIL: {kind}{e}", file=sys.stderr, flush=True)
        print(f"{len(PASSED)} passed, 1 failed")
        return 1
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    print(f"{len(PASSED)} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
