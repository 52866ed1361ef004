# CTest script: the scores `ngvi fit` prints are recounted from the files it writes, and each
# row of fitted.csv / predictions.csv carries its table row. For a regression (a VOGN network,
# Monte-Carlo predictive) the number of rows whose target lies in [lower_95, upper_95] is counted
# in fitted.csv and predictions.csv and must equal the printed "covers K of N"; for a
# classification the rows whose `predicted` is the label must equal the printed "(K of N rows)".
# Each row's line, inputs and target must be those of that line of the input table, in its order.
# Run as cmake -DNGVI_EXE=<ngvi> -DDATA=<test/app/data/fit> -DWORK=<dir> -P <this file>.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run_fit label)
  execute_process(COMMAND "${NGVI_EXE}" fit ${ARGN} --out "${WORK}/${label}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  message(STATUS "${label}: exit ${rc}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${label}: ngvi fit exited with ${rc}")
  endif()
  set(stdout "${out}" PARENT_SCOPE)
endfunction()

# The CSV data lines of `file` as a list of ';'-separated rows (each row's cells joined by '|').
function(data_rows file out_var)
  file(STRINGS "${file}" lines)
  list(POP_FRONT lines)
  set(rows "")
  foreach(line IN LISTS lines)
    string(REPLACE "," "|" line "${line}")
    list(APPEND rows "${line}")
  endforeach()
  set(${out_var} "${rows}" PARENT_SCOPE)
endfunction()

# Checks that `predicted_csv`'s rows carry, in order, lines 2, 3, ... of `table` with the cells
# whose indices (in the table) are listed in `table_cells`, as cells 1, 2, ... of each row.
function(check_rows_carry_table predicted_csv table table_cells)
  data_rows("${predicted_csv}" predicted)
  data_rows("${table}" original)
  list(LENGTH predicted n)
  list(LENGTH original n_table)
  if(NOT n EQUAL n_table)
    message(FATAL_ERROR "${predicted_csv}: ${n} rows, the table ${table} has ${n_table}")
  endif()
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last})
    list(GET predicted ${i} row)
    list(GET original ${i} source)
    string(REPLACE "|" ";" row "${row}")
    string(REPLACE "|" ";" source "${source}")
    list(GET row 0 line)
    math(EXPR expected_line "${i} + 2")
    if(NOT line EQUAL expected_line)
      message(FATAL_ERROR "${predicted_csv}: row ${i} is line ${line}, expected ${expected_line}")
    endif()
    set(k 1)
    foreach(c IN LISTS table_cells)
      list(GET row ${k} got)
      list(GET source ${c} want)
      if(NOT got EQUAL want)
        message(FATAL_ERROR "${predicted_csv}: line ${line} cell ${k} is ${got}, the table has ${want}")
      endif()
      math(EXPR k "${k} + 1")
    endforeach()
  endforeach()
endfunction()

# The rows of a regression table (line, inputs..., target, mean, sd, lower_95, upper_95) whose
# target lies in [lower_95, upper_95].
function(count_covered csv target_cell out_var)
  data_rows("${csv}" rows)
  set(covered 0)
  foreach(row IN LISTS rows)
    string(REPLACE "|" ";" row "${row}")
    list(GET row ${target_cell} y)
    list(GET row -2 lower)
    list(GET row -1 upper)
    if(NOT y LESS lower AND NOT y GREATER upper)
      math(EXPR covered "${covered} + 1")
    endif()
  endforeach()
  set(${out_var} ${covered} PARENT_SCOPE)
endfunction()

function(expect_count what text pattern counted)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: the output does not match ${pattern}")
  endif()
  if(NOT CMAKE_MATCH_1 EQUAL counted)
    message(FATAL_ERROR "${what}: printed ${CMAKE_MATCH_1}, counted ${counted} in the file")
  endif()
  message(STATUS "${what}: printed ${CMAKE_MATCH_1}, counted ${counted}")
endfunction()

# Regression (columns of regression.csv: x1, x2, price).
# (At these settings the fit converges, RMSE about 0.6, and 34 of 40 / 25 of 30 rows are covered.)
run_fit(regression --csv "${DATA}/regression.csv" --target price --method vogn --hidden 4
        --epochs 500 --learning-rate 0.05 --noise-precision 150
        --predict "${DATA}/regression_30_rows.csv")
check_rows_carry_table("${WORK}/regression/fitted.csv" "${DATA}/regression.csv" "0;1;2")
check_rows_carry_table("${WORK}/regression/predictions.csv" "${DATA}/regression_30_rows.csv" "0;1;2")
count_covered("${WORK}/regression/fitted.csv" 3 covered)
expect_count("training coverage" "${stdout}"
             "training rows \\(fitted.csv\\): RMSE [^\n]* covers ([0-9]+) of 40 rows" ${covered})
count_covered("${WORK}/regression/predictions.csv" 3 covered)
expect_count("--predict coverage" "${stdout}"
             "--predict rows \\(predictions.csv\\): RMSE [^\n]* covers ([0-9]+) of 30 rows" ${covered})

# Classification (columns of classes.csv: a, b, label).
run_fit(classification --csv "${DATA}/classes.csv" --target label --task classification
        --method vogn --hidden 8 --epochs 200)
check_rows_carry_table("${WORK}/classification/fitted.csv" "${DATA}/classes.csv" "0;1;2")
data_rows("${WORK}/classification/fitted.csv" rows)
set(right 0)
foreach(row IN LISTS rows)
  string(REPLACE "|" ";" row "${row}")
  list(GET row 3 label)
  list(GET row 4 predicted)
  if(label EQUAL predicted)
    math(EXPR right "${right} + 1")
  endif()
endforeach()
expect_count("accuracy" "${stdout}"
             "training rows \\(fitted.csv\\): accuracy [0-9.e-]+ \\(([0-9]+) of 30 rows\\)" ${right})
