#!/usr/bin/env python3
"""Applies a recommendation's patches to the live objects of a cluster the way dagadvisor tells a
user to: in step order; a patch whose command is complete kubectl commands (kubectl taint, ...) by
running them, an object to create with `kubectl apply`, the others with `kubectl patch` of each
named object, trying the JSON-patch variants in order until one applies. Each object is read back
from the API server before and after: a patch that the API server refuses, or that loses anything
the object held, is a failure. A patch meant for a manifest (`kubectl patch --local -f
<manifest>`: a field the API server does not let change on a live object, or an object defined
where the engine creates it) is applied the same way with `--local` to the live objects it names
or selects, as the API server returns them: the nearest thing to their manifests a cluster has.

Usage: apply_patches.py RECOMMENDATION_JSON REPORT_JSON
Prints one line per object; exits 1 when a patch failed or lost something.
"""
import json
import subprocess
import sys
import tempfile

# What the API server itself changes on every write.
VOLATILE = {"resourceVersion", "generation", "managedFields", "uid", "creationTimestamp"}


def kubectl(*args, stdin=None):
    return subprocess.run(["kubectl", *args], input=stdin, capture_output=True, text=True)


def namespace_args(ns):
    return ["-n", ns] if ns else []


def get(kind, name, ns):
    result = kubectl("get", kind, name, *namespace_args(ns), "-o", "json")
    if result.returncode != 0:
        raise RuntimeError(f"get {kind} {name}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def lost(before, after, path=""):
    """The paths of what `before` held that `after` no longer holds: a key gone, or a list item
    gone (advice only adds; a value a controller updates since, such as a DaemonSet's
    template generation, is not a loss, nor a zero value the API server leaves out, such as a
    PriorityClass's globalDefault: false)."""
    if isinstance(before, dict):
        if not isinstance(after, dict):
            return [path or "/"]
        out = []
        for key, value in before.items():
            if path == "/metadata" and key in VOLATILE:
                continue
            if key not in after and value in (False, 0, "", [], {}, None):
                continue
            if key not in after:
                out.append(f"{path}/{key}")
            else:
                out += lost(value, after[key], f"{path}/{key}")
        return out
    if isinstance(before, list):
        if not isinstance(after, list):
            return [path]
        out = []
        for i, item in enumerate(before):
            named = named_item(item, after)
            if named is not None:  # a container, say: its fields may change, not go
                out += lost(item, named, f"{path}[{i}]")
            elif item not in after:
                out.append(f"{path}[{i}]")
        return out
    return []


def named_item(item, items):
    """The item of `items` with the same name as `item` (lists keyed by name, as containers)."""
    if not isinstance(item, dict) or "name" not in item:
        return None
    return next((other for other in items
                 if isinstance(other, dict) and other.get("name") == item["name"]), None)


def kept_spec(obj):
    """What a patch must keep: metadata (labels, annotations, owners) and spec; not status."""
    return {key: obj[key] for key in ("metadata", "spec") if key in obj}


def runnable_commands(patch):
    lines = [line for line in patch.get("command", "").splitlines() if line.strip()]
    if lines and all(line.startswith("kubectl ") and "<" not in line for line in lines):
        return lines
    return []


def candidates(patch):
    if patch["type"] == "strategic-merge":
        return [("strategic", patch["document"])]
    if patch["type"] == "json":
        return [("json", variant) for variant in patch["variants"]]
    raise RuntimeError(f"patch type {patch['type']} is not applied to live objects")


def first_variant(patch, target):
    """Runs `kubectl patch TARGET... --type=T -p VARIANT` for each variant in turn; returns the
    index of the first that applies and its output."""
    errors = []
    for index, (kind, body) in enumerate(candidates(patch)):
        result = kubectl("patch", *target, f"--type={kind}", "-p", json.dumps(body))
        if result.returncode == 0:
            return index, result.stdout
        errors.append(result.stderr.strip())
    raise RuntimeError("no variant applies: " + " | ".join(errors))


def apply_variants(patch, name):
    obj = patch["object"]
    index, _ = first_variant(patch, [obj["kind"].lower(), name, *namespace_args(obj["namespace"])])
    return f"variant {index + 1}"


def create(patch):
    """An object the advice adds (a PriorityClass): applied, then read back whole."""
    document, obj = patch["document"], patch["object"]
    result = kubectl("apply", "-f", "-", stdin=json.dumps(document))
    if result.returncode != 0:
        raise RuntimeError(f"apply {obj['kind']}: {result.stderr.strip()}")
    name = document["metadata"]["name"]
    missing = lost(document, get(obj["kind"], name, obj["namespace"]))
    return [{"step": patch["step"], "kind": obj["kind"], "namespace": obj["namespace"],
             "name": name, "status": "lost " + ", ".join(missing) if missing else "applied",
             "how": "kubectl apply"}]


def stand_ins(patch):
    """The live objects a manifest patch is tried on: those it names, else (pods) at most three of
    those its selection matches."""
    obj, pods = patch["object"], patch.get("pods") or {}
    if obj["names"]:
        return obj["names"]
    if obj["kind"] != "Pod" or not pods.get("match_labels"):
        return []
    selector = ",".join(f"{key}={value}" for key, value in sorted(pods["match_labels"].items()))
    result = kubectl("get", "pods", *namespace_args(pods["namespace"]), "-l", selector, "-o", "name")
    return [line.split("/", 1)[1] for line in result.stdout.split()][:3]


def apply_to_manifests(patch):
    obj = patch["object"]
    kind, ns = obj["kind"], obj["namespace"]
    names = stand_ins(patch)
    if not names:
        return [{"step": patch["step"], "kind": kind, "status": "not applied",
                 "reason": "no live object stands in for the manifest: " + patch["command"]}]
    out = []
    for name in names:
        live = get(kind, name, ns)
        with tempfile.NamedTemporaryFile("w", suffix=".json") as manifest:
            json.dump(live, manifest)
            manifest.flush()
            index, patched = first_variant(patch, ["--local", "-f", manifest.name, "-o", "json"])
        missing = lost(kept_spec(live), kept_spec(json.loads(patched)))
        out.append({"step": patch["step"], "kind": kind, "namespace": ns, "name": name,
                    "status": "lost " + ", ".join(missing) if missing else "applied",
                    "how": f"to its manifest (--local), variant {index + 1}"})
    return out


def apply_patch(patch):
    if patch["type"] == "create":
        return create(patch)
    if "--local" in patch["command"]:
        return apply_to_manifests(patch)
    obj = patch["object"]
    kind, ns, names = obj["kind"], obj["namespace"], obj["names"]
    before = {name: get(kind, name, ns) for name in names}
    commands = runnable_commands(patch)
    how = {}
    for line in commands:
        result = subprocess.run(line.split(), capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"`{line}`: {result.stderr.strip()}")
    for name in names:
        how[name] = "command" if commands else apply_variants(patch, name)
    out = []
    for name in names:
        missing = lost(kept_spec(before[name]), kept_spec(get(kind, name, ns)))
        out.append({"step": patch["step"], "kind": kind, "namespace": ns, "name": name,
                    "status": "lost " + ", ".join(missing) if missing else "applied",
                    "how": how[name]})
    return out


def main():
    recommendation = json.load(open(sys.argv[1]))
    report, failed = [], False
    for patch in sorted(recommendation["patches"], key=lambda p: p["step"]):
        try:
            entries = apply_patch(patch)
        except RuntimeError as error:
            entries = [{"step": patch["step"], "kind": patch["object"]["kind"],
                        "names": patch["object"]["names"], "status": "refused",
                        "reason": str(error)}]
        for entry in entries:
            failed |= entry["status"] not in ("applied", "not applied")
            print(f"step {entry['step']} {entry['kind']} {entry.get('name', '')}: "
                  f"{entry['status']} {entry.get('how', entry.get('reason', ''))}")
        report += entries
    json.dump(report, open(sys.argv[2], "w"), indent=2)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
