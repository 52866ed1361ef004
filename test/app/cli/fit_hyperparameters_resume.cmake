# CTest script: `ngvi fit --hyperparameters noise` (variational EM over τ, Zhang et al. 2018's
# protocol) writes checkpoints that hold the learned τ, and --resume with the same settings from
# its checkpoint ends with the bytes of the uninterrupted run. Refused before the fit, exit 2:
# that checkpoint resumed without --hyperparameters or with another update schedule (other
# --epochs), and a plain fit's checkpoint resumed with --hyperparameters.
# Run as cmake -DNGVI_EXE=<ngvi> -DCSV=<regression.csv> -DWORK=<dir> -P <this file>.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(args fit --csv "${CSV}" --target price --method vogn --hidden 4 --minibatch 8 --samples 20)

include("${CMAKE_CURRENT_LIST_DIR}/run_command.cmake")

run_command("uninterrupted, checkpointed" 0 "" "${NGVI_EXE}" ${args} --epochs 20 --hyperparameters noise
    --checkpoint "${WORK}/c.json" --checkpoint-every 7 --out "${WORK}/whole")
file(READ "${WORK}/c.json" checkpoint)
if(NOT checkpoint MATCHES "\"hyperparameters\":{\"arrays\":.*\"noise_precision\"")
  message(FATAL_ERROR "the checkpoint holds no learned noise precision:\n${checkpoint}")
endif()
run_command("resumed" 0 "" "${NGVI_EXE}" ${args} --epochs 20 --hyperparameters noise
    --resume "${WORK}/c.json" --out "${WORK}/resumed")
foreach(file posterior.json fitted.csv)
  file(READ "${WORK}/whole/${file}" want)
  file(READ "${WORK}/resumed/${file}" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${WORK}/resumed/${file} differs from the uninterrupted run's")
  endif()
endforeach()

run_command("resumed without --hyperparameters" 2 "learned its hyperparameters" "${NGVI_EXE}" ${args}
    --epochs 20 --resume "${WORK}/c.json" --out "${WORK}/plain")
run_command("resumed with another schedule" 2 "not when this run updates" "${NGVI_EXE}" ${args}
    --epochs 40 --hyperparameters noise --resume "${WORK}/c.json" --out "${WORK}/longer")
run_command("a plain checkpoint" 0 "" "${NGVI_EXE}" ${args} --epochs 2 --checkpoint "${WORK}/p.json"
    --out "${WORK}/p")
run_command("a plain checkpoint resumed with --hyperparameters" 2 "run without --hyperparameters"
    "${NGVI_EXE}" ${args} --epochs 20 --hyperparameters noise --resume "${WORK}/p.json"
    --out "${WORK}/q")
foreach(dir plain longer q)
  if(EXISTS "${WORK}/${dir}")
    message(FATAL_ERROR "a refused run wrote ${WORK}/${dir}")
  endif()
endforeach()
message(STATUS "--hyperparameters noise: checkpointed and resumed to the same bytes; mismatches refused")
