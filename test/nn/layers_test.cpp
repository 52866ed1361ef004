// Tests of nn/dense.hpp, nn/activations.hpp and nn/sequential.hpp: forward values against a
// hand-written loop, Var values against double, derivatives against finite differences and
// forward-over-reverse Hessians, tape size, the forward cache and construction errors; dense
// layers without a bias: their layout, their derivatives against finite differences, and that
// such a network is the biased one with those biases fixed at zero.
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <nn/sequential.hpp>

#include <support/check_report.hpp>

BOOST_AUTO_TEST_SUITE(layers_test)

using namespace ngvi;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::verify::compare;

namespace {

// The network written out coefficient by coefficient, independent of Eigen products and of
// the fused nodes: layer k is z_o = Σ_j W(o, j) a_j + b_o with W row-major in θ (b_o = 0 for a
// layer without a bias).
Eigen::MatrixXd hand_forward(const nn::Sequential& net, const Eigen::VectorXd& theta,
                             const Eigen::MatrixXd& X,
                             const std::vector<std::function<double(double)>>& acts) {
  Eigen::MatrixXd out(X.rows(), net.output_dim());
  for (Eigen::Index n = 0; n < X.rows(); ++n) {
    std::vector<double> a(static_cast<std::size_t>(X.cols()));
    for (Eigen::Index j = 0; j < X.cols(); ++j) a[j] = X(n, j);
    std::size_t act = 0;
    std::size_t dense = 0;
    for (const nn::Layer& layer : net.layers()) {
      if (std::holds_alternative<nn::Dense>(layer)) {
        const nn::DenseSlot& d = net.dense_layers()[dense++];
        std::vector<double> z(d.out);
        for (Eigen::Index o = 0; o < d.out; ++o) {
          double s = d.has_bias() ? theta(d.bias.offset + o) : 0.0;
          for (Eigen::Index j = 0; j < d.in; ++j) s += theta(d.weight.offset + o * d.in + j) * a[j];
          z[o] = s;
        }
        a = z;
      } else {
        for (double& v : a) v = acts[act](v);
        ++act;
      }
    }
    for (Eigen::Index k = 0; k < net.output_dim(); ++k) out(n, k) = a[k];
  }
  return out;
}

double relu(double x) { return x > 0 ? x : 0.0; }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus(double x) { return std::log1p(std::exp(x)); }

nn::Sequential all_activations_net() {
  return nn::Sequential{nn::Dense(4, 6), nn::Tanh{},     nn::Dense(6, 5), nn::Sigmoid{},
                        nn::Dense(5, 5), nn::Softplus{}, nn::Dense(5, 4), nn::Relu{},
                        nn::Dense(4, 3), nn::Identity{}};
}
const std::vector<std::function<double(double)>> all_acts = {
    [](double x) { return std::tanh(x); }, sigmoid, softplus, relu, [](double x) { return x; }};

Eigen::VectorXd random_theta(const nn::Sequential& net, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Eigen::VectorXd th;
  net.init(th, rng);
  // Non-zero biases, so a wrong bias index shows.
  for (const nn::DenseSlot& d : net.dense_layers())
    if (d.has_bias()) nn::init_normal(th, d.bias, rng, 0.3);
  return th;
}

// The first and the last dense layer without a bias: θ = [W0 (4×3) | W1 (3×4) | b1 | W2 (2×3)].
nn::Sequential partly_bias_free_net() {
  return nn::Sequential{nn::Dense(3, 4, nn::Bias::none), nn::Tanh{}, nn::Dense(4, 3),
                        nn::Softplus{}, nn::Dense(3, 2, nn::Init::zeros, nn::Bias::none)};
}
// The same network with every bias.
nn::Sequential biased_net() {
  return nn::Sequential{nn::Dense(3, 4), nn::Tanh{}, nn::Dense(4, 3), nn::Softplus{},
                        nn::Dense(3, 2)};
}

Eigen::MatrixXd random_batch(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  Eigen::MatrixXd X(rows, cols);
  for (Eigen::Index k = 0; k < X.size(); ++k) X(k) = n(rng);
  return X;
}

// Σ R ∘ F for the network's output F(θ) on the batch X: a scalar of the whole output (any smooth
// function would do), generic in θ's scalar type. Holds references to its arguments.
auto output_objective(const nn::Sequential& net, const Eigen::MatrixXd& X,
                      const Eigen::MatrixXd& R) {
  return [&net, &X, &R](const auto& theta) {
    using T = typename std::decay_t<decltype(theta)>::Scalar;
    const nn::Matrix<T> F = net.forward(nn::Vector<T>(theta), X);
    return T(ad::dot(F, R));
  };
}

}  // namespace

BOOST_AUTO_TEST_CASE(layout_names_and_sizes) {
  const nn::Sequential net{nn::Dense(13, 50), nn::Tanh{}, nn::Dense(50, 1)};
  BOOST_TEST(net.num_params() == 751);
  BOOST_TEST(net.layout().block("dense0.weight").rows == 50);
  BOOST_TEST(net.layout().block("dense0.weight").cols == 13);
  BOOST_TEST(net.layout().block("dense0.bias").offset == 650);
  BOOST_TEST(net.layout().block("dense1.weight").offset == 700);
  BOOST_TEST(net.layout().block("dense1.bias").offset == 750);
  BOOST_TEST(net.describe() == "dense(13->50) tanh dense(50->1)");
  const nn::Sequential built = nn::Sequential::mlp({13, 50, 1}, nn::Tanh{});
  BOOST_TEST(built.describe() == net.describe());
}

BOOST_AUTO_TEST_CASE(forward_matches_a_hand_written_loop) {
  const nn::Sequential net = all_activations_net();
  const Eigen::VectorXd th = random_theta(net, 1);
  const Eigen::MatrixXd X = random_batch(9, 4, 2);
  const Eigen::MatrixXd F = net.forward(th, X);
  NGVI_CHECK_REPORT(
      compare(F, hand_forward(net, th, X, all_acts), tol::closed_form, "forward vs loop"));
}

BOOST_AUTO_TEST_CASE(var_and_dual_forward_values_equal_double) {
  const nn::Sequential net = all_activations_net();
  const Eigen::VectorXd th = random_theta(net, 3);
  const Eigen::MatrixXd X = random_batch(7, 4, 4);
  const Eigen::MatrixXd F = net.forward(th, X);
  ad::TapeScope<double> scope;
  const ad::VarVector<double> tv = th.cast<ad::Var<double>>();
  NGVI_CHECK_REPORT(
      compare(ad::values_of(net.forward(tv, X)), F, tol::ad_vs_ad, "Var forward vs double"));
  using D = ad::Dual<double, 2>;
  ad::TapeScope<D> dscope;
  const ad::VarVector<D> dv = th.cast<D>().cast<ad::Var<D>>();
  NGVI_CHECK_REPORT(
      compare(ad::values_of(net.forward(dv, X)), F, tol::ad_vs_ad, "Var<Dual> forward vs double"));
}

// A layer is a handful of fused entries whatever the batch size.
BOOST_AUTO_TEST_CASE(a_layer_is_a_handful_of_tape_entries) {
  const nn::Sequential net{nn::Dense(13, 50), nn::Tanh{}, nn::Dense(50, 1)};
  const Eigen::VectorXd th = random_theta(net, 5);
  auto statements_for = [&](Eigen::Index batch) {
    ad::TapeScope<double> scope;
    ad::Tape<double>& t = scope.tape();
    ad::VarVector<double> tv(th.size());
    for (Eigen::Index i = 0; i < th.size(); ++i) tv(i) = ad::Var<double>::independent(th(i));
    const std::size_t before = t.num_statements();
    (void)net.forward(tv, random_batch(batch, 13, 6));
    return t.num_statements() - before;
  };
  const std::size_t small = statements_for(3), large = statements_for(455);
  BOOST_TEST(small == large);
  BOOST_TEST(large == 3u);  // 2 dense layers (one ad::affine node each) + 1 activation
}

BOOST_AUTO_TEST_CASE(gradient_matches_finite_differences) {
  const nn::Sequential net{nn::Dense(3, 4), nn::Tanh{},    nn::Dense(4, 3), nn::Softplus{},
                           nn::Dense(3, 2), nn::Sigmoid{}, nn::Dense(2, 2)};
  const Eigen::VectorXd th = random_theta(net, 7);
  const Eigen::MatrixXd X = random_batch(5, 3, 8);
  const Eigen::MatrixXd R = random_batch(5, 2, 9);
  const auto f = output_objective(net, X, R);
  NGVI_CHECK_REPORT(ad::verify::check_gradient(f, th));
  NGVI_CHECK_REPORT(ad::verify::check_hessian(f, th));
}

// ReLU away from its kink: FD is valid there; the second derivative of the relu part is 0.
BOOST_AUTO_TEST_CASE(relu_gradient_matches_finite_differences) {
  const nn::Sequential net{nn::Dense(3, 6), nn::Relu{}, nn::Dense(6, 1)};
  const Eigen::VectorXd th = random_theta(net, 11);
  const Eigen::MatrixXd X = random_batch(4, 3, 12);
  auto f = [&](const auto& theta) {
    using T = typename std::decay_t<decltype(theta)>::Scalar;
    const nn::Matrix<T> F = net.forward(nn::Vector<T>(theta), X);
    return T(ad::squared_norm(F));
  };
  // The pre-activations are far enough from 0 for the FD stencil of the default step search.
  const nn::ForwardCache<double> c = net.forward_with_cache(th, X);
  BOOST_TEST_REQUIRE(c.pre_activations[0].cwiseAbs().minCoeff() > 1e-3);
  NGVI_CHECK_REPORT(ad::verify::check_gradient(f, th));
  NGVI_CHECK_REPORT(ad::verify::check_hessian(f, th));
  // relu(z) on double: max(z, 0), and NaN stays NaN.
  Eigen::MatrixXd z(1, 3);
  z << -1.0, 2.0, std::nan("");
  const Eigen::MatrixXd r = nn::Relu::apply(z);
  BOOST_TEST(r(0, 0) == 0.0);
  BOOST_TEST(r(0, 1) == 2.0);
  BOOST_TEST(std::isnan(r(0, 2)));
}

// δ = ∂L/∂Z read from the cache's consecutive tape indices equals the hand-derived backprop
// for L = ½Σ F² of a one-hidden-layer tanh net: δ₂ = F, δ₁ = (δ₂ W₂) ∘ (1 − tanh²(Z₁)).
BOOST_AUTO_TEST_CASE(cache_gives_pre_activation_adjoints) {
  const nn::Sequential net{nn::Dense(3, 5), nn::Tanh{}, nn::Dense(5, 2)};
  const Eigen::VectorXd th = random_theta(net, 13);
  const Eigen::MatrixXd X = random_batch(6, 3, 14);
  ad::Recording<double> rec;
  const ad::VarVector<double> tv = rec.inputs(th);
  const nn::ForwardCache<ad::Var<double>> c = net.forward_with_cache(tv, X);
  BOOST_TEST(c.inputs.size() == 2u);
  BOOST_TEST(c.pre_activations.size() == 2u);
  BOOST_TEST_REQUIRE(rec.backward(0.5 * ad::squared_norm(c.output)));
  const Eigen::MatrixXd F = ad::values_of(c.output);
  const Eigen::MatrixXd Z1 = ad::values_of(c.pre_activations[0]);
  const Eigen::Map<const nn::RowMajorMatrix<double>> W2(
      th.data() + net.dense_layers()[1].weight.offset, 2, 5);
  const Eigen::MatrixXd d2 = F;
  const Eigen::MatrixXd d1 = ((d2 * W2).array() * (1.0 - Z1.array().tanh().square())).matrix();
  NGVI_CHECK_REPORT(
      compare(rec.adjoints_of(c.pre_activations[1]), d2, tol::closed_form, "delta of layer 2"));
  NGVI_CHECK_REPORT(
      compare(rec.adjoints_of(c.pre_activations[0]), d1, tol::closed_form, "delta of layer 1"));
  NGVI_CHECK_REPORT(compare(ad::values_of(c.inputs[1]), Eigen::MatrixXd(Z1.array().tanh()),
                            tol::closed_form, "input of layer 2"));
  NGVI_CHECK_REPORT(compare(ad::values_of(c.inputs[0]), X, tol::exact, "input of layer 1"));
  // Consecutive indices, column-major: what the batched per-example route relies on.
  const auto& Z = c.pre_activations[0];
  for (Eigen::Index k = 0; k < Z.size(); ++k) BOOST_TEST(Z(k).index() == Z(0).index() + k);
}

// trace is the network's one pass. On Var its output is one matrix variable with forward()'s
// values, and the hook sees each dense layer in order with its input and pre-activation. With θ
// constant and the first pre-activation lifted onto the tape (the batched per-example route's
// form), the adjoints of every pre-activation are those of the Var route. An activation in front
// of the first dense layer acts on X.
BOOST_AUTO_TEST_CASE(trace_is_the_one_pass_with_a_hook_per_dense_layer) {
  const nn::Sequential net{nn::Tanh{}, nn::Dense(3, 5), nn::Sigmoid{}, nn::Dense(5, 2)};
  const Eigen::VectorXd th = random_theta(net, 21);
  const Eigen::MatrixXd X = random_batch(6, 3, 22);
  const Eigen::MatrixXd F = net.forward(th, X);
  NGVI_CHECK_REPORT(compare(F, hand_forward(net, th, X, all_acts), tol::closed_form,
                            "forward with a leading activation vs loop"));
  std::vector<Eigen::MatrixXd> inputs, deltas;
  {
    ad::Recording<double> rec;
    const ad::VarVector<double> tv = rec.inputs(th);
    std::vector<ad::MatrixVar<double>> Z;
    const ad::MatrixVar<double> out =
        net.trace(tv, X, [&](std::size_t k, const auto& in, const ad::MatrixVar<double>& z) {
          BOOST_TEST(k == Z.size());
          BOOST_TEST(in.cols() == net.dense_layers()[k].in);
          if constexpr (ad::is_matrix_var_v<decltype(in)>)
            inputs.emplace_back(in.value());
          else
            inputs.emplace_back(in);
          Z.push_back(z);
        });
    BOOST_TEST_REQUIRE(Z.size() == 2u);
    NGVI_CHECK_REPORT(compare(Eigen::MatrixXd(out.value()), F, tol::ad_vs_ad, "trace vs forward"));
    NGVI_CHECK_REPORT(compare(inputs[0], Eigen::MatrixXd(X.array().tanh()), tol::closed_form,
                              "input of layer 1: tanh(X)"));
    BOOST_TEST_REQUIRE(rec.backward(0.5 * ad::squared_norm(out)));
    for (const ad::MatrixVar<double>& z : Z) deltas.push_back(rec.adjoints_of(z));
  }
  ad::Recording<double> rec;
  std::vector<ad::MatrixVar<double>> Z;
  const ad::MatrixVar<double> out = net.trace(
      th, X, [&](std::size_t, const auto&, const ad::MatrixVar<double>& z) { Z.push_back(z); },
      [&rec](const Eigen::MatrixXd& z) { return rec.lift_matrix(z); });
  BOOST_TEST_REQUIRE(Z.size() == 2u);
  BOOST_TEST(Z[0].is_active());
  NGVI_CHECK_REPORT(compare(Eigen::MatrixXd(out.value()), F, tol::ad_vs_ad, "lifted trace"));
  BOOST_TEST_REQUIRE(rec.backward(0.5 * ad::squared_norm(out)));
  NGVI_CHECK_REPORT(
      compare(rec.adjoints_of(Z[0]), deltas[0], tol::ad_vs_ad, "δ of layer 1, θ constant"));
  NGVI_CHECK_REPORT(
      compare(rec.adjoints_of(Z[1]), deltas[1], tol::ad_vs_ad, "δ of layer 2, θ constant"));
}

BOOST_AUTO_TEST_CASE(init_follows_the_layer_choice) {
  const nn::Sequential net{nn::Dense(20, 30), nn::Relu{}, nn::Dense(30, 10, nn::Init::zeros),
                           nn::Tanh{}, nn::Dense(10, 2)};
  std::mt19937_64 rng(1);
  Eigen::VectorXd th;
  net.init(th, rng);
  BOOST_TEST(th.size() == net.num_params());
  const auto& L = net.layout();
  BOOST_TEST(nn::vector_view(th, L.block("dense1.weight")).cwiseAbs().maxCoeff() == 0.0);
  BOOST_TEST(nn::vector_view(th, L.block("dense0.bias")).cwiseAbs().maxCoeff() == 0.0);
  BOOST_TEST(nn::vector_view(th, L.block("dense2.weight")).cwiseAbs().maxCoeff() <=
             std::sqrt(6.0 / 12.0));
  BOOST_TEST(nn::vector_view(th, L.block("dense0.weight")).cwiseAbs().maxCoeff() >
             std::sqrt(6.0 / 50.0));  // He normal
}

// Init::fan_in_uniform (through Sequential::mlp) draws the biases too, with the weight's fan-in:
// U(±1/sqrt(in)) for both blocks of each layer.
BOOST_AUTO_TEST_CASE(fan_in_uniform_draws_weights_and_biases) {
  const nn::Sequential net = nn::Sequential::mlp({13, 50, 1}, nn::Relu{}, nn::Init::fan_in_uniform);
  std::mt19937_64 rng(5);
  Eigen::VectorXd th;
  net.init(th, rng);
  const auto& L = net.layout();
  for (const auto& [block, fan_in] :
       {std::pair{"dense0.weight", 13.0}, std::pair{"dense0.bias", 13.0},
        std::pair{"dense1.weight", 50.0}}) {
    const auto v = nn::vector_view(th, L.block(block));
    BOOST_TEST_CONTEXT(block) {
      BOOST_TEST(v.cwiseAbs().maxCoeff() <= 1.0 / std::sqrt(fan_in));
      BOOST_TEST(v.cwiseAbs().minCoeff() > 0.0);
    }
  }
  BOOST_TEST(std::abs(th(th.size() - 1)) <= 1.0 / std::sqrt(50.0));  // the output bias
  BOOST_TEST(th(th.size() - 1) != 0.0);
}

BOOST_AUTO_TEST_CASE(bad_shapes_are_rejected) {
  BOOST_CHECK_THROW((nn::Sequential{nn::Dense(3, 4), nn::Tanh{}, nn::Dense(5, 1)}),
                    std::invalid_argument);
  BOOST_CHECK_THROW((nn::Sequential{nn::Tanh{}}), std::invalid_argument);
  BOOST_CHECK_THROW(nn::Dense(0, 3), std::invalid_argument);
  BOOST_CHECK_THROW(nn::Sequential::mlp({3}, nn::Tanh{}), std::invalid_argument);
  const nn::Sequential net{nn::Dense(3, 4), nn::Tanh{}, nn::Dense(4, 1)};
  const Eigen::VectorXd th = Eigen::VectorXd::Zero(net.num_params());
  BOOST_CHECK_THROW(net.forward(th, Eigen::MatrixXd::Zero(2, 4)), std::invalid_argument);
  BOOST_CHECK_THROW(
      net.forward(Eigen::VectorXd(Eigen::VectorXd::Zero(3)), Eigen::MatrixXd::Zero(2, 3)),
      std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_layer_without_a_bias_has_weights_only) {
  BOOST_TEST(nn::Dense(3, 4, nn::Bias::none).num_params() == 12);
  BOOST_TEST(nn::Dense(3, 4).num_params() == 16);
  BOOST_TEST(nn::Dense(3, 4, nn::Init::zeros).has_bias());
  const nn::Sequential net = partly_bias_free_net();
  BOOST_TEST(net.num_params() == 12 + 12 + 3 + 6);
  BOOST_TEST(!net.layout().contains("dense0.bias"));
  BOOST_TEST(net.layout().block("dense1.weight").offset == 12);
  BOOST_TEST(net.layout().block("dense1.bias").offset == 24);
  BOOST_TEST(net.layout().block("dense2.weight").offset == 27);
  BOOST_TEST(!net.layout().contains("dense2.bias"));
  BOOST_TEST(net.describe() ==
             "dense(3->4, no bias) tanh dense(4->3) softplus dense(3->2, no bias)");
  const Eigen::VectorXd th = random_theta(net, 21);
  BOOST_TEST(th.size() == net.num_params());
  BOOST_TEST(th.segment(27, 6).isZero());  // Init::zeros
  const Eigen::MatrixXd X = random_batch(6, 3, 22);
  NGVI_CHECK_REPORT(
      compare(net.forward(th, X),
              hand_forward(net, th, X, {[](double x) { return std::tanh(x); }, softplus}),
              tol::closed_form, "forward without biases vs loop"));
}

BOOST_AUTO_TEST_CASE(a_layer_without_a_bias_matches_finite_differences) {
  const nn::Sequential net = partly_bias_free_net();
  std::mt19937_64 rng(23);
  Eigen::VectorXd th;
  net.init(th, rng);
  nn::init_normal(th, net.layout().block("dense2.weight"), rng, 0.5);  // off Init::zeros
  const Eigen::MatrixXd X = random_batch(5, 3, 24);
  const Eigen::MatrixXd R = random_batch(5, 2, 25);
  const auto f = output_objective(net, X, R);
  NGVI_CHECK_REPORT(ad::verify::check_gradient(f, th));
  NGVI_CHECK_REPORT(ad::verify::check_hessian(f, th));
}

// The value, gradient and Hessian of Σ R ∘ F without the biases of layers 0 and 2 equal those of
// the biased network at the same weights with those biases 0, restricted to the shared entries.
BOOST_AUTO_TEST_CASE(a_layer_without_a_bias_is_a_biased_layer_with_its_bias_fixed_at_zero) {
  const nn::Sequential bias_free = partly_bias_free_net(), biased = biased_net();
  std::mt19937_64 rng(26);
  Eigen::VectorXd th(bias_free.num_params());
  for (Eigen::Index p = 0; p < th.size(); ++p)
    th(p) = std::normal_distribution<double>(0, 0.7)(rng);
  // θ of the biased network: the same weights and layer-1 bias, zero biases in layers 0 and 2;
  // shared[p] is where entry p of the bias-free θ sits in it.
  Eigen::VectorXd tb = Eigen::VectorXd::Zero(biased.num_params());
  std::vector<Eigen::Index> shared;
  for (std::size_t k = 0; k < bias_free.dense_layers().size(); ++k) {
    const nn::DenseSlot &a = bias_free.dense_layers()[k], &b = biased.dense_layers()[k];
    for (Eigen::Index j = 0; j < a.weight.size(); ++j) shared.push_back(b.weight.offset + j);
    for (Eigen::Index j = 0; j < a.bias.size(); ++j) shared.push_back(b.bias.offset + j);
  }
  BOOST_TEST_REQUIRE(static_cast<Eigen::Index>(shared.size()) == th.size());
  for (Eigen::Index p = 0; p < th.size(); ++p) tb(shared[static_cast<std::size_t>(p)]) = th(p);
  const Eigen::MatrixXd X = random_batch(7, 3, 27);
  const Eigen::MatrixXd R = random_batch(7, 2, 28);
  BOOST_TEST((bias_free.forward(th, X).array() == biased.forward(tb, X).array()).all());
  const Eigen::VectorXd g = ad::gradient(output_objective(bias_free, X, R), th);
  const Eigen::VectorXd gb = ad::gradient(output_objective(biased, X, R), tb);
  NGVI_CHECK_REPORT(compare(g, Eigen::VectorXd(gb(shared)), tol::ad_vs_ad,
                            "gradient without biases vs the biased one's shared entries"));
  const Eigen::MatrixXd h = ad::hessian(output_objective(bias_free, X, R), th);
  const Eigen::MatrixXd hb = ad::hessian(output_objective(biased, X, R), tb);
  NGVI_CHECK_REPORT(compare(h, Eigen::MatrixXd(hb(shared, shared)), tol::ad_vs_ad,
                            "Hessian without biases vs the biased one's shared block"));
  // The dropped biases matter in the biased network: its gradient there is not 0.
  BOOST_TEST(gb.segment(biased.layout().block("dense0.bias").offset, 4).norm() > 0.0);
}

BOOST_AUTO_TEST_SUITE_END()
