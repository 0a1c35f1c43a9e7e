#!/usr/bin/env python3
"""Checks the typed `patches` of a report against the snapshot it was made from and against the
real kubectl (`kubectl patch --local`) on the real objects in FIXTURES:

1. every object and pod a patch names exists in the snapshot (Nodes, pods, the owners of its
   pods; a Deployment by its ReplicaSets' pods, an Argo WorkflowTemplate by the Workflows made
   from it, a CronJob by its Jobs; PriorityClasses are created, so they need not exist), and a
   `pods.match_labels` selects pods of the snapshot;
2. `pod_variants` applied to a real Pod do what `variants` do to the pod template of the object:
   the object's fixture gets the Pod's fields where its pod template sits, both are patched (one
   variant of each must apply), and the fields every patch writes must then be equal;
3. patch_yaml is the rendering of `patches`: it holds every variant's and document's ops.

Usage: patches_typed_check.py SNAPSHOT_DIR FIXTURES_DIR WORK_DIR REPORT.json
"""
import copy
import json
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.dirname(__file__))
from patch_check import kubectl_patch_all, load_objects, normalised  # noqa: E402

POD_FIELDS = ("tolerations", "affinity", "nodeSelector", "priorityClassName", "containers")
# Where each kind keeps the fields a pod spec has.
POD_SPEC_AT = {"Deployment": ["spec", "template", "spec"], "DaemonSet": ["spec", "template", "spec"],
               "StatefulSet": ["spec", "template", "spec"], "Job": ["spec", "template", "spec"],
               "CronJob": ["spec", "jobTemplate", "spec", "template", "spec"],
               "WorkflowTemplate": ["spec"], "Workflow": ["spec"], "Pod": ["spec"],
               "PipelineRun": ["spec", "taskRunTemplate", "podTemplate"]}
FIXTURE_OF = {"WorkflowTemplate": "Workflow"}  # a WorkflowTemplate's spec is a Workflow's
# What a consumer writes for a value the user chooses per run (needs_value): the engine's
# expression in the object, the placeholder in the pods.
CHOSEN = {"zone": ("{{workflow.parameters.zone}}", "ZONE-CHOSEN-FOR-THE-RUN")}
PODS_PER_PATCH = 3  # real Pod fixtures each patch is checked on (each kubectl call is ~50 ms)


def series(snapshot, name):
    with open(os.path.join(snapshot, name + ".json")) as f:
        return [r["metric"] for r in json.load(f)["data"]["result"]]


class Snapshot:
    def __init__(self, path):
        self.nodes = {m["node"] for m in series(path, "node_allocatable")}
        self.pods = {(m["namespace"], m["pod"]) for m in series(path, "pod_info")}
        self.owners = {(m["namespace"], m.get("owner_kind"), m.get("owner_name"))
                       for m in series(path, "pod_owner")}
        self.labels = [({k[len("label_"):]: v for k, v in m.items() if k.startswith("label_")},
                        m["namespace"]) for m in series(path, "pod_labels")]

    def has_owner(self, ns, kind, name):
        if (ns, kind, name) in self.owners:
            return True
        made = {"Deployment": ("ReplicaSet", r"-[a-z0-9]{1,10}$"),
                "WorkflowTemplate": ("Workflow", r"-[a-z0-9]+$"),
                "CronJob": ("Job", r"-[0-9]+$")}.get(kind)
        return made is not None and any(
            o_ns == ns and o_kind == made[0] and o_name and o_name.startswith(name + "-") and
            re.search(made[1], o_name[len(name):]) for o_ns, o_kind, o_name in self.owners)

    def selects(self, ns, match_labels):
        # kube-state-metrics writes label keys with every character but [a-zA-Z0-9_] as "_".
        wanted = {re.sub(r"[^a-zA-Z0-9_]", "_", k): v for k, v in match_labels.items()}
        return any(pod_ns == ns and all(labels.get(k) == v for k, v in wanted.items())
                   for labels, pod_ns in self.labels)


def check_names(snap, kind, patch, failures):
    obj, pods = patch["object"], patch.get("pods")
    for name in obj["names"]:
        ok = {"Node": lambda: name in snap.nodes,
              "Pod": lambda: (obj["namespace"], name) in snap.pods,
              "PriorityClass": lambda: patch["type"] == "create"}.get(
            obj["kind"], lambda: snap.has_owner(obj["namespace"], obj["kind"], name))()
        if not ok:
            failures.append(f"{kind}: {obj['kind']} {obj['namespace']}/{name} is not in the snapshot")
    if obj["kind"] not in ("Node", "PriorityClass", "Pod") and not obj["names"]:
        failures.append(f"{kind}: {obj['kind']} patch names no object")
    if pods is None:
        return
    missing = [n for n in pods["names"] if (pods["namespace"], n) not in snap.pods]
    if missing:
        failures.append(f"{kind}: pods {missing[:3]} are not in the snapshot")
    if not pods["names"] and not snap.selects(pods["namespace"], pods["match_labels"]):
        failures.append(f"{kind}: pods {pods['match_labels']} select no pod of the snapshot")


def at(obj, path):
    for key in path:
        obj = obj.setdefault(key, {})
    return obj


def the_one_accepted(outs):
    """The object after the one variant kubectl accepted, or None when not exactly one was."""
    accepted = [out for out in outs if out]
    return accepted[0] if len(accepted) == 1 else None


def filled(variants, needs_value):
    text = json.dumps(variants)
    for placeholder in CHOSEN.get(needs_value, ()):
        text = text.replace(placeholder, "chosen-" + needs_value)
    return json.loads(text)


SEEN = set()


def check_pod_variants(work, objects, kind, patch, failures):
    obj_kind = patch["object"]["kind"]
    path = POD_SPEC_AT.get(obj_kind)
    if path is None or patch["type"] != "json" or "pod_variants" not in patch:
        return 0
    key = json.dumps([obj_kind, patch["variants"], patch["pod_variants"]], sort_keys=True)
    if key in SEEN:  # the same change on another object of the kind: checked once
        return 0
    SEEN.add(key)
    variants = filled(patch["variants"], patch.get("needs_value"))
    pod_variants = filled(patch["pod_variants"], patch.get("needs_value"))
    fixtures = objects[FIXTURE_OF.get(obj_kind, obj_kind)] if obj_kind != "Pod" else [(None, None)]
    pairs = []
    for pod_name, pod in objects["Pod"][:PODS_PER_PATCH]:
        pod = normalised(work, pod)
        for obj_name, workload in fixtures:
            # The object's fixture with the Pod's fields where its pod template sits: the same
            # starting point, so the same change must end in the same fields.
            if workload is None:
                workload, obj_name = copy.deepcopy(pod), pod_name
            else:
                workload = copy.deepcopy(normalised(work, workload))
            spec = at(workload, path)
            for field in POD_FIELDS:
                spec.pop(field, None)
                if field in pod["spec"]:
                    spec[field] = copy.deepcopy(pod["spec"][field])
            pairs.append((f"{obj_kind} {obj_name} / Pod {pod_name}", workload, pod))
    # Every kubectl run of the pairs at once (kubectl_patch_all runs them in parallel): per pair
    # the workload's variants, then the Pod's.
    outs = kubectl_patch_all(work, [(o, "json", json.dumps(v)) for _, workload, pod in pairs
                                    for o, vs in ((workload, variants), (pod, pod_variants))
                                    for v in vs])
    per_pair = len(variants) + len(pod_variants)
    checked = 0
    for p, (where, _, _) in enumerate(pairs):
        mine = outs[p * per_pair:(p + 1) * per_pair]
        after_obj = the_one_accepted(mine[:len(variants)])
        after_pod = the_one_accepted(mine[len(variants):])
        if after_obj is None or after_pod is None:
            failures.append(f"{kind}: not exactly one variant applies to {where}")
            continue
        spec_after = at(after_obj, path)
        for field in POD_FIELDS:
            if spec_after.get(field) != after_pod["spec"].get(field):
                failures.append(f"{kind}: {field} differs after patching {where}")
        checked += 1
    return checked


def check_rendering(rec, failures):
    rendered = [d for d in yaml.safe_load_all(rec["patch_yaml"]) if d is not None]
    typed = [v for p in rec["patches"] for v in (p["variants"] if p["type"] == "json"
                                                 else [p["document"]])]
    if rendered != typed:
        failures.append(f"{rec['kind']}: patch_yaml is not the rendering of patches")


def main():
    snapshot, fixtures, work, report_path = sys.argv[1:5]
    snap = Snapshot(snapshot)
    objects = load_objects(fixtures)
    with open(report_path) as f:
        report = json.load(f)
    failures, patches, applications = [], 0, 0
    for rec in report["recommendations"]:
        if "patches" not in rec:
            failures.append(f"{rec['kind']}: no patches list")
            continue
        check_rendering(rec, failures)
        for patch in rec["patches"]:
            patches += 1
            check_names(snap, rec["kind"], patch, failures)
            applications += check_pod_variants(work, objects, rec["kind"], patch, failures)
    print(f"{patches} typed patch(es); {applications} object/Pod pair(s) patched alike")
    for failure in failures[:40]:
        print("FAIL:", failure, file=sys.stderr)
    if failures or applications == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
