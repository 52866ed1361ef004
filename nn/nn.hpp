// Umbrella header of the nn module (namespace ngvi::nn): parameters with named blocks, dense
// layers and activations, Sequential networks, likelihoods, datasets, the
// Supervised model, the SeparableModel concept and per-example gradients/Jacobians/Hessians,
// and curvature (exact Hessian, Gauss-Newton, empirical and Monte-Carlo Fisher, K-FAC, metrics).
#pragma once

#include <nn/activations.hpp>
#include <nn/batched_pass.hpp>
#include <nn/curvature/curvature.hpp>
#include <nn/dataset.hpp>
#include <nn/dense.hpp>
#include <nn/example_indices.hpp>
#include <nn/layer.hpp>
#include <nn/likelihoods/likelihoods.hpp>
#include <nn/model_concept.hpp>
#include <nn/parameters.hpp>
#include <nn/per_example.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>
