# CTest script: a VOGN and a VON fit checkpointed after iteration 5 on 2 MPI ranks and resumed
# on 3 (and on 1) end bitwise where the uninterrupted in-process reference ends.
# Run as cmake -DRANKS_FIT=<exe> -DMPIRUN=<mpirun command list> -DWORK=<dir>
# [-DMODE=--divide-data] -P <this file>; MODE=--divide-data runs it with the data divided across
# the ranks by row blocks (ranks_fit.cpp).
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

execute_process(COMMAND "${RANKS_FIT}" ${MODE} --reference --out "${WORK}/reference.txt"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the in-process reference run failed (exit ${rc})")
endif()
file(STRINGS "${WORK}/reference.txt" reference REGEX "^(vogn_ef|von_full_clip) ")
list(LENGTH reference n)
if(NOT n EQUAL 2)
  message(FATAL_ERROR "the reference has ${n} of the 2 checkpointed fits")
endif()

execute_process(COMMAND ${MPIRUN} --oversubscribe -np 2 "${RANKS_FIT}" ${MODE} --checkpoint-at 5
                        "${WORK}/checkpoint" --out "${WORK}/first.txt"
                RESULT_VARIABLE rc TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the checkpointing run on 2 ranks failed (exit ${rc})")
endif()
foreach(fit vogn_ef von_full_clip)
  if(NOT EXISTS "${WORK}/checkpoint.${fit}")
    message(FATAL_ERROR "rank 0 wrote no checkpoint for ${fit}")
  endif()
endforeach()

foreach(ranks 3 1)
  set(out "${WORK}/resumed_on_${ranks}.txt")
  execute_process(COMMAND ${MPIRUN} --oversubscribe -np ${ranks} "${RANKS_FIT}" ${MODE}
                          --resume "${WORK}/checkpoint" --out "${out}"
                  RESULT_VARIABLE rc TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "resuming on ${ranks} rank(s) failed (exit ${rc})")
  endif()
  file(STRINGS "${out}" resumed)
  if(NOT resumed STREQUAL reference)
    message(FATAL_ERROR "checkpointed on 2 ranks and resumed on ${ranks}, the posteriors (${out}) "
                        "differ from the uninterrupted reference (${WORK}/reference.txt)")
  endif()
  message(STATUS "checkpointed on 2 ranks, resumed on ${ranks}: the reference's bits")
endforeach()
