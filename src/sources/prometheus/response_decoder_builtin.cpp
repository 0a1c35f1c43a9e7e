// The decoder's walk for simdjson's builtin implementation: the one the build's own target
// always has (fallback, the scalar kernel, on plain x86-64; arm64 on 64-bit ARM). It runs on
// every CPU the binary runs on, and where the CPU has none of the x86 SIMD kernels.

#include <simdjson.h>

#include "sources/prometheus/response_decoder.h"

#define DAGADVISOR_DECODER_ENTRY decodeBuiltin
#include "sources/prometheus/response_decoder_kernel.inl"

namespace dagadvisor::sources::decoder {

std::string_view builtinName() {
  return SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION);
}

}  // namespace dagadvisor::sources::decoder
