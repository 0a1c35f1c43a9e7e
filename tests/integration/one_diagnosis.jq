# One diagnosis per pending pod (analysis/pending_diagnosis), read from a report: prints one
# line per contradiction, nothing when there is none. Every finding of the three pending-pod
# kinds carries the same counts, which sum to the pending pods; no pod is named by two of those
# kinds; and no advice to pack tighter (MostAllocated) stands beside hoarding.
# Used by detector_sweep_real_prometheus.sh and openb_real_prometheus.sh.
.summary.pending_pods as $pending
| [.findings[] | select(.kind == "gpu-node-hoarding" or .kind == "stranded-resources"
                        or .kind == "capacity-shortfall")] as $mine
| ([$mine[] | .evidence.diagnosis | select(. != null)] | unique) as $counts
| (if ($counts | length) > 1 then "the kinds disagree on the diagnosis: \($counts)" else empty end),
  ($counts[] | select(.queue + .constraints + .hoarding + .fragmentation + .capacity != $pending
                      or .pending_pods != $pending)
   | "classes \(.) do not sum to the \($pending) pending pods"),
  ([$mine[] | .kind as $k
    | ((.evidence.pending_gpu_pods // [])[] | "\(.namespace)/\(.pod)"),
      (.evidence.pods // [])[]
    | {kind: $k, pod: .}] | group_by(.pod)[]
   | select((map(.kind) | unique | length) > 1)
   | "\(.[0].pod) is named by \(map(.kind) | unique | join(" and "))"),
  (if any($mine[]; .kind == "gpu-node-hoarding" and .evidence.hold == "movable") then
     (.recommendations[] | select(.action | contains("MostAllocated"))
      | "\(.kind) advises MostAllocated beside hoarding")
   else empty end)
