# CTest script: under mpirun, a rank whose input is bad stops every rank with one error naming
# that rank and the cause, exit code 2, and nothing is written. Each rank is given its own file
# (mpirun's colon syntax, as when each node reads its local copy): rank 1's has a non-numeric
# cell, or differs from rank 0's.
# Run as cmake -DNGVI_EXE=<ngvi> -DMPIRUN=<mpirun command list> -DDATA=<test/app/data/fit>
#              -DWORK=<dir> -P <this file>.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
# A copy of the table with one target changed: readable, but not rank 0's data.
file(READ "${DATA}/regression.csv" table)
string(REPLACE "4.139" "4.140" changed "${table}")
file(WRITE "${WORK}/changed.csv" "${changed}")

function(expect_failure label other_csv pattern)
  set(args fit --target price --method vogn --hidden 4 --epochs 5 --out "${WORK}/${label}")
  execute_process(COMMAND ${MPIRUN} --oversubscribe -np 1 "${NGVI_EXE}" ${args}
                          --csv "${DATA}/regression.csv" : -np 1 "${NGVI_EXE}" ${args}
                          --csv "${other_csv}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  message(STATUS "${label}: mpirun exited with ${rc}; stderr:\n${err}")
  if(rc EQUAL 0)
    message(FATAL_ERROR "${label}: mpirun exited with 0 although rank 1's input was bad")
  endif()
  foreach(rank 0 1)
    if(NOT err MATCHES "ngvi fit \\(rank ${rank} of 2\\): error: rank 1 of 2: ${pattern}")
      message(FATAL_ERROR "${label}: rank ${rank} did not report rank 1's error (${pattern})")
    endif()
  endforeach()
  if(EXISTS "${WORK}/${label}")
    message(FATAL_ERROR "${label}: ${WORK}/${label} was written although the run failed")
  endif()
endfunction()

expect_failure(bad_cell "${DATA}/bad_cell.csv" "[^\n]*bad_cell.csv[^\n]*line 4, column 2[^\n]*abc")
expect_failure(other_data "${WORK}/changed.csv"
               "the training data and settings differ from rank 0.s: here 40 rows of 2 inputs, checksum")
