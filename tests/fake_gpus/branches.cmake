# One fake libcuda, libnvidia-ml and libnccl per driver branch an operator runs, each exporting
# exactly that branch's symbols (tests/fake_gpus/branch_symbols.txt) through a linker version
# script, and one ctest per branch (unit.driver_branch.<branch>) running the FakeBranch* tests
# against them: the GPU paths on R535, R550, R570 and R580.
#
# Per branch the sources are compiled with YS_FAKE_BRANCH=<number> (535, ...), which sets what
# the fakes report: the CUDA version of cuDriverGetVersion, NVML's driver version, NCCL's version.
set(YS_DRIVER_BRANCHES R535 R550 R570 R580)
file(STRINGS ${CMAKE_SOURCE_DIR}/tests/fake_gpus/branch_symbols.txt _ys_symbol_lines
     REGEX "^[a-z]+ [A-Za-z_0-9]+ R[0-9]+$")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                                       ${CMAKE_SOURCE_DIR}/tests/fake_gpus/branch_symbols.txt)

# ys_fake_version_script(<out var> <library> <branch>): writes the version script of <library>
# (cuda, nvml, nccl) for <branch> and returns its path.
function(ys_fake_version_script out library branch)
  string(SUBSTRING ${branch} 1 -1 branch_number)
  set(globals "")
  foreach(line IN LISTS _ys_symbol_lines)
    string(REPLACE " " ";" fields "${line}")
    list(GET fields 0 lib)
    list(GET fields 1 symbol)
    list(GET fields 2 first)
    string(SUBSTRING ${first} 1 -1 first_number)
    if(lib STREQUAL library AND NOT first_number GREATER branch_number)
      string(APPEND globals "    ${symbol};\n")
    endif()
  endforeach()
  set(path ${CMAKE_BINARY_DIR}/fake_branches/${library}_${branch}.map)
  file(WRITE ${path}.tmp "{\n  global:\n${globals}  local: *;\n};\n")
  file(COPY_FILE ${path}.tmp ${path} ONLY_IF_DIFFERENT)
  set(${out} ${path} PARENT_SCOPE)
endfunction()

# ys_fake_branch_library(<library> <branch> <source> <include dirs>...)
function(ys_fake_branch_library library branch source)
  string(TOLOWER ${branch} lower)
  string(SUBSTRING ${branch} 1 -1 branch_number)
  set(target ys_fake_${library}_${lower})
  ys_fake_version_script(map ${library} ${branch})
  add_library(${target} MODULE ${source})
  target_include_directories(${target} SYSTEM PRIVATE ${ARGN})
  target_compile_definitions(${target} PRIVATE YS_FAKE_BRANCH=${branch_number})
  target_link_options(${target} PRIVATE "-Wl,--version-script=${map}")
  set_target_properties(${target} PROPERTIES LINK_DEPENDS ${map})
endfunction()

set(_ys_branch_targets "")
foreach(branch IN LISTS YS_DRIVER_BRANCHES)
  string(TOLOWER ${branch} lower)
  ys_fake_branch_library(cuda ${branch} tests/fake_gpus/fake_cuda.cc ${YS_CUDA_INCLUDE_DIR})
  ys_fake_branch_library(nccl ${branch} tests/fake_gpus/fake_nccl.cc ${YS_CUDA_INCLUDE_DIR})
  ys_fake_branch_library(nvml ${branch} tests/fake_nvml/fake_nvml.cc ${CMAKE_SOURCE_DIR}/src
                         ${CMAKE_BINARY_DIR}/generated)
  list(APPEND _ys_branch_targets ys_fake_cuda_${lower} ys_fake_nccl_${lower} ys_fake_nvml_${lower})
endforeach()
