// Comparing the two routes of the curvature sums (nn/curvature/): batched and generic.
//
// For nn::Supervised<Sequential, L> the GGN, the empirical Fisher and the Monte-Carlo Fisher are
// summed block by block from one batched pass per block (nn/per_example.hpp); any other model
// takes the generic route, one tape recording per example. GenericRoute<M> shows a Supervised
// model through the members a generic model has (loss, output, likelihood, data) and nothing
// else, so the curvature functions take the generic route on exactly the same model: the
// reference the batched route is checked against. curvature_routes::batched_vs_generic is the
// one tolerance of those checks, and thread_counts the counts the bitwise checks run;
// check_batched_route runs both checks on all N examples and on test::mixed_minibatch, and
// for_each_route_model hands a check the models they run on.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <autodiff/autodiff.hpp>
#include <nn/example_indices.hpp>
#include <nn/likelihoods/likelihoods.hpp>

#include <support/check_bitwise.hpp>
#include <support/check_report.hpp>
#include <support/curvature_fixtures.hpp>
#include <support/minibatch.hpp>

namespace ngvi::test {

template <class M>
struct GenericRoute {
  const M& model;

  Eigen::Index num_examples() const { return model.num_examples(); }
  Eigen::Index num_params() const { return model.num_params(); }
  Eigen::Index output_dim() const { return model.output_dim(); }
  template <class T>
  T example_loss(const Eigen::Matrix<T, Eigen::Dynamic, 1>& theta, Eigen::Index i) const {
    return model.example_loss(theta, i);
  }
  template <class T>
  Eigen::Matrix<T, Eigen::Dynamic, 1> example_output(
      const Eigen::Matrix<T, Eigen::Dynamic, 1>& theta, Eigen::Index i) const {
    return model.example_output(theta, i);
  }
  const auto& likelihood() const { return model.likelihood(); }
  const auto& data() const { return model.data(); }
};
template <class M>
GenericRoute(const M&) -> GenericRoute<M>;

namespace curvature_routes {
// The routes sum the same per-example terms with different kernels (batched matrix products
// and a block-wise sum of squared δs against one tape sweep per example) and in different
// orders: a few ulps per term of sums of tens of terms, as between any two AD routes.
inline constexpr ad::verify::Tolerance batched_vs_generic = ad::verify::tolerances::ad_vs_ad;
// 1 (the calling thread), 2 and 3 TBB threads: more threads than this machine's cores must
// still give the same bits.
inline constexpr std::array<int, 3> thread_counts{1, 2, 3};
}  // namespace curvature_routes

// curvature(model, idx, threads) computes one curvature quantity (as an Eigen matrix) of model on
// the examples idx (all of them when idx is empty) with `threads` threads. Checks, on all
// examples and on mixed_minibatch: the batched route (m itself) against the generic route
// (GenericRoute{m}) to batched_vs_generic, and the batched route's bits for every thread count
// against one thread.
template <class Model, class Curvature>
void check_batched_route(const Model& m, const std::string& what, Curvature&& curvature) {
  const GenericRoute<Model> generic{m};
  const std::vector<Eigen::Index> minibatch = mixed_minibatch(m.num_examples());
  for (const nn::ExampleIndices idx : {nn::ExampleIndices{}, nn::ExampleIndices(minibatch)}) {
    const std::string w = what + (idx.empty() ? "" : " on idx");
    const Eigen::MatrixXd batched = curvature(m, idx, 1);
    NGVI_CHECK_REPORT(ad::verify::compare(batched, Eigen::MatrixXd(curvature(generic, idx, 1)),
                                          curvature_routes::batched_vs_generic,
                                          w + ": batched vs generic route"));
    for (const int threads : curvature_routes::thread_counts)
      NGVI_CHECK_BITWISE(Eigen::MatrixXd(curvature(m, idx, threads)), batched,
                         w + ": " + std::to_string(threads) + " threads vs 1");
  }
}

// check(model, θ, what) on 2-hidden-layer tanh networks with 37 examples (13 blocks of 3 in
// the route tests) and the likelihoods whose output curvature exercises every part of the batched
// route: a Gaussian with 2 outputs (cross terms of Mᵢ), a 3-class softmax (a full, singular Mᵢ)
// and a Gaussian with learned noise (a likelihood parameter, whose Jacobian row is a unit
// vector, and an indefinite output Hessian); and a Gaussian network whose first and last dense
// layers have no bias (nn::Bias::none). `seed` draws the data and θ.
template <class Check>
void for_each_route_model(std::uint64_t seed, Check&& check) {
  Eigen::VectorXd theta;
  const auto gaussian =
      make_supervised({3, 5, 4, 2}, nn::GaussianFixedNoise(0.7, 2), 37, seed, &theta);
  check(gaussian, theta, "2 hidden layers, Gaussian, 2 outputs");
  const auto softmax =
      make_supervised({3, 5, 4, 3}, nn::SoftmaxCategorical(3), 37, seed + 1, &theta);
  check(softmax, theta, "2 hidden layers, softmax, 3 classes");
  const auto learned =
      make_supervised({2, 4, 3, 1}, nn::GaussianLearnedNoise(2.0), 37, seed + 2, &theta);
  check(learned, theta, "2 hidden layers, Gaussian with learned noise");
  const nn::Sequential partly_bias_free{nn::Dense(3, 5, nn::Bias::none), nn::Tanh{},
                                        nn::Dense(5, 4), nn::Tanh{},
                                        nn::Dense(4, 2, nn::Bias::none)};
  const auto no_bias =
      make_supervised(partly_bias_free, nn::GaussianFixedNoise(0.7, 2), 37, seed + 3, &theta);
  check(no_bias, theta, "2 hidden layers, the first and the last without a bias, Gaussian");
}

}  // namespace ngvi::test
