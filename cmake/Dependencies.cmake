# Every dependency is a Debian 12 package (scripts/setup.sh installs them); see README "Dependencies".
find_package(prometheus-cpp CONFIG REQUIRED)  # no version: Debian ships no config-version file
find_package(civetweb CONFIG REQUIRED)        # needs the `civetweb` binary package too
find_package(CURL REQUIRED)
find_package(nlohmann_json 3.11 CONFIG REQUIRED)
find_package(cxxopts 3 CONFIG REQUIRED)
find_package(yaml-cpp CONFIG REQUIRED)        # 0.7: plain `yaml-cpp` target
find_package(simdjson CONFIG REQUIRED)
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(GVC REQUIRED IMPORTED_TARGET libgvc)
if(DAGADVISOR_BUILD_TESTS)
  find_package(Catch2 2 CONFIG REQUIRED)      # Debian 12 ships Catch2 v2 only
  include(Catch)
endif()
if(DAGADVISOR_BUILD_BENCHMARKS)
  find_package(benchmark CONFIG REQUIRED)
endif()
