// The decoder's walk for simdjson's westmere kernel: SSE4.2 and CLMUL (2010 Westmere or later).
// response_parser.cpp calls it only when simdjson's runtime dispatch chose westmere for this CPU.
// The target region covers <simdjson.h> (its westmere On-Demand code) and the walk, and nothing
// response_decoder.h included before it; its target string is simdjson's SIMDJSON_TARGET_WESTMERE.

#include "sources/prometheus/response_decoder.h"

#if DAGADVISOR_DECODER_X86_KERNELS

#define SIMDJSON_BUILTIN_IMPLEMENTATION westmere
// Inline, not always-inline: the default constructor of On-Demand's field (a std::pair) is
// compiled for the baseline target like every standard template, and GCC refuses to force a
// call into code of a wider target. Left to GCC's heuristics the walk ran 2x slower than the
// fallback kernel's, so the per-sample walk (Walk::vector) is flattened instead.
#define simdjson_inline inline
#define DAGADVISOR_DECODER_HOT [[gnu::flatten]]
#define DAGADVISOR_DECODER_ENTRY decodeWestmere

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("sse4.2,pclmul"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("sse4.2,pclmul")
#endif

#include <simdjson.h>

#include "sources/prometheus/response_decoder_kernel.inl"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // DAGADVISOR_DECODER_X86_KERNELS
