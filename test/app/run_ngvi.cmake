# ngvi_run_out(<folder>): for the -P scripts of the tool's tests. Runs
# `${NGVI_EXE} <ARGS split at ^^> --out <folder>` and fails the test with ngvi's output unless it
# exits with 0. NGVI_EXE and ARGS are the script's own -D variables.
function(ngvi_run_out folder)
  string(REPLACE "^^" ";" _args "${ARGS}")
  execute_process(COMMAND "${NGVI_EXE}" ${_args} --out "${folder}"
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err TIMEOUT 600)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "ngvi ${_args} --out ${folder} failed (${_rc}):\n${_out}\n${_err}")
  endif()
endfunction()
