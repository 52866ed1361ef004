# CTest script: `ngvi uci` under mpirun deals the splits to the ranks and gives the results of the
# run without mpirun: its JSON file is the same once the wall times ("seconds") are dropped, on 2
# and 3 ranks (vogn and laplace; map with the Student-t likelihood), and only rank 0 prints the
# table.
# Run as cmake -DNGVI_EXE=<ngvi> -DMPIRUN=<mpirun command list> -DDATA=<a UCI folder>
#              -DWORK=<dir> -P <this file>.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(common uci --data "${DATA}" --splits 3 --epochs 4 --max-tuning-fits 2 --validation-samples 10
           --test-samples 20 --threads 1)

function(results_of label json)
  file(STRINGS "${json}" lines)
  list(FILTER lines EXCLUDE REGEX "\"seconds\"")
  list(JOIN lines "\n" text)
  set(${label} "${text}" PARENT_SCOPE)
endfunction()

# vogn and laplace (Gaussian); map with the Student-t likelihood (its chosen ν travels too).
foreach(config gaussian student_t)
  if(config STREQUAL "gaussian")
    set(args ${common} --method vogn --method map_laplace)
  else()
    set(args ${common} --method map --likelihood student-t --degrees-of-freedom 4,10)
  endif()
  execute_process(COMMAND "${NGVI_EXE}" ${args} --json "${WORK}/${config}_alone.json"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${config} alone: exit ${rc}\n${out}${err}")
  endif()
  results_of(want "${WORK}/${config}_alone.json")
  string(LENGTH "${want}" length)
  if(length LESS 1000)
    message(FATAL_ERROR "the results file is too short to be a real comparison:\n${want}")
  endif()
  foreach(ranks 2 3)
    execute_process(COMMAND ${MPIRUN} --oversubscribe -np ${ranks} "${NGVI_EXE}" ${args}
                            --json "${WORK}/${config}_ranks${ranks}.json"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 600)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${config}, ${ranks} ranks: exit ${rc}\n${out}${err}")
    endif()
    string(REGEX MATCHALL "UCI regression: " printed "${out}")
    list(LENGTH printed times)
    if(NOT times EQUAL 1)
      message(FATAL_ERROR "${config}, ${ranks} ranks: the table was printed ${times} times:\n${out}")
    endif()
    if(NOT err MATCHES "splits dealt to ${ranks} ranks")
      message(FATAL_ERROR "${config}, ${ranks} ranks: stderr does not say the splits were dealt:\n${err}")
    endif()
    results_of(got "${WORK}/${config}_ranks${ranks}.json")
    if(NOT got STREQUAL want)
      message(FATAL_ERROR "${config}, ${ranks} ranks: the results differ from the run without mpirun:\n"
                          "--- alone ---\n${want}\n--- ${ranks} ranks ---\n${got}")
    endif()
    message(STATUS "${config}, ${ranks} ranks: the results of the run without mpirun")
  endforeach()
endforeach()
