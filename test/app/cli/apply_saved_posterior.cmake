# CTest script: a posterior file applied again gives the predictions of the fit that wrote it.
# `ngvi fit --posterior POSTERIOR/posterior.json --predict ROWS` must write a predictions.csv equal,
# byte for byte, to POSTERIOR/predictions.csv, which the fit wrote for the same ROWS with the same
# seed: the file's family round-trips exactly (every double is written with all its digits).
# Run as cmake -DNGVI_EXE=<ngvi> -DPOSTERIOR=<fit's --out> -DROWS=<csv> -DWORK=<dir> -P <this file>.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${NGVI_EXE}" fit --posterior "${POSTERIOR}/posterior.json" --predict
                        "${ROWS}" --out "${WORK}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ngvi fit --posterior exited with ${rc}\n${out}${err}")
endif()
file(READ "${POSTERIOR}/predictions.csv" fitted)
file(READ "${WORK}/predictions.csv" applied)
if(NOT fitted STREQUAL applied)
  message(FATAL_ERROR "the saved posterior's predictions differ from the fit's:\n"
                      "fit:\n${fitted}\napplied:\n${applied}")
endif()
message(STATUS "the saved posterior's predictions equal the fit's:\n${applied}")
