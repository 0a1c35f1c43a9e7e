# DAGADVISOR_SANITIZE=ON (or address) builds everything (ours, not the system libraries) with
# ASan + UBSan; DAGADVISOR_SANITIZE=thread with TSan (scripts/tsan.sh), which cannot be combined
# with ASan. DAGADVISOR_FUZZ=ON instruments everything for libFuzzer (tests/fuzz/CMakeLists.txt
# links the fuzzer's main into the targets only).
string(TOLOWER "${DAGADVISOR_SANITIZE}" _dagadvisor_sanitize)
if(_dagadvisor_sanitize STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(_dagadvisor_sanitize MATCHES "^(on|address|yes|true|1)$")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
elseif(NOT _dagadvisor_sanitize MATCHES "^(off|no|false|0|)$")
  message(FATAL_ERROR "DAGADVISOR_SANITIZE must be OFF, ON/address or thread, not ${DAGADVISOR_SANITIZE}")
endif()

if(DAGADVISOR_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "DAGADVISOR_FUZZ needs clang (libFuzzer): configure with "
                        "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++")
  endif()
  if(NOT _dagadvisor_sanitize MATCHES "^(off|no|false|0|)$")
    message(FATAL_ERROR "DAGADVISOR_FUZZ brings its own sanitizers: leave DAGADVISOR_SANITIZE OFF")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
