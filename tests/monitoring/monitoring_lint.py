#!/usr/bin/env python3
"""Checks the dashboards and rule files against promtool, the daemon's metric catalog and the
data contract, and against the conventions of alerts/ and dashboards/.

    monitoring_lint.py drift REPO WORK_DIR     every PromQL expression parses (promtool check rules
                                               on a generated rule file) and names only known metrics
    monitoring_lint.py conventions REPO        alerts: for, severity, summary, description, runbook
                                               anchor; dashboards: uid, tag, datasource variable,
                                               units, $__rate_interval
Exit code 0 when clean, 1 with one line per problem on stderr.
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

import yaml

# Grafana's variables, replaced by values that PromQL accepts.
GRAFANA_VARS = {
    "$__rate_interval": "1m", "${__rate_interval}": "1m", "$__interval": "1m", "$__range": "1h",
    "${cluster}": ".*", "$cluster": ".*", "${dag}": ".*", "$dag": ".*",
}
KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left",
            "group_right", "inf", "nan", "start", "end"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
# Series that every Prometheus has.
BUILTIN = {"up", "ALERTS", "ALERTS_FOR_STATE"}


def substitute(expr):
    for var, value in GRAFANA_VARS.items():
        expr = expr.replace(var, value)
    return expr


def walk_panels(panels):
    for p in panels:
        yield p
        yield from walk_panels(p.get("panels", []))


def dashboard_exprs(repo):
    """(where, expr) for every panel target and every query variable of every dashboard."""
    for path in sorted((repo / "dashboards").glob("*.json")):
        board = json.loads(path.read_text())
        for p in walk_panels(board.get("panels", [])):
            for t in p.get("targets", []):
                if t.get("expr"):
                    yield f"{path.name}: panel {p.get('title')!r} {t.get('refId')}", t["expr"]
        for v in board.get("templating", {}).get("list", []):
            if v.get("type") == "query":
                q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
                m = re.fullmatch(r"label_values\((.*),\s*\w+\)", q.strip())
                yield f"{path.name}: variable {v['name']}", m.group(1) if m else q


def rule_files(repo):
    return sorted((repo / "alerts").glob("*.rules.yml"))


def rules(repo):
    for path in rule_files(repo):
        for group in yaml.safe_load(path.read_text())["groups"]:
            for rule in group["rules"]:
                yield path.name, rule


def rule_exprs(repo):
    for name, rule in rules(repo):
        yield f"{name}: {rule.get('alert') or rule.get('record')}", rule["expr"]


def metric_names(expr):
    """The metric names an expression selects (a small PromQL tokenizer, enough for our files)."""
    s = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    s = re.sub(r"\{[^}]*\}", " ", s)
    s = re.sub(r"\[[^\]]*\]", " ", s)
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", s)
    names = set()
    for m in re.finditer(r"(?<![\w.])([A-Za-z_:][\w:]*)(?!\w)(\s*\()?", s):
        if m.group(2) is None and m.group(1) not in KEYWORDS:
            names.add(m.group(1))
    return names


def exported_metrics(repo):
    """The daemon's metric names: docs/metrics.md when it exists, else the catalog's source."""
    doc = repo / "docs" / "metrics.md"
    if doc.exists():
        return set(re.findall(r"^\|\s*`(dagadvisor_\w+)`", doc.read_text(), re.M))
    return set(re.findall(r'"(dagadvisor_\w+)"', (repo / "src/exporter/metric_catalog.cpp").read_text()))


def contract_metrics(repo, here):
    """The metrics dagadvisor consumes: the example config's metric names plus SPEC §2's list."""
    names = set()

    def collect(node):
        if isinstance(node, dict):
            for v in node.values():
                collect(v)
        elif isinstance(node, list):
            for v in node:
                collect(v)
        elif isinstance(node, str) and re.fullmatch(r"[A-Za-z_:][\w:]*", node):
            names.add(node)

    example = yaml.safe_load((repo / "config/dagadvisor.example.yaml").read_text())
    collect(example.get("sources", {}).get("prometheus", {}).get("metrics", {}))
    for line in (here / "contract_metrics.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            names.add(line.strip())
    return names


def recorded(repo):
    return {rule["record"] for _, rule in rules(repo) if "record" in rule}


def unknown_metrics(exprs, allowed):
    problems = []
    for where, expr in exprs:
        for name in sorted(metric_names(substitute(expr))):
            base = next((name[: -len(s)] for s in HISTOGRAM_SUFFIXES if name.endswith(s)), name)
            if name not in allowed and base not in allowed:
                problems.append(f"{where}: metric {name} is neither exported by the daemon, in the data "
                                f"contract, nor recorded by alerts/")
    return problems


def promtool_parse(exprs, work_dir):
    """Writes every expression as a recording rule and runs promtool check rules on the file."""
    work_dir.mkdir(parents=True, exist_ok=True)
    listed = list(exprs)
    doc = {"groups": [{"name": "drift", "rules": [
        {"record": f"drift:expr_{i}", "expr": substitute(e)} for i, (_, e) in enumerate(listed)]}]}
    path = work_dir / "all_expressions.rules.yml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    proc = subprocess.run(["promtool", "check", "rules", str(path)], capture_output=True, text=True)
    if proc.returncode == 0:
        return []
    text = proc.stdout + proc.stderr
    problems = []
    for i, (where, expr) in enumerate(listed):
        if f"drift:expr_{i}\"" in text or f"drift:expr_{i} " in text or f"expr_{i}:" in text:
            problems.append(f"{where}: does not parse: {expr}")
    return problems or [f"promtool check rules {path} failed:\n{text}"]


def drift(repo, work_dir, here):
    exprs = list(dashboard_exprs(repo)) + list(rule_exprs(repo))
    allowed = exported_metrics(repo) | contract_metrics(repo, here) | recorded(repo) | BUILTIN
    problems = promtool_parse(exprs, work_dir) + unknown_metrics(exprs, allowed)
    print(f"drift: {len(exprs)} expressions, {len(allowed)} known metric names")
    return problems


def runbook_anchors(repo):
    text = (repo / "alerts" / "runbook.md").read_text()
    return {re.sub(r"[^a-z0-9 -]", "", h.strip().lower()).replace(" ", "-") for h in re.findall(r"^#+ (.*)$", text, re.M)}


def alert_conventions(repo):
    problems = []
    anchors = runbook_anchors(repo)
    for name, rule in rules(repo):
        if "alert" not in rule:
            continue
        where = f"{name}: {rule['alert']}"
        if not rule.get("for"):
            problems.append(f"{where}: no for:")
        if rule.get("labels", {}).get("severity") not in {"critical", "warning", "info"}:
            problems.append(f"{where}: severity label must be critical, warning or info")
        ann = rule.get("annotations", {})
        for key in ("summary", "description", "runbook_url"):
            if not ann.get(key):
                problems.append(f"{where}: no {key} annotation")
        anchor = ann.get("runbook_url", "").partition("#")[2]
        if "alerts/runbook.md#" not in ann.get("runbook_url", "") or anchor not in anchors:
            problems.append(f"{where}: runbook_url must point at a section of alerts/runbook.md")
    return problems


def dashboard_conventions(repo):
    problems, uids = [], set()
    for path in sorted((repo / "dashboards").glob("*.json")):
        board = json.loads(path.read_text())
        where = path.name
        uid = board.get("uid", "")
        if not re.fullmatch(r"dagadvisor-[a-z-]+", uid) or uid in uids:
            problems.append(f"{where}: uid {uid!r} must be unique and start with dagadvisor-")
        uids.add(uid)
        if "dagadvisor" not in board.get("tags", []):
            problems.append(f"{where}: missing the dagadvisor tag")
        variables = {v["name"]: v for v in board.get("templating", {}).get("list", [])}
        if variables.get("datasource", {}).get("type") != "datasource":
            problems.append(f"{where}: no datasource template variable")
        if not any(link.get("type") == "dashboards" for link in board.get("links", [])) or not any(
                link.get("url", "").endswith("}/") for link in board.get("links", [])):
            problems.append(f"{where}: needs links to the other dashboards and to the daemon's page")
        for p in walk_panels(board.get("panels", [])):
            pw = f"{where}: panel {p.get('title')!r}"
            if p.get("type") in {"text", "row"}:
                continue
            sources = [p.get("datasource")] + [t.get("datasource") for t in p.get("targets", [])]
            if any(s != {"type": "prometheus", "uid": "${datasource}"} for s in sources):
                problems.append(f"{pw}: datasource must be the ${{datasource}} variable")
            if not p.get("fieldConfig", {}).get("defaults", {}).get("unit"):
                problems.append(f"{pw}: no unit")
            for t in p.get("targets", []):
                if re.search(r"\[\d+[smhdw]\]", t.get("expr", "")):
                    problems.append(f"{pw}: use $__rate_interval instead of a fixed range")
    return problems


def main(argv):
    here = pathlib.Path(__file__).resolve().parent
    if len(argv) < 2 or argv[0] not in {"drift", "conventions"}:
        print(__doc__, file=sys.stderr)
        return 2
    repo = pathlib.Path(argv[1]).resolve()
    if argv[0] == "drift":
        work_dir = pathlib.Path(argv[2]) if len(argv) > 2 else pathlib.Path(tempfile.mkdtemp())
        problems = drift(repo, work_dir, here)
    else:
        problems = alert_conventions(repo) + dashboard_conventions(repo)
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    print(f"{argv[0]}: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
