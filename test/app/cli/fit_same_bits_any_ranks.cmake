# CTest script: `ngvi fit` gives the same posterior and predictions, byte for byte, run alone and
# under mpirun on 1, 2 and 3 ranks with 1 or 2 threads each (a small VOGN and a small VON fit),
# and only rank 0 prints and writes.
# Run as cmake -DNGVI_EXE=<ngvi> -DMPIRUN=<mpirun command list> -DCSV=<regression.csv>
#              -DWORK=<dir> -P <this file>.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

foreach(method vogn von)
  set(args fit --csv "${CSV}" --target price --method ${method} --hidden 6 --epochs 20
           --minibatch 8 --samples 20)
  execute_process(COMMAND "${NGVI_EXE}" ${args} --threads 2 --out "${WORK}/${method}_alone"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${method} alone: exit ${rc}\n${out}${err}")
  endif()
  foreach(file posterior.json fitted.csv)
    file(READ "${WORK}/${method}_alone/${file}" reference_${file})
  endforeach()
  foreach(case "1;1" "2;2" "3;1")
    list(GET case 0 ranks)
    list(GET case 1 threads)
    set(dir "${WORK}/${method}_ranks${ranks}_threads${threads}")
    execute_process(COMMAND ${MPIRUN} --oversubscribe -np ${ranks} "${NGVI_EXE}" ${args}
                            --threads ${threads} --out "${dir}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${method}, ${ranks} rank(s) x ${threads} thread(s): exit ${rc}\n${out}${err}")
    endif()
    string(REGEX MATCHALL "fitted ${method} " printed "${out}")
    list(LENGTH printed times)
    if(NOT times EQUAL 1)
      message(FATAL_ERROR "${method}, ${ranks} rank(s): the summary line was printed ${times} "
                          "times (only rank 0 prints):\n${out}")
    endif()
    if(ranks GREATER 1 AND NOT out MATCHES "on ${ranks} ranks")
      message(FATAL_ERROR "${method}, ${ranks} ranks: the summary does not say it ran on ${ranks} ranks:\n${out}")
    endif()
    foreach(file posterior.json fitted.csv)
      file(READ "${dir}/${file}" got)
      if(NOT got STREQUAL reference_${file})
        message(FATAL_ERROR "${method}, ${ranks} rank(s) x ${threads} thread(s): ${dir}/${file} "
                            "differs from the run without mpirun (${WORK}/${method}_alone/${file})")
      endif()
    endforeach()
    message(STATUS "${method}, ${ranks} rank(s) x ${threads} thread(s): the same bytes as alone")
  endforeach()
endforeach()
