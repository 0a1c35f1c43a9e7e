#!/usr/bin/env python3
"""Applies a recommendation's patches to the live objects of a cluster the way dagadvisor tells a
user to: in step order; a patch whose command is complete kubectl commands (kubectl taint, ...) by
running them, the others with `kubectl patch` of each named object, trying the JSON-patch variants
in order until one applies. Each object is read back from the API server before and after: a
patch that the API server refuses, or that loses anything the object held, is a failure.

Usage: apply_patches.py RECOMMENDATION_JSON REPORT_JSON
Prints one line per object; exits 1 when a patch failed or lost something.
"""
import json
import subprocess
import sys

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
    template generation, is not a loss)."""
    if isinstance(before, dict):
        if not isinstance(after, dict):
            return [path or "/"]
        out = []
        for key, value in before.items():
            if path == "/metadata" and key in VOLATILE:
                continue
            if key not in after:
                out.append(f"{path}/{key}")
            else:
                out += lost(value, after[key], f"{path}/{key}")
        return out
    if isinstance(before, list):
        if not isinstance(after, list):
            return [path]
        return [f"{path}[{i}]" for i, item in enumerate(before) if item not in after]
    return []


def kept_spec(obj):
    """What a patch must keep: metadata (labels, annotations, owners) and spec; not status."""
    return {key: obj[key] for key in ("metadata", "spec") if key in obj}


def runnable_commands(patch):
    lines = [line for line in patch.get("command", "").splitlines() if line.strip()]
    if lines and all(line.startswith("kubectl ") and "<" not in line for line in lines):
        return lines
    return []


def apply_variants(patch, name):
    obj = patch["object"]
    if patch["type"] == "strategic-merge":
        candidates = [("strategic", patch["document"])]
    elif patch["type"] == "json":
        candidates = [("json", variant) for variant in patch["variants"]]
    else:
        raise RuntimeError(f"patch type {patch['type']} is not applied to live objects")
    errors = []
    for index, (kind, body) in enumerate(candidates):
        result = kubectl("patch", obj["kind"].lower(), name, *namespace_args(obj["namespace"]),
                         f"--type={kind}", "-p", json.dumps(body))
        if result.returncode == 0:
            return f"variant {index + 1}"
        errors.append(result.stderr.strip())
    raise RuntimeError("no variant applies: " + " | ".join(errors))


def apply_patch(patch):
    obj = patch["object"]
    kind, ns, names = obj["kind"], obj["namespace"], obj["names"]
    if not names:
        return [{"step": patch["step"], "kind": kind, "status": "not applied",
                 "reason": "defined outside the cluster (a manifest): " + patch["command"]}]
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
