#pragma once

// Internal to the Prometheus response decoder: the kernels of response_decoder_kernel.inl and
// what they share with response_parser.cpp. Must not include <simdjson.h>: each kernel's
// translation unit includes it itself, after choosing simdjson's builtin implementation.
//
// Everything a kernel uses from the standard library is included here, before a kernel opens
// its target region, so that the standard library's inline functions and templates a kernel
// instantiates are compiled for the build's baseline target like everywhere else in the binary
// (the linker keeps one copy of each; an AVX2 copy would break CPUs without AVX2).

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cfloat>
#include <charconv>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <ranges>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/result.h"
#include "sources/prometheus/response_parser.h"

// The x86 SIMD kernels need GCC's or clang's target regions.
#if (defined(__x86_64__) || defined(_M_AMD64)) && (defined(__GNUC__) || defined(__clang__))
#define DAGADVISOR_DECODER_X86_KERNELS 1
#else
#define DAGADVISOR_DECODER_X86_KERNELS 0
#endif

namespace dagadvisor::sources::decoder {

/// A kernel's decode: `padded` says SIMDJSON_PADDING readable bytes follow the body.
using DecodeFn = Result<DecodeSummary> (*)(std::string_view body, bool padded,
                                           const SampleVisitor& visit, const DecodeLimits& limits);

// One per kernel (response_decoder_<kernel>.cpp). The x86 SIMD kernels exist only on x86-64
// builds; `builtin` is the walk compiled for the build's own target (fallback on plain x86-64).
Result<DecodeSummary> decodeBuiltin(std::string_view body, bool padded, const SampleVisitor& visit,
                                    const DecodeLimits& limits);
Result<DecodeSummary> decodeWestmere(std::string_view body, bool padded, const SampleVisitor& visit,
                                     const DecodeLimits& limits);
Result<DecodeSummary> decodeHaswell(std::string_view body, bool padded, const SampleVisitor& visit,
                                    const DecodeLimits& limits);
Result<DecodeSummary> decodeIcelake(std::string_view body, bool padded, const SampleVisitor& visit,
                                    const DecodeLimits& limits);

/// The name of the builtin kernel ("fallback" unless the build targets a SIMD baseline).
std::string_view builtinName();

// Shared by every kernel and compiled once, for the baseline target (response_parser.cpp).

/// The Error at "$" for simdjson's `code` (a simdjson::error_code): "malformed JSON: <simdjson's
/// message>", except an allocation failure, which is named as such: the answer may be valid, the
/// process out of memory.
Error jsonFault(int code);

/// The Error to report for `fault`: malformed JSON anywhere in the body wins (validated by a
/// full DOM parse, which only faults pay for).
Error explain(std::string_view body, bool padded, Error fault);

}  // namespace dagadvisor::sources::decoder
