# run_command(label expect_rc expect_err COMMAND...): runs COMMAND (up to 300 s) and fails the
# calling CTest script, naming `label`, unless it exits with expect_rc and, if expect_err is not
# empty, its standard error matches that regular expression. Its standard output and error are
# left in `out` and `err` in the caller's scope. Included by the scripts of this folder.
function(run_command label expect_rc expect_err)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 300)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "${label}: exit ${rc}, expected ${expect_rc}\n${out}${err}")
  endif()
  if(expect_err AND NOT err MATCHES "${expect_err}")
    message(FATAL_ERROR "${label}: stderr does not match '${expect_err}':\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()
