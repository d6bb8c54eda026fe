# The fuzz targets, one file tests/fuzz/fuzz_<name>.cpp and one seed folder tests/fuzz/corpus/<name>/ each.
# Read by tests/fuzz/CMakeLists.txt (the fuzz preset builds them) and by tests/CMakeLists.txt (every build's ctest
# runs them briefly when the fuzz preset has been built, and skips them, saying why, when it has not).
set(ATTNLAB_FUZZ_TARGETS safetensors checkpoint config corpus alignment tokenizers translate http)
# Executions per target in ctest, a smoke test (run_target.sh also stops a target after 30 s: translate runs
# about 80 inputs a second under the sanitizers); tools/fuzz.sh runs 10⁶ by default.
set(ATTNLAB_FUZZ_CTEST_RUNS 1000)

# ctest test fuzz.<name>: run_target.sh runs `binary` for ATTNLAB_FUZZ_CTEST_RUNS executions (skipped with one
# line when it is not built).
function(attnlab_fuzz_test name binary)
  add_test(NAME fuzz.${name}
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/fuzz/run_target.sh ${binary}
                   ${PROJECT_SOURCE_DIR}/tests/fuzz/corpus/${name} ${ATTNLAB_FUZZ_CTEST_RUNS}
                   ${PROJECT_BINARY_DIR}/fuzz-work/${name})
  set_tests_properties(fuzz.${name} PROPERTIES SKIP_RETURN_CODE 77)
endfunction()
