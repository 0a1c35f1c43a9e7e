// The decoder's walk for simdjson's icelake kernel: AVX-512 with VBMI2 (2019 Ice Lake or later, AMD
// Zen 4). response_parser.cpp calls it only when simdjson's runtime dispatch chose icelake for this
// CPU. The target region covers <simdjson.h> (its icelake On-Demand code) and the walk, and nothing
// response_decoder.h included before it; its target string is simdjson's SIMDJSON_TARGET_ICELAKE.

#include "sources/prometheus/response_decoder.h"

#if DAGADVISOR_DECODER_X86_KERNELS

#define SIMDJSON_BUILTIN_IMPLEMENTATION icelake
// Inline, not always-inline: the default constructor of On-Demand's field (a std::pair) is
// compiled for the baseline target like every standard template, and GCC refuses to force a
// call into code of a wider target. Left to GCC's heuristics the walk ran 2x slower than the
// fallback kernel's, so the per-sample walk (Walk::vector) is flattened instead.
#define simdjson_inline inline
#define DAGADVISOR_DECODER_HOT [[gnu::flatten]]
#define DAGADVISOR_DECODER_ENTRY decodeIcelake

#if defined(__clang__)
#pragma clang attribute push(                                                                          \
    __attribute__((target(                                                                             \
        "avx512f,avx512dq,avx512cd,avx512bw,avx512vbmi,avx512vbmi2,avx512vl,avx2,bmi,pclmul,lzcnt"))), \
    apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target( \
    "avx512f,avx512dq,avx512cd,avx512bw,avx512vbmi,avx512vbmi2,avx512vl,avx2,bmi,pclmul,lzcnt")
#endif

#include <simdjson.h>

#include "sources/prometheus/response_decoder_kernel.inl"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // DAGADVISOR_DECODER_X86_KERNELS
