# Installs the current build into a fresh prefix, builds examples/cpp against it with
# find_package(robustfit), runs it on stackloss and checks that its coefficients, scale and
# outliers equal those of `robust-fit fit --output json` (17 significant digits: bit for bit).
# Run by CTest: cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DCLI=... -DWORK_DIR=... -DGENERATOR=... [-DBUILD_TYPE=... -DCXX_FLAGS=...] -P consumer_test.cmake
foreach(variable BUILD_DIR SOURCE_DIR CLI WORK_DIR GENERATOR)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "consumer_test.cmake: -D${variable}=... is required")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what} failed (${status}):\n${output}")
  endif()
  set(run_output "${output}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(installed lib/cmake/robustfit/robustfitConfig.cmake lib/cmake/robustfit/robustfitConfigVersion.cmake
                  include/robustfit/regression/estimators.hpp)
  if(NOT EXISTS ${prefix}/${installed})
    message(FATAL_ERROR "the install lacks ${installed}")
  endif()
endforeach()

# A consumer that knows only the prefix: no Eigen, CUDA or include paths of ours. It compiles
# with the build's flags (a sanitizer build's libraries need the sanitizer at link time).
run("configuring examples/cpp" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/cpp -B ${WORK_DIR}/example -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=${BUILD_TYPE} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}" -DCMAKE_PREFIX_PATH=${prefix})
run("building examples/cpp" ${CMAKE_COMMAND} --build ${WORK_DIR}/example)
set(data ${SOURCE_DIR}/data/datasets/stackloss.csv)
run("the example" ${WORK_DIR}/example/fit_stackloss ${data})
set(example "\n${run_output}")  # every line starts after a newline
message(STATUS "example output:\n${example}")
run("the CLI" ${CLI} fit ${data} --response stack.loss --output json)
set(json "${run_output}")

# The rest of the example's line that starts with `prefix` (a literal, not a regex).
function(example_value prefix out)
  string(FIND "${example}" "${prefix}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the example printed no '${prefix}' line")
  endif()
  string(LENGTH "${prefix}" length)
  math(EXPR at "${at} + ${length}")
  string(SUBSTRING "${example}" ${at} -1 rest)
  string(REGEX MATCH "^[^\n]*" value "${rest}")
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# Numbers as CMake's JSON reader prints them (%.17g, "2.0" for integral values) and as the example does.
function(same what expected actual)
  string(REGEX REPLACE "\\.0$" "" expected "${expected}")
  string(REGEX REPLACE "\\.0$" "" actual "${actual}")
  if(NOT expected STREQUAL actual)
    message(FATAL_ERROR "${what}: the example gives '${actual}', the CLI '${expected}'")
  endif()
endfunction()

string(JSON count LENGTH "${json}" coefficients)
math(EXPR last "${count} - 1")
foreach(j RANGE ${last})
  string(JSON name MEMBER "${json}" coefficients ${j})
  string(JSON value GET "${json}" coefficients "${name}")
  example_value("\ncoefficient ${name} " printed)
  same("coefficient ${name}" "${value}" "${printed}")
endforeach()
string(JSON scale GET "${json}" scale)
example_value("\nscale " printed)
same("scale" "${scale}" "${printed}")
string(JSON count LENGTH "${json}" outliers)
set(outliers "")
if(count GREATER 0)
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON row GET "${json}" outliers ${i})
    string(APPEND outliers " ${row}")
  endforeach()
endif()
example_value("\noutliers" printed)
same("outliers" "${outliers}" "${printed}")
if(count EQUAL 0)
  message(FATAL_ERROR "the CLI flags no outliers in stackloss: the comparison would be vacuous")
endif()
message(STATUS "the installed package's fit equals the CLI's (${count} outliers:${outliers})")
