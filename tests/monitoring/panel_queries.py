#!/usr/bin/env python3
"""Lists every dashboard panel query with the scenario it is verified on, for monitoring_e2e.sh.

    panel_queries.py REPO panel_scenarios.json   → lines "scenario<TAB>where<TAB>PromQL"
Grafana variables are replaced ($cluster by the scenario's cluster name). Exits 1 when a
dashboard or panel has no scenario, or the map names a panel that no longer exists.
"""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import monitoring_lint as lint  # noqa: E402


def main(repo, mapping_path):
    mapping = json.loads(pathlib.Path(mapping_path).read_text())
    problems = []
    for path in sorted((pathlib.Path(repo) / "dashboards").glob("*.json")):
        board = json.loads(path.read_text())
        entry = mapping.get(path.name)
        if entry is None:
            problems.append(f"{path.name}: no scenario in {mapping_path}")
            continue
        overrides = dict(entry.get("panels", {}))
        for p in lint.walk_panels(board.get("panels", [])):
            scenario = overrides.pop(p.get("title"), entry["default"])
            for t in p.get("targets", []):
                expr = t["expr"].replace("$cluster", scenario).replace("${cluster}", scenario)
                where = f"{path.name}: {p['title']} {t['refId']}"
                print(f"{scenario}\t{where}\t{' '.join(lint.substitute(expr).split())}")
        problems += [f"{path.name}: no panel titled {title!r}" for title in overrides]
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
