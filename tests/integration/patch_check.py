#!/usr/bin/env python3
"""Applies every patch of every recommendation in the given reports, with the real kubectl
(`kubectl patch --local`), to the real objects in FIXTURES, and checks that nothing that was
there is lost and that the new entry is there.

A set of JSON-patch variants ("variant i of n") must have exactly one variant that kubectl accepts
on each object of the kind it targets; the result must keep every list entry and map key of the
object (a key the patch sets may change value) and hold the added value. Strategic-merge documents
(node labels, container requests) are applied the same way. PriorityClasses must not preempt.

Usage: patch_check.py FIXTURES_DIR WORK_DIR REPORT.json...
Prints one line per kind and exits 1 with the failures listed.
"""
import collections
import concurrent.futures
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

APPS = {"Deployment", "DaemonSet", "StatefulSet"}


def load_objects(fixtures):
    objects = collections.defaultdict(list)
    for name in sorted(os.listdir(fixtures)):
        if not name.endswith((".yaml", ".yml")):
            continue
        with open(os.path.join(fixtures, name)) as f:
            docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
        for doc in docs:
            items = doc.get("items", []) if doc.get("kind", "").endswith("List") else [doc]
            for i, obj in enumerate(items):
                if isinstance(obj, dict) and "kind" in obj:
                    objects[obj["kind"]].append((f"{name}#{i}", obj))
    return objects


KUBECTL = {}  # (object, patch type, patch) -> the object after kubectl, or None: runs are pure
RUNS = [0]  # kubectl processes started
POOL = concurrent.futures.ThreadPoolExecutor(max_workers=4)


def kubectl_key(obj, patch_type, patch):
    return (json.dumps(obj, sort_keys=True, default=str), patch_type, patch)


def run_kubectl(work, obj, patch_type, patch, all_results=False):
    # Files of their own: several runs are in flight at once.
    RUNS[0] += 1
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        obj_file = os.path.join(tmp, "object.json")
        patch_file = os.path.join(tmp, "patch.yaml")
        with open(obj_file, "w") as f:
            json.dump(obj, f)
        with open(patch_file, "w") as f:
            f.write(patch)
        run = subprocess.run(
            ["kubectl", "patch", "--local", "-f", obj_file, "--type", patch_type,
             "--patch-file", patch_file, "-o", "json"],
            capture_output=True, text=True)
    if all_results:  # every object kubectl printed, refused ones left out
        decoder, text, at, printed = json.JSONDecoder(), run.stdout, 0, []
        while True:
            while at < len(text) and text[at].isspace():
                at += 1
            if at == len(text):
                return printed
            result, at = decoder.raw_decode(text, at)
            printed.append(result)
    return json.loads(run.stdout) if run.returncode == 0 else None


def kubectl_patch_all(work, calls):
    """For each (object, patch type, patch) the object after `kubectl patch --local`, or None
    where kubectl refuses the patch; the runs not made before go in parallel (a kubectl start is
    ~0.1 s of CPU)."""
    keys = [kubectl_key(*call) for call in calls]
    pending = {}
    for key, call in zip(keys, calls):
        if key not in KUBECTL and key not in pending:
            pending[key] = POOL.submit(run_kubectl, work, *call)
    for key, future in pending.items():
        KUBECTL[key] = future.result()
    return [copy.deepcopy(KUBECTL[key]) for key in keys]


def run_kubectl_each(work, objs, patch_type, patch):
    # One kubectl run patches every object of a List, each on its own, as if one by one: it
    # prints those it patched and an error for each it refused. Each gets a name of its own for
    # the run, by which its result is found, and then its name back.
    batch = []
    for i, obj in enumerate(objs):
        obj = copy.deepcopy(obj)
        obj.setdefault("metadata", {})["name"] = f"check-{i}"
        batch.append(obj)
    listed = run_kubectl(work, {"apiVersion": "v1", "kind": "List", "items": batch}, patch_type,
                         patch, all_results=True)
    out = [None] * len(objs)
    for result in listed:
        i = int(result["metadata"]["name"][len("check-"):])
        result["metadata"]["name"] = objs[i].get("metadata", {}).get("name")
        if result["metadata"]["name"] is None:
            del result["metadata"]["name"]
        out[i] = result
    return out


def kubectl_patch_each(work, objs, patch_type, patch):
    """kubectl_patch_all of each object with the same patch, in one kubectl run."""
    keys = [kubectl_key(obj, patch_type, patch) for obj in objs]
    todo = [i for i, key in enumerate(keys) if key not in KUBECTL]
    if todo:
        for i, result in zip(todo, run_kubectl_each(work, [objs[i] for i in todo], patch_type,
                                                    patch)):
            KUBECTL[keys[i]] = result
    return [copy.deepcopy(KUBECTL[key]) for key in keys]


def normalised_all(work, objs):
    # The object as kubectl prints it after an empty patch: both sides of a comparison are then
    # kubectl's rendering, so only the patch can make them differ.
    outs = kubectl_patch_each(work, objs, "json", "[]")
    for obj, out in zip(objs, outs):
        if out is None:
            raise SystemExit(f"kubectl cannot read {obj.get('kind')} {obj.get('metadata')}")
    return outs


def normalised(work, obj):
    return normalised_all(work, [obj])[0]


def lost(before, after, path, free):
    """Paths of `before` that `after` no longer holds; paths in `free` may change value."""
    if path in free:
        return []
    if isinstance(before, dict):
        if not isinstance(after, dict):
            return [path]
        out = []
        for key, value in before.items():
            sub = f"{path}/{key}"
            out += [sub] if key not in after else lost(value, after[key], sub, free)
        return out
    if isinstance(before, list):
        if not isinstance(after, list):
            return [path]
        return [f"{path}/{i}" for i, item in enumerate(before) if item not in after]
    return [] if before == after else [path]


def pointer_get(obj, pointer):
    node = obj
    for raw in pointer.split("/")[1:]:
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(key)] if key != "-" else node
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return None
    return node


def added_present(after, op):
    path = op["path"]
    if path.endswith("/-"):
        listed = pointer_get(after, path[:-2])
        return isinstance(listed, list) and op["value"] in listed
    return pointer_get(after, path) == op["value"]


def documents(patch_yaml):
    """[(comment, body)] of a multi-document patch."""
    out = []
    for chunk in patch_yaml.split("---\n"):
        if not chunk.strip():
            continue
        comment = "\n".join(l for l in chunk.splitlines() if l.startswith("#"))
        out.append((comment, chunk))
    return out


def variant_sets(docs):
    sets = []
    for comment, body in docs:
        match = re.search(r"variant (\d+) of (\d+)", comment)
        if match and match.group(1) != "1":
            sets[-1][1].append(body)
        else:
            sets.append((comment, [body]))
    return sets


def targets(comment, ops, objects):
    path = ops[-1]["path"]
    if path.startswith(("/spec/taints", "/metadata/labels")) or path == "/spec":
        return objects["Node"]
    if path.startswith("/spec/template/spec"):
        return [o for kind in sorted(APPS) for o in objects[kind]]
    if path.startswith("/spec/taskRunTemplate"):
        return objects["PipelineRun"]
    if path.startswith("/spec/jobTemplate"):
        return objects["CronJob"]
    if "workflowtemplate" in comment.lower():
        return objects["Workflow"]
    return objects["Pod"]


class Checker:
    def __init__(self, fixtures, work):
        self.objects = load_objects(fixtures)
        self.work = work
        self.failures = []
        self.applied = collections.Counter()
        self.seen = set()

    def fail(self, kind, what):
        self.failures.append(f"{kind}: {what}")

    def json_set(self, kind, comment, variants):
        parsed = [yaml.safe_load(v) for v in variants]
        free = {op["path"] for ops in parsed for op in ops
                if op["op"] == "add" and not op["path"].endswith("/-")}
        chosen = list(targets(comment, parsed[0], self.objects))
        befores = normalised_all(self.work, [obj for _, obj in chosen])
        # One kubectl run a variant, over every target; by_variant[i][t]: variant i on target t.
        by_variant = list(POOL.map(lambda v: kubectl_patch_each(self.work, befores, "json", v),
                                   variants))
        for t, ((name, _), before) in enumerate(zip(chosen, befores)):
            accepted = [(i, outs[t]) for i, outs in enumerate(by_variant) if outs[t] is not None]
            if len(accepted) != 1:
                self.fail(kind, f"{len(accepted)} of {len(variants)} variants apply to {name}")
                continue
            index, after = accepted[0]
            gone = lost(before, after, "", free)
            if gone:
                self.fail(kind, f"{name} lost {gone[:3]} (variant {index + 1})")
            if not added_present(after, parsed[index][-1]):
                self.fail(kind, f"{name}: {parsed[index][-1]['path']} not added")
            self.applied[kind] += 1

    def node_strategic(self, kind, doc):
        # As `kubectl patch node <name> --patch-file`: the document less its identity.
        patch = {k: v for k, v in doc.items() if k not in ("apiVersion", "kind")}
        patch["metadata"] = {k: v for k, v in doc["metadata"].items() if k != "name"}
        labels = patch["metadata"].get("labels", {})
        free = {f"/metadata/labels/{k}" for k in labels}
        nodes = self.objects["Node"]
        befores = normalised_all(self.work, [obj for _, obj in nodes])
        afters = kubectl_patch_each(self.work, befores, "strategic", json.dumps(patch))
        for (name, _), before, after in zip(nodes, befores, afters):
            gone = lost(before, after, "", free) if after is not None else ["(refused)"]
            if gone:
                self.fail(kind, f"Node patch on {name} lost {gone[:3]}")
            elif any(after["metadata"]["labels"].get(k) != v for k, v in labels.items()):
                self.fail(kind, f"node labels not set on {name}")
            self.applied[kind] += 1

    def requests(self, kind, doc):
        wanted = doc["spec"]["template"]["spec"]["containers"]
        apps = [o for k in sorted(APPS) for o in self.objects[k]]
        calls = []
        for (name, _), before in zip(apps, normalised_all(self.work, [o for _, o in apps])):
            real = [c["name"] for c in before["spec"]["template"]["spec"]["containers"]]
            if len(real) < len(wanted):
                continue
            # The fixture's own container names stand in for the workload's.
            patch = copy.deepcopy(wanted)
            for c, n in zip(patch, real):
                c["name"] = n
            calls.append((name, before, real, json.dumps(
                {"spec": {"template": {"spec": {"containers": patch}}}})))
        afters = kubectl_patch_all(self.work, [(b, "strategic", p) for _, b, _, p in calls])
        for (name, before, real, _), after in zip(calls, afters):
            if after is None:
                self.fail(kind, f"requests patch refused on {name}")
                continue
            got = after["spec"]["template"]["spec"]["containers"]
            if [c["name"] for c in got] != real:
                self.fail(kind, f"containers of {name} changed: {[c['name'] for c in got]}")
            free = {f"/spec/template/spec/containers"}
            gone = lost(before, after, "", free)
            for b, a in zip(before["spec"]["template"]["spec"]["containers"], got):
                b = copy.deepcopy(b)
                b.get("resources", {}).pop("requests", None)
                gone += lost(b, a, f"/containers/{b['name']}", set())
            if gone:
                self.fail(kind, f"{name} lost {gone[:3]}")
            self.applied[kind] += 1

    def document(self, kind, comment, variants):
        # The same change on many workloads or nodes is one check: only the comment differs.
        bodies = tuple("\n".join(l for l in v.splitlines() if not l.startswith("#"))
                       for v in variants)
        key = (kind, "workflowtemplate" in comment.lower(), bodies)
        if key in self.seen:
            return
        self.seen.add(key)
        doc = yaml.safe_load(variants[0])
        if isinstance(doc, list):
            self.json_set(kind, comment, variants)
        elif doc.get("kind") == "PriorityClass":
            if doc.get("preemptionPolicy") != "Never":
                self.fail(kind, f"PriorityClass {doc['metadata']['name']} preempts")
            self.applied[kind] += 1
        elif doc.get("kind") == "Node":
            self.node_strategic(kind, doc)
        elif doc.get("kind") in APPS:
            self.requests(kind, doc)
        else:
            self.fail(kind, f"no way to apply: {variants[0][:200]}")

    def report(self, path):
        with open(path) as f:
            report = json.load(f)
        for rec in report.get("recommendations", []):
            for comment, variants in variant_sets(documents(rec.get("patch_yaml", ""))):
                self.document(rec["kind"], comment, variants)


def main():
    fixtures, work, reports = sys.argv[1], sys.argv[2], sys.argv[3:]
    checker = Checker(fixtures, work)
    for path in reports:
        checker.report(path)
    for kind, count in sorted(checker.applied.items()):
        print(f"{kind}: {count} patch application(s) checked")
    print(f"kubectl: {len(KUBECTL)} object patches in {RUNS[0]} runs")
    for failure in checker.failures[:40]:
        print("FAIL:", failure, file=sys.stderr)
    if checker.failures or not checker.applied:
        sys.exit(1)


if __name__ == "__main__":
    main()
