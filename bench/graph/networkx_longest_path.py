#!/usr/bin/env python3
"""Times networkx's dag_longest_path on the graph of critical_path_bench.cpp (same generator),
for comparison with BM_CriticalPathAndSlack1MEdges. Not a dependency of the project: run it
by hand where networkx is installed. Usage: networkx_longest_path.py [tasks] [edges]"""
import sys
import time

import networkx as nx

MASK = (1 << 64) - 1


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def random_dag(tasks, edges, seed=42):
    state = seed
    duration = []
    for _ in range(tasks):
        state, r = splitmix64(state)
        duration.append(float(1 + r % 100))
    g = nx.DiGraph()
    g.add_nodes_from(range(tasks))
    for _ in range(edges):
        state, a = splitmix64(state)
        state, b = splitmix64(state)
        a, b = a % tasks, b % tasks
        if a != b:
            u, v = min(a, b), max(a, b)
            # networkx weighs edges: each carries its parent's duration.
            g.add_edge(u, v, w=duration[u])
    # A sink after every task adds the last task's own duration, so the edge-weighted longest
    # path is the node-weighted critical path (its length must equal the C++ `length` counter).
    for u in range(tasks):
        g.add_edge(u, tasks, w=duration[u])
    return g, duration


def main():
    tasks = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    edges = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
    g, duration = random_dag(tasks, edges)
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        path = nx.dag_longest_path(g, weight="w")
        runs.append(time.perf_counter() - start)
    length = sum(duration[u] for u in path[:-1])
    print(f"networkx {nx.__version__}: {g.number_of_edges() - tasks} edges (+{tasks} to the "
          f"sink), dag_longest_path best {min(runs) * 1000:.0f} ms of {len(runs)}, "
          f"path of {len(path) - 1} tasks, length {length:.0f}")


if __name__ == "__main__":
    main()
