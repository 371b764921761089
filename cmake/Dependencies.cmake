# Third-party libraries, all from Debian packages (see .ci/install-deps).
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(nlohmann_json 3 REQUIRED)
find_package(Threads REQUIRED)

if(ROBUSTFIT_STATIC_DEPS)
  set(Boost_USE_STATIC_LIBS ON)
endif()
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)

# fast_float is header-only; Debian ships the header without a CMake package.
find_path(FAST_FLOAT_INCLUDE_DIR fast_float/fast_float.h REQUIRED)
add_library(robustfit_fast_float INTERFACE)
target_include_directories(robustfit_fast_float SYSTEM INTERFACE ${FAST_FLOAT_INCLUDE_DIR})

# Warnings for our own host code.
add_library(robustfit_warnings INTERFACE)
target_compile_options(robustfit_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)

# MPI (Open MPI from Debian: openmpi-bin libopenmpi-dev) is optional: it adds the distributed
# module and `mpirun -np N robust-fit ...`; everything else builds without it.
set(ROBUSTFIT_WITH_MPI OFF)
if(NOT ROBUSTFIT_MPI STREQUAL "OFF")
  if(ROBUSTFIT_MPI STREQUAL "ON")
    find_package(MPI REQUIRED COMPONENTS CXX)
  else()
    find_package(MPI COMPONENTS CXX)
  endif()
  if(MPI_CXX_FOUND)
    set(ROBUSTFIT_WITH_MPI ON)
  endif()
endif()
