# CTest script: a VOGN fit checkpointed by `ngvi fit --checkpoint` on 2 ranks and continued with
# --resume (and more epochs) on 3 ranks, or alone, ends with the bytes of the uninterrupted run;
# the checkpoint is written by rank 0 (one file, complete).
# Run as cmake -DNGVI_EXE=<ngvi> -DMPIRUN=<mpirun command list> -DCSV=<regression.csv>
#              -DWORK=<dir> -P <this file>.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(args fit --csv "${CSV}" --target price --method vogn --hidden 6 --minibatch 8 --samples 20)

include("${CMAKE_CURRENT_LIST_DIR}/run_command.cmake")

run_command("uninterrupted, alone" 0 "" "${NGVI_EXE}" ${args} --epochs 30 --out "${WORK}/whole")
run_command("first 12 epochs on 2 ranks" 0 "" ${MPIRUN} --oversubscribe -np 2 "${NGVI_EXE}" ${args}
    --epochs 12 --checkpoint "${WORK}/c.json" --checkpoint-every 7 --out "${WORK}/first")
file(GLOB leftovers "${WORK}/c.json.*" "${WORK}/.c.json*")
if(leftovers)
  message(FATAL_ERROR "temporary checkpoint files were left behind: ${leftovers}")
endif()
file(READ "${WORK}/c.json" checkpoint)
if(NOT checkpoint MATCHES "\"iteration\": ?60")
  message(FATAL_ERROR "the checkpoint is not the one after 12 epochs (60 iterations):\n${checkpoint}")
endif()
run_command("resumed on 3 ranks" 0 "" ${MPIRUN} --oversubscribe -np 3 "${NGVI_EXE}" ${args} --epochs 30
    --resume "${WORK}/c.json" --out "${WORK}/resumed3")
run_command("resumed alone" 0 "" "${NGVI_EXE}" ${args} --epochs 30 --threads 2 --resume "${WORK}/c.json"
    --out "${WORK}/resumed1")
foreach(dir resumed3 resumed1)
  foreach(file posterior.json fitted.csv)
    file(READ "${WORK}/whole/${file}" want)
    file(READ "${WORK}/${dir}/${file}" got)
    if(NOT got STREQUAL want)
      message(FATAL_ERROR "${WORK}/${dir}/${file} differs from the uninterrupted run's")
    endif()
  endforeach()
endforeach()
message(STATUS "checkpointed on 2 ranks, resumed on 3 and on 1: the uninterrupted run's bytes")
