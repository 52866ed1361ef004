# CTest script: `ngvi fit --divide-data`, each rank reading and holding only the rows of its row
# blocks, gives the same posterior byte for byte alone and under mpirun on 2 and 3 ranks (1 or 2
# threads), for VOGN, VON and SLANG; checkpointed on 2 ranks, it resumes on 3 and alone with the
# uninterrupted run's bytes, and a checkpoint of a run without --divide-data, or a method that
# needs every row in one process, is refused (exit 2);
# it writes no fitted.csv; and a bad cell in the last row is found by the rank holding that row
# alone (rank 1 of 2): rank 0 never parsed it.
# Run as cmake -DNGVI_EXE=<ngvi> -DMPIRUN=<mpirun command list> -DCSV=<regression.csv>
#              -DWORK=<dir> -P <this file>.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

include("${CMAKE_CURRENT_LIST_DIR}/run_command.cmake")

foreach(method vogn von slang)
  set(args fit --csv "${CSV}" --target price --method ${method} --hidden 6 --epochs 20
           --minibatch 16 --samples 20 --divide-data)
  run_command("${method} alone" 0 "" "${NGVI_EXE}" ${args} --threads 2 --out "${WORK}/${method}_alone")
  if(NOT out MATCHES "the rows divided \\(16 row blocks; rank 0 held rows 1 to 40\\)")
    message(FATAL_ERROR "${method} alone: the summary does not say how the rows were divided:\n${out}")
  endif()
  if(EXISTS "${WORK}/${method}_alone/fitted.csv")
    message(FATAL_ERROR "${method}: fitted.csv was written, but no rank holds every row")
  endif()
  file(READ "${WORK}/${method}_alone/posterior.json" reference)
  foreach(case "2;1" "3;2")
    list(GET case 0 ranks)
    list(GET case 1 threads)
    set(dir "${WORK}/${method}_ranks${ranks}_threads${threads}")
    run_command("${method}, ${ranks} ranks" 0 "" ${MPIRUN} --oversubscribe -np ${ranks} "${NGVI_EXE}" ${args}
        --threads ${threads} --out "${dir}")
    if(NOT out MATCHES "on ${ranks} ranks, the rows divided \\(16 row blocks; rank 0 held rows 1 to ")
      message(FATAL_ERROR "${method}, ${ranks} ranks: the summary does not say so:\n${out}")
    endif()
    file(READ "${dir}/posterior.json" got)
    if(NOT got STREQUAL reference)
      message(FATAL_ERROR "${method}, ${ranks} rank(s) x ${threads} thread(s): ${dir}/posterior.json "
                          "differs from the divided run alone (${WORK}/${method}_alone)")
    endif()
    message(STATUS "${method}, ${ranks} ranks x ${threads} thread(s), rows divided: the same bytes as alone")
  endforeach()
endforeach()

# Checkpointed on 2 ranks after 10 epochs (30 iterations of 3 stratified minibatches; the last
# checkpoint mid-epoch), resumed on 3 and alone.
set(args fit --csv "${CSV}" --target price --method vogn --hidden 6 --minibatch 16 --samples 20
         --divide-data)
run_command("uninterrupted" 0 "" "${NGVI_EXE}" ${args} --epochs 25 --out "${WORK}/whole")
run_command("first 10 epochs on 2 ranks" 0 "" ${MPIRUN} --oversubscribe -np 2 "${NGVI_EXE}" ${args}
    --epochs 10 --checkpoint "${WORK}/c.json" --checkpoint-every 7 --out "${WORK}/first")
file(READ "${WORK}/c.json" checkpoint)
if(NOT checkpoint MATCHES "\"sampler_key\"")
  message(FATAL_ERROR "the checkpoint holds no stratified sampler's key:\n${checkpoint}")
endif()
run_command("resumed on 3 ranks" 0 "" ${MPIRUN} --oversubscribe -np 3 "${NGVI_EXE}" ${args} --epochs 25
    --resume "${WORK}/c.json" --out "${WORK}/resumed3")
run_command("resumed alone" 0 "" "${NGVI_EXE}" ${args} --epochs 25 --resume "${WORK}/c.json"
    --out "${WORK}/resumed1")
file(READ "${WORK}/whole/posterior.json" want)
foreach(dir resumed3 resumed1)
  file(READ "${WORK}/${dir}/posterior.json" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${WORK}/${dir}/posterior.json differs from the uninterrupted run's")
  endif()
endforeach()
message(STATUS "rows divided, checkpointed on 2 ranks, resumed on 3 and alone: the same bytes")
run_command("a divided run's checkpoint resumed without --divide-data" 2
            "stratified over row blocks \\(--divide-data\\), this run's are not" "${NGVI_EXE}" fit
            --csv "${CSV}" --target price --method vogn --hidden 6 --minibatch 16 --epochs 25
            --resume "${WORK}/c.json" --out "${WORK}/plain")

run_command("noisy K-FAC with the rows divided" 2
            "--divide-data: method noisy_kfac needs every row in one process" "${NGVI_EXE}" fit
            --csv "${CSV}" --target price --method noisy_kfac --divide-data --out "${WORK}/kfac")

run_command("learned hyperparameters with the rows divided" 2
            "--divide-data with --hyperparameters evidence: its updates" "${NGVI_EXE}" fit
            --csv "${CSV}" --target price --method vogn --hyperparameters evidence --divide-data
            --out "${WORK}/evidence")

# A non-numeric cell on the last data line: on 2 ranks only rank 1 reads it.
file(READ "${CSV}" table)
string(REGEX REPLACE ",[^,\n]*\n?$" ",abc\n" bad "${table}")
file(WRITE "${WORK}/bad_last.csv" "${bad}")
run_command("a bad cell in rank 1's rows" 2
            "error: rank 1 of 2: [^\n]*bad_last.csv[^\n]*line 41[^\n]*abc" ${MPIRUN} --oversubscribe
            -np 2 "${NGVI_EXE}" fit --csv "${WORK}/bad_last.csv" --target price --method vogn
            --hidden 4 --epochs 2 --divide-data --out "${WORK}/bad")
if(EXISTS "${WORK}/bad")
  message(FATAL_ERROR "${WORK}/bad was written although the run failed")
endif()
message(STATUS "a bad cell in the last row: found by rank 1 alone, exit 2, nothing written")
