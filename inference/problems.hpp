// Umbrella header of the shared toy problems (namespace ngvi::vi::problems): seeded problems that
// tests, examples and the CLI tool share, each made by `make_<problem>(options)` and returned as
// a struct holding a ready model (nn::Supervised where it is a network, so the batched routes of
// nn/ apply) and whatever exact reference it has, or the held-out data and target scaling the
// predictive (inference/predictive.hpp) needs.
#pragma once

#include <inference/problems/bayesian_linear_regression.hpp>
#include <inference/problems/logistic_regression_2d.hpp>
#include <inference/problems/regression_1d_gap.hpp>
#include <inference/problems/two_moons.hpp>
#include <inference/problems/uci_regression.hpp>
