// Reproducibility of nn/ computations: the same seed gives the same bits whatever was recorded
// on the tape before and whatever the thread count.
//
// * A 13-50-1 tanh network with a Gaussian likelihood (nn::Sequential + nn::Supervised,
//   total_loss) recorded after each tape history of support/position_independence.hpp gives
//   the fresh-tape value, gradient and Hessian-vector product bit for bit.
// * A training loop of 100 Adam steps (a 13-50-16-1 tanh/softplus network) records the
//   full-batch loss on the main thread (its length varies from step to step) and, while that
//   recording is open, runs nn::per_example_gradients, nn::ggn_diagonal and
//   nn::ggn_vector_product on TBB; all three feed the update. On 1 thread every block records
//   on the main thread after the open recording; on 2 or 3 threads blocks land on whichever
//   thread is free, at a different tape position in a different arena. The whole trajectory
//   (θ and loss at every step) must be bitwise identical for 1, 2 and 3 threads — and the loss
//   must fall, so the loop is not vacuous.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <nn/curvature/ggn.hpp>
#include <nn/likelihoods/likelihoods.hpp>
#include <nn/per_example.hpp>
#include <nn/supervised.hpp>

#include <support/check_bitwise.hpp>
#include <support/position_independence.hpp>

BOOST_AUTO_TEST_SUITE(reproducibility_test)

using namespace ngvi;

namespace {

nn::Dataset regression_data(Eigen::Index n, Eigen::Index d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  nn::Dataset data;
  data.X.resize(n, d);
  data.Y.resize(n, 1);
  for (Eigen::Index q = 0; q < data.X.size(); ++q) data.X(q) = z(rng);
  for (Eigen::Index i = 0; i < n; ++i)
    data.Y(i, 0) = std::tanh(0.3 * data.X.row(i).sum()) + 0.1 * z(rng);
  return data;
}

auto mlp_model(Eigen::Index n) {
  return nn::Supervised(nn::Sequential::mlp({13, 50, 1}, nn::Tanh{}), nn::GaussianFixedNoise(4.0),
                        regression_data(n, 13, 17));
}

// For the training loop: two hidden layers, tanh then softplus, so that the per-example
// passes run the exp/log kernels as well as the products, broadcasts and tanh.
auto two_layer_model(Eigen::Index n) {
  return nn::Supervised(nn::Sequential{nn::Dense(13, 50), nn::Tanh{}, nn::Dense(50, 16),
                                       nn::Softplus{}, nn::Dense(16, 1)},
                        nn::GaussianFixedNoise(4.0), regression_data(n, 13, 17));
}

Eigen::VectorXd initial_theta(const auto& model) {
  std::mt19937_64 rng(29);
  Eigen::VectorXd theta;
  model.init(theta, rng);
  return theta;
}

// One trajectory of the loop described at the top of this file.
struct Trajectory {
  Eigen::MatrixXd thetas;  // P × steps, θ after each step
  Eigen::VectorXd losses;  // loss before each step
};

Trajectory train(int threads, int steps) {
  namespace ad = ngvi::ad;
  const auto model = two_layer_model(40);
  Eigen::VectorXd theta = initial_theta(model);
  const Eigen::Index P = theta.size(), N = model.num_examples();
  const ad::ParallelOptions par{.threads = threads, .grain = 6};
  const nn::GgnOptions ggn_options{.threads = threads, .grain = 6};
  // Adam with the empirical-Fisher diagonal Σᵢ gᵢ² as its second moment and small
  // Gauss-Newton terms (diag(G)·θ and G·m, the previous momentum), so that every per-example
  // result — batched gradients and Jacobians on Tape<double>, the generic one-example route on
  // Tape<Dual<double, 1>> — shapes the trajectory.
  const double lr = 0.01, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, decay = 1e-3,
               prior_precision = 1e-2;
  Eigen::VectorXd m = Eigen::VectorXd::Zero(P), v = Eigen::VectorXd::Zero(P), g(P);
  Trajectory out{Eigen::MatrixXd(P, steps), Eigen::VectorXd(steps)};
  nn::RowMatrixXd G;
  for (int step = 0; step < steps; ++step) {
    ad::TapeScope<double> scope;
    ad::Tape<double>& t = scope.tape();
    ad::VarVector<double> th(P);
    const ad::index_t first = t.new_indices(static_cast<std::size_t>(P));
    for (Eigen::Index p = 0; p < P; ++p)
      th(p) = ad::Var<double>::from_index(theta(p), first + static_cast<ad::index_t>(p), t);
    // The main thread records the loss plus a small prior on a step-dependent block of θ, so
    // its recording — and the tape position at which per-example blocks that run on the main
    // thread start — changes from step to step. It stays open while the per-example work runs.
    ad::Var<double> prior = 0.0;
    for (Eigen::Index p = 0; p < step % 9; ++p) prior += (0.5 * prior_precision) * th(p) * th(p);
    const ad::Var<double> loss = model.total_loss(th) + prior;
    nn::per_example_gradients(model, theta, G, par);
    const Eigen::VectorXd fisher = static_cast<double>(N) * nn::squared_column_mean(G, par);
    const Eigen::VectorXd ggn_diag = nn::ggn_diagonal(model, theta, ggn_options);
    const Eigen::VectorXd ggn_m = nn::ggn_vector_product(model, theta, m, ggn_options);
    t.zero_adjoints();
    t.adjoint(loss.index()) = 1.0;
    t.reverse(scope.mark());
    for (Eigen::Index p = 0; p < P; ++p) g(p) = t.adjoint(first + static_cast<ad::index_t>(p));
    out.losses(step) = loss.value();
    m = beta1 * m + (1.0 - beta1) * g;
    v = beta2 * v + (1.0 - beta2) * fisher;
    const double c1 = 1.0 - std::pow(beta1, step + 1), c2 = 1.0 - std::pow(beta2, step + 1);
    theta.array() -=
        lr * (m.array() / c1) / ((v.array() / c2).sqrt() + eps) +
        lr * decay * (ggn_diag.array() * theta.array() + ggn_m.array()) / static_cast<double>(N);
    out.thetas.col(step) = theta;
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sequential_mlp_after_any_tape_history) {
  const auto model = mlp_model(24);
  const Eigen::VectorXd theta = initial_theta(model);
  ngvi::test::check_position_independence(
      "13-50-1 Sequential + GaussianFixedNoise total_loss",
      [&](const auto& th) { return model.total_loss(th); }, theta, false);
}

BOOST_AUTO_TEST_CASE(adam_loop_with_per_example_work_on_1_2_3_threads) {
  constexpr int steps = 100;
  const Trajectory one = train(1, steps);
  BOOST_TEST(one.losses(steps - 1) < 0.5 * one.losses(0),
             "the loop should train: loss " << one.losses(0) << " -> " << one.losses(steps - 1));
  for (int threads : {2, 3}) {
    const Trajectory other = train(threads, steps);
    NGVI_CHECK_BITWISE(other.losses, one.losses, std::to_string(threads) + " threads vs 1: losses");
    NGVI_CHECK_BITWISE(other.thetas, one.thetas,
                       std::to_string(threads) + " threads vs 1: θ after each step");
  }
}

BOOST_AUTO_TEST_SUITE_END()
