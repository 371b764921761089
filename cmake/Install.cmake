# `cmake --install build --prefix P`: the libraries, their public headers and a CMake package,
# so that a consumer writes find_package(robustfit CONFIG REQUIRED) and links robustfit::robustfit.
# Per-module targets are exported too: robustfit::common, ::selection, ::data, ::regression,
# ::neighbors. The plot module and the app's libraries are internals of the CLI: not installed.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ROBUSTFIT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/robustfit)
set(ROBUSTFIT_LIBRARY_MODULES common selection data regression neighbors)

# The umbrella target: every library module (fits, kNN, data input, selection).
add_library(robustfit INTERFACE)
add_library(robustfit::robustfit ALIAS robustfit)
target_compile_features(robustfit INTERFACE cxx_std_20)  # the public headers use std::span
foreach(module IN LISTS ROBUSTFIT_LIBRARY_MODULES)
  target_link_libraries(robustfit INTERFACE robustfit_${module})
  set_target_properties(robustfit_${module} PROPERTIES EXPORT_NAME ${module})
  add_library(robustfit::${module} ALIAS robustfit_${module})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${module}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()
list(TRANSFORM ROBUSTFIT_LIBRARY_MODULES PREPEND robustfit_ OUTPUT_VARIABLE ROBUSTFIT_LIBRARY_TARGETS)
# Static libraries end up in shared objects (the Python module, a consumer's .so).
set_target_properties(${ROBUSTFIT_LIBRARY_TARGETS} PROPERTIES POSITION_INDEPENDENT_CODE ON)

install(TARGETS robustfit ${ROBUSTFIT_LIBRARY_TARGETS} EXPORT robustfitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT robustfitTargets NAMESPACE robustfit:: DESTINATION ${ROBUSTFIT_INSTALL_CMAKEDIR})

# The package config finds what the exported targets name (Eigen3::Eigen, Threads::Threads and,
# in a CUDA build, CUDA::cudart_static / CUDA::cublas / CUDA::cusolver from the toolkit this
# build used).
set(ROBUSTFIT_PACKAGE_CUDA_ROOT "")
if(ROBUSTFIT_WITH_CUDA)
  get_filename_component(ROBUSTFIT_PACKAGE_CUDA_ROOT "${CUDAToolkit_BIN_DIR}" DIRECTORY)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/robustfitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/robustfitConfig.cmake INSTALL_DESTINATION ${ROBUSTFIT_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/robustfitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/robustfitConfig.cmake ${PROJECT_BINARY_DIR}/robustfitConfigVersion.cmake
  DESTINATION ${ROBUSTFIT_INSTALL_CMAKEDIR})
