# A module is one folder of src/ built as one static library. Its link list is the data flow:
# a module may only link the stages before it, so the build itself refuses a stage that reaches back.
function(dagadvisor_module name)
  cmake_parse_arguments(ARG "" "" "DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  if(NOT sources)  # a stage that is headers only so far
    add_library(dagadvisor_${name} INTERFACE)
    target_include_directories(dagadvisor_${name} INTERFACE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(dagadvisor_${name} INTERFACE ${ARG_DEPS})
    return()
  endif()
  add_library(dagadvisor_${name} STATIC ${sources})
  target_include_directories(dagadvisor_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(dagadvisor_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  dagadvisor_set_warnings(dagadvisor_${name})
  # Most of a module's build is its files each parsing the same headers (nlohmann_json through
  # the analysis headers) and instantiating the same templates again: compiled in batches of 8 the
  # modules build in about a third of the CPU time. A file whose file-scope names (anonymous
  # namespace, static) clash with another file of its module, or that must be compiled alone
  # (its own target pragmas), is listed with SKIP_UNITY_BUILD_INCLUSION in its CMakeLists.txt.
  set_target_properties(dagadvisor_${name} PROPERTIES UNITY_BUILD ${DAGADVISOR_UNITY_MODULES}
                                                      UNITY_BUILD_BATCH_SIZE 8)
endfunction()

# One Catch2 test binary per module: tests/unit/<module>/*_test.cpp.
function(dagadvisor_unit_tests module)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${module}/*_test.cpp)
  if(NOT tests)
    return()
  endif()
  set(target unit_${module})
  add_executable(${target} ${tests})
  # Every test file parses Catch2 and nlohmann_json and instantiates the same assertion templates;
  # compiled in batches the unit tests build in less than half the CPU time. Helpers in a test
  # file's anonymous namespace therefore need names unique within its folder.
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${DAGADVISOR_UNITY_TESTS}
                                             UNITY_BUILD_BATCH_SIZE 8)
  target_link_libraries(${target} PRIVATE dagadvisor_${module} dagadvisor_test_support ${ARG_DEPS})
  dagadvisor_set_warnings(${target})
  catch_discover_tests(${target}
    TEST_PREFIX "${module}: "
    PROPERTIES LABELS unit ENVIRONMENT "${DAGADVISOR_TEST_ENV}")
endfunction()
