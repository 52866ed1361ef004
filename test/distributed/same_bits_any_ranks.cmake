# CTest script: ranks_fit's posteriors are bitwise the in-process reference's on 1, 2 and 3 MPI
# ranks with 1 and 2 threads per rank, on every rank.
# Run as cmake -DRANKS_FIT=<exe> -DMPIRUN=<mpirun command list> -DWORK=<dir>
# [-DMODE=--divide-data] -P <this file>; MODE=--divide-data runs it with the data divided across
# the ranks by row blocks (ranks_fit.cpp).
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

execute_process(COMMAND "${RANKS_FIT}" ${MODE} --reference --threads 2 --out "${WORK}/reference.txt"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the in-process reference run failed (exit ${rc})")
endif()
file(READ "${WORK}/reference.txt" reference)

foreach(ranks 1 2 3)
  foreach(threads 1 2)
    set(out "${WORK}/ranks${ranks}_threads${threads}.txt")
    execute_process(COMMAND ${MPIRUN} --oversubscribe -np ${ranks} "${RANKS_FIT}" ${MODE}
                            --threads ${threads} --out "${out}"
                    RESULT_VARIABLE rc TIMEOUT 120)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${ranks} rank(s), ${threads} thread(s): mpirun exited with ${rc}")
    endif()
    math(EXPR last "${ranks} - 1")
    foreach(rank RANGE ${last})
      set(file "${out}")
      if(rank GREATER 0)
        set(file "${out}.rank${rank}")
      endif()
      file(READ "${file}" got)
      if(NOT got STREQUAL reference)
        message(FATAL_ERROR "${ranks} rank(s), ${threads} thread(s): rank ${rank}'s posteriors "
                            "(${file}) differ from the in-process reference (${WORK}/reference.txt)")
      endif()
    endforeach()
    message(STATUS "${ranks} rank(s) x ${threads} thread(s): every rank has the reference's bits")
  endforeach()
endforeach()
