// Umbrella header of the curvature routines (namespace ngvi::nn): for a model at θ, the exact
// Hessian of Σᵢ ℓᵢ, the generalized Gauss-Newton, the empirical Fisher, the Monte-Carlo true
// Fisher (full and diagonal forms), K-FAC's Kronecker factors, and the metrics that compare
// them. Every sum over examples runs on oneTBB and is bitwise identical for any thread count.
#pragma once

#include <nn/curvature/concepts.hpp>
#include <nn/curvature/empirical_fisher.hpp>
#include <nn/curvature/example_rng.hpp>
#include <nn/curvature/ggn.hpp>
#include <nn/curvature/hessian.hpp>
#include <nn/curvature/kfac.hpp>
#include <nn/curvature/mc_fisher.hpp>
#include <nn/curvature/metrics.hpp>
#include <nn/curvature/options.hpp>
#include <nn/curvature/output_jacobians.hpp>
