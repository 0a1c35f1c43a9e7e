#!/usr/bin/env python3
"""What the real scheduler did to a played workload, beside what dagadvisor predicted for it.

Reads the plan the player played, the player's summaries of the plays before the change and of
those after it (each: when every task's pod was created, bound and ended, as the player saw it),
and the daemon's answer that recommended the change applied between them. Prints, per figure the
prediction gives, the predicted change (the replay's) and the realised one (after − before: the
mean over the plays and its range), and writes them as JSON for the test to judge.

The prediction replays a window (the answer's prediction.window: from the first task pod it saw
created to the analysis' data_time). Every play is measured over a window of that length from
its own first task pod, with the prediction's definitions (src/prediction/prediction.h):
  gpu_pod_pending_seconds  mean wait for a node, up to the window's end, of the GPU pods of the
                           runs begun in the window (a pod created after it: no wait)
  makespan_seconds         mean over the runs begun in the window of first pod created → last
                           pod ended
  gpu_allocation           GPUs held in the window / (the nodes' GPUs × its length)
"""
import argparse
import datetime
import json
import statistics
import sys

GPU = "nvidia.com/gpu"


def quantity(text):
    return float(text or 0)


def gpu_requests(pod):
    return sum(quantity(c.get("resources", {}).get("requests", {}).get(GPU))
               for c in pod["spec"]["containers"])


def plan_facts(plan):
    gpus_of_pod = {}
    for run in plan["runs"]:
        for task in run["tasks"]:
            pod = task["pod"]
            gpus_of_pod[(pod["metadata"]["namespace"], pod["metadata"]["name"])] = gpu_requests(pod)
    capacity = sum(quantity(o.get("status", {}).get("allocatable", {}).get(GPU))
                   for o in plan["objects"] if o.get("kind") == "Node")
    return gpus_of_pod, capacity


def tasks(summary):
    for run in summary["runs"]:
        for task in run["tasks"]:
            if task.get("created_at"):
                yield run, task


def first_created(summary):
    return min(task["created_at"] for _, task in tasks(summary))


def measure(summary, gpus_of_pod, capacity, length):
    start = first_created(summary)
    end = start + length
    begun = [run for run in summary["runs"]
             if any(t.get("created_at", end + 1) <= end for t in run["tasks"])]
    waits, held, makespans = [], 0.0, []
    for run in begun:
        for task in run["tasks"]:
            gpus = gpus_of_pod.get((run["namespace"], task.get("pod")), 0)
            if gpus <= 0 or not task.get("created_at"):
                continue
            bound = task.get("bound_at") or end
            waits.append(max(0.0, min(bound, end) - task["created_at"]))
            if task.get("bound_at"):
                held += gpus * max(0.0, min(task.get("ended_at") or end, end) - task["bound_at"])
        ended = [t.get("ended_at") for t in run["tasks"]]
        if run["outcome"] and all(ended):
            makespans.append(max(ended) - min(t["created_at"] for t in run["tasks"]))
    return {
        "gpu_pod_pending_seconds": statistics.fmean(waits) if waits else 0.0,
        "makespan_seconds": statistics.fmean(makespans) if makespans else None,
        "gpu_allocation": held / (capacity * length) if capacity > 0 else 0.0,
        "runs_begun": len(begun),
        "gpu_pods": len(waits),
    }


FIGURES = ("gpu_pod_pending_seconds", "makespan_seconds", "gpu_allocation")


def realised(befores, afters):
    out = {}
    for figure in FIGURES:
        before = [m[figure] for m in befores if m[figure] is not None]
        after = [m[figure] for m in afters if m[figure] is not None]
        if not before or not after:
            continue
        base = statistics.fmean(before)
        changes = [a - base for a in after]
        out[figure] = {"before": before, "after": after, "change_mean": statistics.fmean(changes),
                       "change_range": [min(changes), max(changes)]}
    return out


def predicted(answer, kind):
    recommendation = next(r for r in answer["recommendations"] if r["kind"] == kind)
    p = recommendation.get("predicted") or {}
    out = {}
    for figure in FIGURES:
        f = p.get(figure)
        if isinstance(f, dict) and f.get("change") is not None:
            out[figure] = {"before": f["before"], "after": f["after"], "change": f["change"],
                           "change_range": f.get("change_range")}
    return out


def unix_seconds(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def table(result):
    lines = [f"{'figure':<25}{'predicted (replay)':>34}   {'realised (real scheduler)':>44}"]
    for figure in FIGURES:
        pred = result["predicted"].get(figure)
        real = result["realised"].get(figure)
        if not real:
            continue
        low, high = real["change_range"]
        predicted_cell = (f"{pred['before']:.3f} → {pred['after']:.3f} ({pred['change']:+.3f})"
                          if pred else "—")
        realised_cell = (f"{statistics.fmean(real['before']):.3f} → "
                         f"{statistics.fmean(real['after']):.3f} ({real['change_mean']:+.3f}, "
                         f"{low:+.3f} … {high:+.3f})")
        lines.append(f"{figure:<25}{predicted_cell:>34}   {realised_cell:>44}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", required=True)
    parser.add_argument("--before", action="append", required=True)
    parser.add_argument("--after", action="append", required=True)
    parser.add_argument("--prediction", required=True,
                        help="the daemon's /api/v1/recommendations answer that predicted")
    parser.add_argument("--kind", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    gpus_of_pod, capacity = plan_facts(json.load(open(args.plan)))
    answer = json.load(open(args.prediction))
    summaries = {side: [json.load(open(path)) for path in getattr(args, side)]
                 for side in ("before", "after")}
    window = answer["prediction"]["window"]
    length = unix_seconds(window["end"]) - unix_seconds(window["start"])
    measured = {side: [measure(s, gpus_of_pod, capacity, length) for s in plays]
                for side, plays in summaries.items()}
    result = {"window_seconds": length, "plays": measured,
              "realised": realised(measured["before"], measured["after"]),
              "predicted": predicted(answer, args.kind)}
    json.dump(result, open(args.out, "w"), indent=2)
    print(f"window: {length:.0f} s from each play's first task pod")
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
