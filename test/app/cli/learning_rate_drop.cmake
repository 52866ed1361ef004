# CTest script: --learning-rate-drop against another route to the same fit. A drop by 0.5 from the
# start (--learning-rate-drop-at 0) is the fit at half the step size, byte for byte (halving a
# double is exact, so both give the step the same bits), and differs from the fit without it:
# the option reaches the method's step. Each run writes fitted.csv (the training rows'
# predictions) under WORK/<run>.
# Run as cmake -DNGVI_EXE=<ngvi> -DARGS=<a^^b^^c> -DRATE=<step> -DHALF=<step/2> -DWORK=<dir>
#        -P <this file>.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
string(REPLACE "^^" ";" args "${ARGS}")
set(runs dropped halved plain)
set(dropped_args --learning-rate ${RATE} --learning-rate-drop 0.5 --learning-rate-drop-at 0)
set(halved_args --learning-rate ${HALF})
set(plain_args --learning-rate ${RATE})
foreach(run IN LISTS runs)
  execute_process(COMMAND "${NGVI_EXE}" ${args} ${${run}_args} --out "${WORK}/${run}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "ngvi ${args} ${${run}_args} exited with ${rc}\n${out}${err}")
  endif()
  file(READ "${WORK}/${run}/fitted.csv" ${run})
endforeach()
if(NOT dropped STREQUAL halved)
  message(FATAL_ERROR "the fit with the step dropped by 0.5 from the start differs from the fit "
                      "at half the step:\n${dropped}\n---\n${halved}")
endif()
if(dropped STREQUAL plain)
  message(FATAL_ERROR "--learning-rate-drop changed nothing: the fit equals the one without it")
endif()
message(STATUS "dropped from the start = halved, and differs from the plain fit")
