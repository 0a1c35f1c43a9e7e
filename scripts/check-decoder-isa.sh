#!/usr/bin/env bash
# Checks that a dagadvisor binary runs on a CPU without AVX2 or SSE4: instructions beyond the
# x86-64 baseline (VEX-encoded, BMI/LZCNT, SSSE3/SSE4, CLMUL) may appear only in the JSON decoder's
# SIMD kernels (src/sources/prometheus/response_decoder_{westmere,haswell,icelake}.cpp), which
# run only when simdjson's runtime dispatch chose them. A hit elsewhere means a kernel's code
# leaked into shared code (e.g. a standard template instantiated inside a target region).
# Functions with internal linkage (an anonymous namespace) are exempt: each translation unit has
# its own copy, so one with SIMD instructions was compiled in a kernel and is reached only from it
# (at -O0 simdjson's internal helpers are emitted out of line there).
# tzcnt is not flagged: GCC emits it (rep bsf) for the baseline, where it runs as bsf.
# Usage: scripts/check-decoder-isa.sh [BINARY]   (default build-rel/src/dagadvisor)
set -euo pipefail
BINARY=${1:-build-rel/src/dagadvisor}
objdump -d --no-show-raw-insn -C "$BINARY" | python3 -c '
import re, sys
simd = re.compile(r"\t(v[a-z0-9]+ |andn |blsr |blsi |blsmsk |lzcnt |pdep |pext |shlx |sarx |shrx |bzhi |"
                  r"pshufb |palignr |pcmp[ei]str[im] |ptest |pblendvb |pmovmsk.* %ymm|crc32|pclmul)|%[yz]mm")
kernel = re.compile(r"\(anonymous namespace\)|simdjson::(haswell|icelake|westmere)::|simdjson::simdjson_result<simdjson::(haswell|icelake|westmere)::|"
                    r"dagadvisor::sources::decoder::(\(anonymous namespace\)|decode(Haswell|Icelake|Westmere)\()")
current, kernels, leaks = None, set(), {}
for line in sys.stdin:
    head = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
    if head:
        current = head.group(1)
        continue
    if current and simd.search(line):
        if kernel.search(current):
            kernels.add(current)
        else:
            leaks[current] = leaks.get(current, 0) + 1
for name, count in sorted(leaks.items()):
    print(f"beyond-baseline instructions outside a decoder kernel ({count}): {name[:200]}")
print(f"{len(kernels)} kernel functions use SIMD instructions, {len(leaks)} other functions do")
sys.exit(1 if leaks else 0)
'
