#!/usr/bin/env python3
"""Checks what `kubectl kustomize` built from config/kubernetes/base or an overlay.

    kustomize_expect.py base|overlay BUILT.yaml REPO WORK_DIR

Both: the base's objects are all there, once each; the PrometheusRule carries exactly the groups of
alerts/dagadvisor.rules.yml (written to WORK_DIR/prometheusrule.rules.yml for promtool) and its
ConfigMap's dagadvisor.yaml to WORK_DIR/configmap.yaml (for dagadvisor check-config).
overlay: every namespaced object and the ClusterRoleBinding's subject moved to the overlay's
namespace, the image is pinned, the config names a Prometheus and the mounted web config, the
web-config Secret holds a bcrypt hash that the scrape Secret's password matches, and the
ServiceMonitor scrapes its own namespace with those credentials.
Exit 0 when all hold, 1 with one line per problem.
"""
import base64
import crypt
import pathlib
import sys

import yaml

BASE_OBJECTS = {("ServiceAccount", "dagadvisor"), ("ClusterRole", "dagadvisor-read"),
                ("ClusterRoleBinding", "dagadvisor-read"), ("ConfigMap", "dagadvisor"),
                ("Deployment", "dagadvisor"), ("Service", "dagadvisor"),
                ("ServiceMonitor", "dagadvisor"), ("PrometheusRule", "dagadvisor-rules")}
CLUSTER_SCOPED = {"ClusterRole", "ClusterRoleBinding"}


def secret_value(secret, key):
    if key in secret.get("stringData", {}):
        return secret["stringData"][key]
    return base64.b64decode(secret["data"][key]).decode()


def main(mode, built, repo, work):
    problems = []
    docs = [d for d in yaml.safe_load_all(built.read_text()) if d]
    objects = {}
    for d in docs:
        key = (d["kind"], d["metadata"]["name"])
        if key in objects:
            problems.append(f"{key} appears twice")
        objects[key] = d
    missing = BASE_OBJECTS - set(objects)
    if missing:
        problems.append(f"missing objects: {sorted(missing)}")
        return problems

    rule_file = yaml.safe_load((repo / "alerts/dagadvisor.rules.yml").read_text())
    rule = objects[("PrometheusRule", "dagadvisor-rules")]
    if rule["spec"]["groups"] != rule_file["groups"]:
        problems.append("PrometheusRule groups differ from alerts/dagadvisor.rules.yml")
    work.mkdir(parents=True, exist_ok=True)
    (work / "prometheusrule.rules.yml").write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}))
    configmap = objects[("ConfigMap", "dagadvisor")]
    (work / "configmap.yaml").write_text(yaml.safe_dump(configmap))
    config = yaml.safe_load(configmap["data"]["dagadvisor.yaml"])

    if mode == "base":
        for d in docs:
            if d["kind"] not in CLUSTER_SCOPED and d["metadata"].get("namespace") != "monitoring":
                problems.append(f"{d['kind']}/{d['metadata']['name']}: base namespace must be monitoring")
        return problems

    namespaced = [d for d in docs if d["kind"] not in CLUSTER_SCOPED]
    namespaces = {d["metadata"].get("namespace") for d in namespaced}
    if len(namespaces) != 1 or namespaces == {"monitoring"} or None in namespaces:
        problems.append(f"overlay objects must all move to one new namespace, got {namespaces}")
    ns = next(iter(namespaces))
    subjects = objects[("ClusterRoleBinding", "dagadvisor-read")]["subjects"]
    if [s.get("namespace") for s in subjects] != [ns]:
        problems.append(f"ClusterRoleBinding subject namespace {subjects} is not {ns}")

    pod = objects[("Deployment", "dagadvisor")]["spec"]["template"]["spec"]
    container = pod["containers"][0]
    if container["image"] in ("dagadvisor:latest", "dagadvisor") or ":" not in container["image"]:
        problems.append(f"image {container['image']!r} is not pinned by the overlay")
    if config["sources"]["prometheus"]["url"] == "http://prometheus-operated.monitoring.svc:9090":
        problems.append("the overlay keeps the base's Prometheus URL")

    web_path = config.get("server", {}).get("web_config_file", "")
    mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    web_volume = next((n for n, v in volumes.items() if "secret" in v), None)
    if not web_volume or web_volume not in mounts:
        problems.append("no Secret volume mounted into the container")
        return problems
    secret_name = volumes[web_volume]["secret"]["secretName"]
    secret = objects.get(("Secret", secret_name))
    if secret is None:
        problems.append(f"Secret {secret_name} (the mounted web config) is not in the output")
        return problems
    file_name = pathlib.PurePosixPath(web_path).name
    if pathlib.PurePosixPath(web_path).parent != pathlib.PurePosixPath(mounts[web_volume]) or \
            file_name not in {**secret.get("data", {}), **secret.get("stringData", {})}:
        problems.append(f"server.web_config_file {web_path!r} is not a key of Secret {secret_name} "
                        f"mounted at {mounts[web_volume]}")
        return problems
    web = yaml.safe_load(secret_value(secret, file_name))
    (work / "web-config.yml").write_text(yaml.safe_dump(web))
    users = web.get("basic_auth_users") or {}
    if not users or not all(h.startswith(("$2a$", "$2b$", "$2y$")) for h in users.values()):
        problems.append(f"web config has no bcrypt basic_auth_users: {users}")

    monitor = objects[("ServiceMonitor", "dagadvisor")]["spec"]
    if monitor["namespaceSelector"].get("matchNames") != [ns]:
        problems.append(f"ServiceMonitor selects {monitor['namespaceSelector']}, not namespace {ns}")
    for endpoint in monitor["endpoints"]:
        auth = endpoint.get("basicAuth")
        if not auth:
            problems.append("ServiceMonitor endpoint scrapes without basicAuth")
            continue
        scrape = objects.get(("Secret", auth["username"]["name"]))
        if scrape is None or auth["password"]["name"] != auth["username"]["name"]:
            problems.append(f"ServiceMonitor's basicAuth Secret {auth['username']['name']} is not in the output")
            continue
        user = secret_value(scrape, auth["username"]["key"])
        password = secret_value(scrape, auth["password"]["key"])
        if user not in users or crypt.crypt(password, users[user]) != users[user]:
            problems.append(f"the scrape password of {user!r} does not match its hash in the web config")
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in {"base", "overlay"}:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    found = main(sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4]))
    for p in found:
        print("FAIL: " + p, file=sys.stderr)
    print(f"kustomize {sys.argv[1]}: {len(found)} problem(s)")
    sys.exit(1 if found else 0)
