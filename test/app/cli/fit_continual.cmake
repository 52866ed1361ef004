# CTest script: yesterday's posterior is today's prior (`ngvi fit --prior`). A linear model
# (no hidden layer) with a Gaussian likelihood is Bayesian linear regression, whose posterior
# precision τAᵀA + Λ₀ map_laplace computes exactly. Fitting FIRST and then SECOND with FIRST's
# posterior as the prior must give the posterior of fitting BOTH at once: the same marginal
# standard deviations to 9 digits, and the same weight means to 4 (they are MAP's, converged by
# Adam; the bias's is 0 up to round-off in both, the standardised targets having mean 0).
# The three tables have the same per-column means and standard deviations (SECOND holds FIRST's
# inputs with its targets reversed; BOTH is the two), so all three fits standardise alike and
# their parameters mean the same.
# Run as cmake -DNGVI_EXE=<ngvi> -DDATA=<test/app/data/fit> -DWORK=<dir> -P <this file>.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run_fit label csv)
  execute_process(COMMAND "${NGVI_EXE}" fit --csv "${DATA}/${csv}" --target price --hidden 0
                          --method map_laplace --epochs 4000 --minibatch 40 --noise-precision 10
                          --prior-precision 1 --out "${WORK}/${label}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  message(STATUS "${label}: exit ${rc}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${label}: ngvi fit exited with ${rc}")
  endif()
endfunction()

# The numbers of summary.csv's row for `block`: mean_of_means and mean_sd.
function(block_numbers summary block mean_var sd_var)
  file(STRINGS "${summary}" lines REGEX "^${block},")
  string(REPLACE "," ";" cells "${lines}")
  list(GET cells 3 mean)
  list(GET cells 5 sd)
  set(${mean_var} "${mean}" PARENT_SCOPE)
  set(${sd_var} "${sd}" PARENT_SCOPE)
endfunction()

# A number (as fmt writes a double: 0.05178, -1.2e-05) cut to its first `digits` significant
# digits, keeping its sign, leading zeros and exponent.
function(leading_digits number digits out_var)
  string(REGEX MATCH "[eE].*$" exponent "${number}")
  string(REGEX REPLACE "[eE].*$" "" mantissa "${number}")
  string(REGEX MATCH "^-?[0.]*" prefix "${mantissa}")
  string(REGEX MATCH "[1-9][0-9.]*" significant "${mantissa}")
  string(REPLACE "." "" significant "${significant}")
  string(SUBSTRING "${significant}" 0 ${digits} lead)
  set(${out_var} "${prefix}${lead}${exponent}" PARENT_SCOPE)
endfunction()

run_fit(first continual_first.csv)
run_fit(second continual_second.csv --prior "${WORK}/first/posterior.json")
run_fit(both continual_both.csv)

foreach(block dense0.weight dense0.bias)
  block_numbers("${WORK}/second/summary.csv" ${block} seq_mean seq_sd)
  block_numbers("${WORK}/both/summary.csv" ${block} one_mean one_sd)
  leading_digits("${seq_sd}" 9 a)
  leading_digits("${one_sd}" 9 b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${block}: sequential sd ${seq_sd}, one-shot sd ${one_sd}")
  endif()
  if(block STREQUAL "dense0.weight")
    leading_digits("${seq_mean}" 4 a)
    leading_digits("${one_mean}" 4 b)
  else()
    string(REGEX MATCH "e-1[4-9]$" a "${seq_mean}")
    string(REGEX MATCH "e-1[4-9]$" b "${one_mean}")
  endif()
  if(NOT a OR NOT a STREQUAL b AND block STREQUAL "dense0.weight")
    message(FATAL_ERROR "${block}: sequential mean ${seq_mean}, one-shot mean ${one_mean}")
  endif()
  message(STATUS "${block}: sd ${seq_sd} (sequential) and ${one_sd} (one shot); mean ${seq_mean} "
                 "and ${one_mean}")
endforeach()
