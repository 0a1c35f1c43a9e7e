#pragma once

#include "report/analysis_report.h"

namespace dagadvisor::app {

/// How the daemon keeps glibc's heap across cycles. One malloc arena for every thread; call it
/// before any thread starts. The answers grow on the fetch threads, and malloc_trim cannot shrink
/// the top of a thread's arena: up to 64 MiB per arena stayed held after a 300 MiB answer (90 MiB
/// RSS against a 25 MiB baseline; 26 MiB with one arena). Each thread arena also reserves 64 MiB
/// of address space that `ulimit -v` counts (virtual peak 1.6 GB → 0.66 GB). The threads allocate
/// little besides the answers: the cycle decodes and builds on one thread, so they rarely contend.
void useOneHeapArena();

/// After a cycle (`report`: what it returned, or null for a failed one): the pages it freed go
/// back to the system after a full read, whose ~250 MB of answers at the reference size would
/// otherwise stay held until the next one. After a window read they are kept for the next cycle:
/// at the reference size, faulting them in again cost each window cycle ~0.3 s of CPU (0.72-0.94 s
/// against 0.45-0.54 s) and lowered no cycle's peak (docs/performance.md).
void releaseHeapAfter(const report::AnalysisReport* report);

/// Whether releaseHeapAfter keeps the freed pages after `report`: after a window read only.
bool keepsHeapAfter(const report::AnalysisReport* report);

}  // namespace dagadvisor::app
