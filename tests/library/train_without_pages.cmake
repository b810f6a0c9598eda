# The train library configures and builds without the page libraries: tapegrad configured as a
# library only (no program, tests, examples or benchmarks) with Chart.js and KaTeX pointed at
# files that do not exist, then only the train layer's own target built. Before the report page
# moved out of train/ (into report/, linked by the program), configuring failed here.
# CMAKE_OPTIMIZE_DEPENDENCIES lets the static library build without building the layers below
# it (their headers are all it compiles against); the build's compiler, launcher (ccache), build
# type, unity setting, flags and CUDA setting are reused so that most objects come from the compiler cache.
# Graphviz and gnuplot are run-time tools of the program, never looked for at configure time.
# Run by CTest as train_builds_without_pages.
string(REPLACE "|" ";" CXX_LAUNCHER "${CXX_LAUNCHER}")
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR} -G ${GENERATOR}
                        -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER}"
                        -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_UNITY_BUILD=${UNITY} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
                        "-DCMAKE_CXX_FLAGS_RELEASE=${CXX_FLAGS_RELEASE}" -DTAPEGRAD_CUDA=${CUDA}
                        -DTAPEGRAD_WERROR=ON -DTAPEGRAD_MPI=OFF -DTAPEGRAD_BUILD_PROGRAM=OFF
                        -DTAPEGRAD_BUILD_TESTS=OFF -DTAPEGRAD_BUILD_EXAMPLES=OFF -DTAPEGRAD_BUILD_BENCH=OFF
                        -DTAPEGRAD_CHART_JS=${WORK_DIR}/absent/chart.min.js
                        -DTAPEGRAD_KATEX_JS=${WORK_DIR}/absent/katex.min.js -DCMAKE_OPTIMIZE_DEPENDENCIES=ON
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "configuring tapegrad as a library without Chart.js and KaTeX failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR} --target tapegrad_train RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "building the train library without Chart.js and KaTeX failed")
endif()
file(GLOB_RECURSE archive ${WORK_DIR}/*libtapegrad_train.a)
if(NOT archive)
  message(FATAL_ERROR "the build made no libtapegrad_train.a")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
