// Tests of nn/per_example.hpp: per-example gradients by the batched (BackPACK-style) route
// against the generic one-example-at-a-time route and against independent references
// (Σ rows = batch gradient, each row = the gradient of that example's loss on its own),
// bitwise equality across 1, 2 and 7 threads, output Jacobians against ad::jacobian, and
// per-example Hessians against the Hessian of the total loss. The minibatch (ExampleIndices)
// overloads are checked against the same model built on data.subset(idx), against the rows of
// the all-examples result, batched route against generic route, and across thread counts.
// The minibatch gradient moments (Σ gᵢ and Σ gᵢ² without the gradient matrix), and the squares
// per_example_gradients forms beside G, against the explicit sums of the generic route's rows.
// Gradients, Jacobians, thread counts and moments also for dense layers without a bias.
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <nn/likelihoods/likelihoods.hpp>
#include <nn/per_example.hpp>
#include <nn/supervised.hpp>

#include <support/check_report.hpp>
#include <support/minibatch.hpp>

BOOST_AUTO_TEST_SUITE(per_example_test)

using namespace ngvi;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::verify::compare;

namespace {

nn::Dataset make_data(Eigen::Index n, Eigen::Index d, Eigen::Index k, std::uint64_t seed,
                      int kind) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  nn::Dataset data;
  data.X.resize(n, d);
  data.Y.resize(n, k);
  for (Eigen::Index q = 0; q < data.X.size(); ++q) data.X(q) = z(rng);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < k; ++j) {
      if (kind == 0) data.Y(i, j) = std::tanh(data.X.row(i).sum()) + 0.3 * z(rng);  // regression
      if (kind == 1) data.Y(i, j) = static_cast<double>((i + j) % 3);      // class index / count
      if (kind == 2) data.Y(i, j) = static_cast<double>((i * 7 + j) % 2);  // binary
    }
  return data;
}

template <class M>
Eigen::VectorXd start(const M& model, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Eigen::VectorXd th;
  model.init(th, rng);
  std::normal_distribution<double> z(0.0, 0.2);
  for (Eigen::Index p = 0; p < th.size(); ++p) th(p) += z(rng);  // biases off zero too
  return th;
}

// The checks every model must pass (see the top of this file).
template <class M>
void check_model(const M& model, const Eigen::VectorXd& th, const std::string& what) {
  const Eigen::Index N = model.num_examples(), P = model.num_params();
  nn::RowMatrixXd Gb, Gg;
  Eigen::VectorXd lb, lg;
  nn::per_example_gradients_batched(model, th, Gb, {.threads = 1, .grain = 5}, &lb);
  nn::per_example_gradients_generic(model, th, Gg, {.threads = 1, .grain = 5}, &lg);
  BOOST_TEST(Gb.rows() == N);
  BOOST_TEST(Gb.cols() == P);
  NGVI_CHECK_REPORT(
      compare(Gb, Gg, tol::ad_vs_ad, what + ": batched vs generic per-example gradients"));
  NGVI_CHECK_REPORT(compare(lb, lg, tol::ad_vs_ad, what + ": losses of both routes"));
  NGVI_CHECK_REPORT(
      compare(lb, model.example_losses(th), tol::ad_vs_ad, what + ": losses vs example_losses"));
  // Σ rows = gradient of the total (batched) loss.
  const Eigen::VectorXd g = ad::gradient([&](const auto& t) { return model.total_loss(t); }, th);
  NGVI_CHECK_REPORT(compare(Gb.colwise().sum().transpose().eval(), g, tol::ad_vs_ad,
                            what + ": Σ per-example gradients vs batch gradient"));
  // One example at a time, each on its own recording.
  for (Eigen::Index i : {Eigen::Index(0), N / 2, N - 1}) {
    const Eigen::VectorXd gi =
        ad::gradient([&](const auto& t) { return model.example_loss(t, i); }, th);
    NGVI_CHECK_REPORT(compare(Gb.row(i).transpose().eval(), gi, tol::ad_vs_ad,
                              what + ": row " + std::to_string(i) + " vs gradient of ℓᵢ alone"));
  }
  // Jacobians: batched vs generic vs ad::jacobian of example_output.
  const Eigen::Index K = model.output_dim();
  nn::RowMatrixXd Jb, Jg;
  nn::per_example_jacobians_batched(model, th, Jb, {.threads = 1, .grain = 4});
  nn::per_example_jacobians_generic(model, th, Jg, {.threads = 1, .grain = 4});
  BOOST_TEST(Jb.rows() == N * K);
  NGVI_CHECK_REPORT(compare(Jb, Jg, tol::ad_vs_ad, what + ": batched vs generic Jacobians"));
  const Eigen::MatrixXd J3 =
      ad::jacobian([&](const auto& t) { return model.example_output(t, 3); }, th);
  NGVI_CHECK_REPORT(compare(Eigen::MatrixXd(nn::jacobian_block(Jb, 3, K)), J3, tol::ad_vs_ad,
                            what + ": J_3 vs ad::jacobian"));
}

// Bitwise equality of every result for 1, 2 and 7 threads (grain fixed).
template <class M>
void check_thread_invariance(const M& model, const Eigen::VectorXd& th, const std::string& what) {
  nn::RowMatrixXd G1, G;
  nn::per_example_gradients(model, th, G1, {.threads = 1, .grain = 3});
  const Eigen::VectorXd d1 = nn::squared_column_mean(G1, {.threads = 1});
  nn::RowMatrixXd Gg1;
  nn::per_example_gradients_generic(model, th, Gg1, {.threads = 1, .grain = 3});
  nn::RowMatrixXd J1, J;
  nn::per_example_jacobians(model, th, J1, {.threads = 1, .grain = 3});
  for (int threads : {2, 7}) {
    const std::string tag = what + ", " + std::to_string(threads) + " threads";
    nn::per_example_gradients(model, th, G, {.threads = threads, .grain = 3});
    NGVI_CHECK_REPORT(compare(G, G1, tol::exact, tag + ": batched gradients"));
    NGVI_CHECK_REPORT(compare(nn::squared_column_mean(G, {.threads = threads}), d1, tol::exact,
                              tag + ": squared column mean"));
    nn::per_example_gradients_generic(model, th, G, {.threads = threads, .grain = 3});
    NGVI_CHECK_REPORT(compare(G, Gg1, tol::exact, tag + ": generic gradients"));
    nn::per_example_jacobians(model, th, J, {.threads = threads, .grain = 3});
    NGVI_CHECK_REPORT(compare(J, J1, tol::exact, tag + ": Jacobians"));
  }
}

// The idx overloads on test::mixed_minibatch (unsorted, repeats, one consecutive block).
template <class M>
void check_minibatch(const M& model, const Eigen::VectorXd& th, const std::string& what) {
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(model.num_examples());
  const auto n = static_cast<Eigen::Index>(idx.size());
  const Eigen::Index K = model.output_dim();
  const M sub = test::subset_model(model, idx);
  const nn::ParallelOptions one{.threads = 1, .grain = 3}, two{.threads = 2, .grain = 3};
  nn::RowMatrixXd G, Gg, Gsub, Gall, G2;
  Eigen::VectorXd l, lsub;
  nn::per_example_gradients(model, th, idx, G, one, &l);
  BOOST_TEST(G.rows() == n);
  nn::per_example_gradients(sub, th, Gsub, one, &lsub);
  NGVI_CHECK_REPORT(
      compare(G, Gsub, tol::ad_vs_ad, what + ": minibatch gradients vs subset model"));
  NGVI_CHECK_REPORT(compare(l, lsub, tol::ad_vs_ad, what + ": minibatch losses vs subset model"));
  nn::per_example_gradients_generic(model, th, idx, Gg, one);
  NGVI_CHECK_REPORT(
      compare(G, Gg, tol::ad_vs_ad, what + ": minibatch gradients, batched vs generic route"));
  nn::per_example_gradients(model, th, Gall, one);
  nn::RowMatrixXd picked(n, Gall.cols());
  for (Eigen::Index k = 0; k < n; ++k) picked.row(k) = Gall.row(idx[static_cast<std::size_t>(k)]);
  NGVI_CHECK_REPORT(
      compare(G, picked, tol::ad_vs_ad, what + ": minibatch gradients vs rows idx of all N"));
  nn::per_example_gradients(model, th, idx, G2, two);
  NGVI_CHECK_REPORT(compare(G2, G, tol::exact, what + ": minibatch gradients, 2 vs 1 thread"));

  nn::RowMatrixXd J, Jg, Jsub, J2;
  nn::per_example_jacobians(model, th, idx, J, one);
  BOOST_TEST(J.rows() == n * K);
  nn::per_example_jacobians(sub, th, Jsub, one);
  NGVI_CHECK_REPORT(
      compare(J, Jsub, tol::ad_vs_ad, what + ": minibatch Jacobians vs subset model"));
  nn::per_example_jacobians_generic(model, th, idx, Jg, one);
  NGVI_CHECK_REPORT(
      compare(J, Jg, tol::ad_vs_ad, what + ": minibatch Jacobians, batched vs generic route"));
  nn::per_example_jacobians(model, th, idx, J2, two);
  NGVI_CHECK_REPORT(compare(J2, J, tol::exact, what + ": minibatch Jacobians, 2 vs 1 thread"));
  // The outputs the Jacobians were taken at: row k is f_{idx[k]}(θ), the model's own output.
  nn::RowMatrixXd Jo;
  Eigen::MatrixXd outputs;
  nn::per_example_jacobians(model, th, idx, Jo, two, &outputs);
  NGVI_CHECK_REPORT(compare(Jo, J, tol::exact, what + ": minibatch Jacobians with outputs"));
  Eigen::MatrixXd direct(n, K);
  for (Eigen::Index k = 0; k < n; ++k)
    direct.row(k) = model.example_output(th, idx[static_cast<std::size_t>(k)]).transpose();
  NGVI_CHECK_REPORT(
      compare(outputs, direct, tol::ad_vs_ad, what + ": Jacobians' outputs vs example_output"));
}

// add_gradient_sums_and_squares on test::mixed_minibatch against the explicit sums of the rows of
// the generic route's per-example gradients (Σ_k G(k, p) and Σ_k G(k, p)², written out here),
// added onto non-zero starting values; bitwise the same for 1, 2 and 3 threads; and the
// generic route of the function (a CallableModel of the same network) against the same sums.
// The `squares` output of per_example_gradients against the same explicit sums (minibatch) and
// its own G's (all examples), bitwise the moments of add_gradient_sums_and_squares from zero
// (the same block moments in the same order) for 1, 2 and 3 threads, and on the generic route
// bitwise add_column_sums_and_squares of its G.
template <class M>
void check_gradient_moments(const M& model, const Eigen::VectorXd& th, const std::string& what) {
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(model.num_examples());
  const Eigen::Index P = model.num_params();
  nn::RowMatrixXd G;
  nn::per_example_gradients_generic(model, th, idx, G, {.threads = 1});
  const Eigen::VectorXd s0 = Eigen::VectorXd::LinSpaced(P, -1.0, 1.0),
                        q0 = Eigen::VectorXd::LinSpaced(P, 0.5, 2.0);
  Eigen::VectorXd ref_sum = s0, ref_squares = q0;
  for (Eigen::Index k = 0; k < G.rows(); ++k)
    for (Eigen::Index p = 0; p < P; ++p) {
      ref_sum(p) += G(k, p);
      ref_squares(p) += G(k, p) * G(k, p);
    }
  Eigen::VectorXd s1 = s0, q1 = q0;
  nn::add_gradient_sums_and_squares(model, th, idx, s1, q1, {.threads = 1, .grain = 3});
  NGVI_CHECK_REPORT(compare(s1, ref_sum, tol::ad_vs_ad, what + ": Σ gradients vs Σ rows of G"));
  NGVI_CHECK_REPORT(
      compare(q1, ref_squares, tol::ad_vs_ad, what + ": Σ squared gradients vs Σ rows of G∘G"));
  for (int threads : {2, 3}) {
    Eigen::VectorXd s = s0, q = q0;
    nn::add_gradient_sums_and_squares(model, th, idx, s, q, {.threads = threads, .grain = 3});
    const std::string tag = what + ", " + std::to_string(threads) + " threads";
    NGVI_CHECK_REPORT(compare(s, s1, tol::exact, tag + ": Σ gradients"));
    NGVI_CHECK_REPORT(compare(q, q1, tol::exact, tag + ": Σ squared gradients"));
  }
  const auto callable =
      nn::make_model([&model](const auto& t, Eigen::Index i) { return model.example_loss(t, i); },
                     model.num_examples(), P);
  Eigen::VectorXd sg = s0, qg = q0;
  nn::add_gradient_sums_and_squares(callable, th, idx, sg, qg, {.threads = 2, .grain = 3});
  NGVI_CHECK_REPORT(compare(sg, ref_sum, tol::ad_vs_ad, what + ": generic route, Σ gradients"));
  // add_gradient_squares: the squares alone, on both routes, bitwise those of the moments.
  for (int threads : {1, 3}) {
    Eigen::VectorXd q = q0, qc = q0;
    nn::add_gradient_squares(model, th, idx, q, {.threads = threads, .grain = 3});
    nn::add_gradient_squares(callable, th, idx, qc, {.threads = threads, .grain = 3});
    const std::string tag =
        what + ", add_gradient_squares, " + std::to_string(threads) + " threads";
    NGVI_CHECK_REPORT(compare(q, ref_squares, tol::ad_vs_ad, tag + " vs Σ rows of G∘G"));
    NGVI_CHECK_REPORT(compare(q, q1, tol::exact, tag + " vs add_gradient_sums_and_squares"));
    NGVI_CHECK_REPORT(compare(qc, ref_squares, tol::ad_vs_ad, tag + ", generic route"));
  }
  NGVI_CHECK_REPORT(
      compare(qg, ref_squares, tol::ad_vs_ad, what + ": generic route, Σ squared gradients"));

  const Eigen::VectorXd row_squares = G.colwise().squaredNorm().transpose();
  Eigen::VectorXd zero_sum = Eigen::VectorXd::Zero(P), moments = Eigen::VectorXd::Zero(P);
  nn::add_gradient_sums_and_squares(model, th, idx, zero_sum, moments, {.threads = 1, .grain = 3});
  for (int threads : {1, 2, 3}) {
    nn::RowMatrixXd Gt;
    Eigen::VectorXd squares;
    nn::per_example_gradients(model, th, idx, Gt, {.threads = threads, .grain = 3}, nullptr,
                              &squares);
    const std::string tag =
        what + ", per_example_gradients' squares, " + std::to_string(threads) + " threads";
    NGVI_CHECK_REPORT(compare(squares, row_squares, tol::ad_vs_ad, tag + " vs Σ rows of G∘G"));
    NGVI_CHECK_REPORT(compare(squares, moments, tol::exact, tag + " vs the gradient moments"));
    NGVI_CHECK_REPORT(compare(Gt, G, tol::ad_vs_ad, tag + ": G vs the generic route"));
  }
  nn::RowMatrixXd Gall;
  Eigen::VectorXd squares_all;
  nn::per_example_gradients(model, th, Gall, {.threads = 2, .grain = 5}, nullptr, &squares_all);
  NGVI_CHECK_REPORT(compare(squares_all, Gall.colwise().squaredNorm().transpose().eval(),
                            tol::ad_vs_ad, what + ": all examples, squares vs Σ rows of G∘G"));
  nn::RowMatrixXd Gg;
  Eigen::VectorXd squares_g, gs = Eigen::VectorXd::Zero(P), gq = Eigen::VectorXd::Zero(P);
  nn::per_example_gradients(callable, th, idx, Gg, {.threads = 2, .grain = 3}, nullptr, &squares_g);
  nn::add_column_sums_and_squares(Gg, gs, gq, {.threads = 1});
  NGVI_CHECK_REPORT(compare(squares_g, gq, tol::exact,
                            what + ": generic route, squares vs add_column_sums_and_squares"));
  NGVI_CHECK_REPORT(compare(squares_g, row_squares, tol::ad_vs_ad,
                            what + ": generic route, squares vs Σ rows of G∘G"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(mlp_gaussian_fixed_noise) {
  const nn::Supervised model(nn::Sequential{nn::Dense(13, 20), nn::Tanh{}, nn::Dense(20, 1)},
                             nn::GaussianFixedNoise(2.0), make_data(41, 13, 1, 1, 0));
  const Eigen::VectorXd th = start(model, 2);
  check_model(model, th, "tanh MLP, Gaussian");
  check_thread_invariance(model, th, "tanh MLP, Gaussian");
}

BOOST_AUTO_TEST_CASE(deep_net_every_activation_learned_noise) {
  const nn::Supervised model(
      nn::Sequential{nn::Sigmoid{}, nn::Dense(3, 6), nn::Relu{}, nn::Dense(6, 5), nn::Softplus{},
                     nn::Dense(5, 4), nn::Sigmoid{}, nn::Dense(4, 2), nn::Tanh{}, nn::Dense(2, 1),
                     nn::Identity{}},
      nn::GaussianLearnedNoise(3.0), make_data(23, 3, 1, 3, 0));
  const Eigen::VectorXd th = start(model, 4);
  check_model(model, th, "deep net, learned noise");
  check_thread_invariance(model, th, "deep net, learned noise");
  // The log-precision column: ∂ℓᵢ/∂s = ½τrᵢ² − ½ in closed form.
  nn::RowMatrixXd G;
  nn::per_example_gradients(model, th, G);
  const Eigen::MatrixXd F = model.outputs(th);
  const double tau = std::exp(th(model.likelihood_offset()));
  Eigen::VectorXd ref(model.num_examples());
  for (Eigen::Index i = 0; i < ref.size(); ++i) {
    const double r = model.data().Y(i, 0) - F(i, 0);
    ref(i) = 0.5 * tau * r * r - 0.5;
  }
  NGVI_CHECK_REPORT(compare(G.col(model.likelihood_offset()).eval(), ref, tol::closed_form,
                            "log-precision column"));
}

BOOST_AUTO_TEST_CASE(classification_and_counts) {
  const nn::Supervised softmax(nn::Sequential{nn::Dense(4, 7), nn::Tanh{}, nn::Dense(7, 3)},
                               nn::SoftmaxCategorical(3), make_data(19, 4, 1, 5, 1));
  check_model(softmax, start(softmax, 6), "softmax");
  check_thread_invariance(softmax, start(softmax, 6), "softmax");
  const nn::Supervised bern(nn::Sequential{nn::Dense(4, 5), nn::Relu{}, nn::Dense(5, 2)},
                            nn::BernoulliLogit(2), make_data(17, 4, 2, 7, 2));
  check_model(bern, start(bern, 8), "bernoulli, 2 outputs");
  const nn::Supervised pois(nn::Sequential{nn::Dense(4, 1)}, nn::PoissonLog(),
                            make_data(11, 4, 1, 9, 1));
  check_model(pois, start(pois, 10), "poisson, linear");
  const nn::Supervised het(nn::Sequential{nn::Dense(2, 6), nn::Softplus{}, nn::Dense(6, 2)},
                           nn::HeteroscedasticGaussian(), make_data(13, 2, 1, 11, 0));
  check_model(het, start(het, 12), "heteroscedastic");
}

// Dense layers without a bias (first and last), a likelihood parameter after the network's; and
// a last layer without a bias that ends θ (nothing follows it: a bias write there would run past
// each gradient row, which the ASan build reports).
BOOST_AUTO_TEST_CASE(layers_without_a_bias) {
  const nn::Supervised model(
      nn::Sequential{nn::Dense(3, 6, nn::Bias::none), nn::Tanh{}, nn::Dense(6, 4), nn::Softplus{},
                     nn::Dense(4, 1, nn::Bias::none)},
      nn::GaussianLearnedNoise(2.0), make_data(21, 3, 1, 13, 0));
  const Eigen::VectorXd th = start(model, 14);
  BOOST_TEST(model.num_params() == 18 + 24 + 4 + 4 + 1);
  check_model(model, th, "layers without a bias");
  check_thread_invariance(model, th, "layers without a bias");
  check_gradient_moments(model, th, "layers without a bias");
  const nn::Supervised last(
      nn::Sequential{nn::Dense(3, 5), nn::Tanh{}, nn::Dense(5, 2, nn::Bias::none)},
      nn::GaussianFixedNoise(1.5, 2), make_data(15, 3, 2, 15, 0));
  const Eigen::VectorXd tl = start(last, 16);
  BOOST_TEST(last.num_params() == 15 + 5 + 10);
  check_model(last, tl, "last layer without a bias, nothing after it");
  check_thread_invariance(last, tl, "last layer without a bias, nothing after it");
  check_gradient_moments(last, tl, "last layer without a bias, nothing after it");
}

BOOST_AUTO_TEST_CASE(squared_column_mean_is_the_mean_of_squares) {
  nn::RowMatrixXd G(3, 300);
  std::mt19937_64 rng(1);
  std::normal_distribution<double> z(0.0, 1.0);
  for (Eigen::Index k = 0; k < G.size(); ++k) G(k) = z(rng);
  Eigen::VectorXd ref(300);
  for (Eigen::Index p = 0; p < 300; ++p)
    ref(p) = (G(0, p) * G(0, p) + G(1, p) * G(1, p) + G(2, p) * G(2, p)) / 3.0;
  NGVI_CHECK_REPORT(
      compare(nn::squared_column_mean(G), ref, tol::closed_form, "squared column mean"));
  BOOST_TEST(nn::squared_column_mean(nn::RowMatrixXd(0, 4)).cwiseAbs().sum() == 0.0);
}

BOOST_AUTO_TEST_CASE(gradient_sums_and_squares_without_the_gradient_matrix) {
  const nn::Supervised gauss(nn::Sequential{nn::Dense(5, 6), nn::Tanh{}, nn::Dense(6, 1)},
                             nn::GaussianFixedNoise(2.0), make_data(14, 5, 1, 31, 0));
  check_gradient_moments(gauss, start(gauss, 32), "tanh MLP, Gaussian");
  const nn::Supervised deep(nn::Sequential{nn::Sigmoid{}, nn::Dense(3, 6), nn::Relu{},
                                           nn::Dense(6, 4), nn::Softplus{}, nn::Dense(4, 1)},
                            nn::GaussianLearnedNoise(3.0), make_data(13, 3, 1, 33, 0));
  check_gradient_moments(deep, start(deep, 34), "deep net, learned noise");
  const nn::Supervised softmax(nn::Sequential{nn::Dense(4, 5), nn::Tanh{}, nn::Dense(5, 3)},
                               nn::SoftmaxCategorical(3), make_data(13, 4, 1, 35, 1));
  check_gradient_moments(softmax, start(softmax, 36), "softmax");
  Eigen::VectorXd s = Eigen::VectorXd::Zero(gauss.num_params()), short_q(3);
  const std::vector<Eigen::Index> idx{0, 1};
  BOOST_CHECK_THROW(nn::add_gradient_sums_and_squares(gauss, start(gauss, 32), idx, s, short_q),
                    std::invalid_argument);
  BOOST_CHECK_THROW(nn::add_gradient_squares(gauss, start(gauss, 32), idx, short_q),
                    std::invalid_argument);
  BOOST_CHECK_THROW(nn::add_gradient_sums_and_squares(gauss, Eigen::VectorXd::Zero(2), idx, s, s),
                    std::invalid_argument);
  nn::RowMatrixXd G(2, 3);
  BOOST_CHECK_THROW(nn::add_column_sums_and_squares(G, s, s), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(per_example_hessians_sum_to_the_total_hessian) {
  const nn::Supervised model(nn::Sequential{nn::Dense(2, 3), nn::Tanh{}, nn::Dense(3, 1)},
                             nn::GaussianLearnedNoise(), make_data(9, 2, 1, 13, 0));
  const Eigen::VectorXd th = start(model, 14);
  std::vector<Eigen::MatrixXd> H, H2;
  nn::per_example_hessians(model, th, H, {.threads = 1, .grain = 2});
  BOOST_TEST(H.size() == 9u);
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(model.num_params(), model.num_params());
  for (const auto& h : H) sum += h;
  NGVI_CHECK_REPORT(compare(sum,
                            ad::hessian([&](const auto& t) { return model.total_loss(t); }, th),
                            tol::ad_vs_ad, "Σ per-example Hessians vs Hessian of the total"));
  nn::per_example_hessians(model, th, H2, {.threads = 2, .grain = 2});
  for (std::size_t i = 0; i < H.size(); ++i)
    NGVI_CHECK_REPORT(compare(H2[i], H[i], tol::exact, "Hessians, 2 threads"));
  NGVI_CHECK_REPORT(
      ad::verify::check_hessian([&](const auto& t) { return model.example_loss(t, 4); }, th));
  NGVI_CHECK_REPORT(
      compare(H[4], ad::hessian([&](const auto& t) { return model.example_loss(t, 4); }, th),
              tol::exact, "H_4 vs hessian of ℓ_4"));
}

BOOST_AUTO_TEST_CASE(minibatch_overloads) {
  const nn::Supervised gauss(nn::Sequential{nn::Dense(5, 6), nn::Tanh{}, nn::Dense(6, 1)},
                             nn::GaussianFixedNoise(2.0), make_data(14, 5, 1, 21, 0));
  check_minibatch(gauss, start(gauss, 22), "tanh MLP, Gaussian");
  const nn::Supervised noise(nn::Sequential{nn::Dense(3, 4), nn::Softplus{}, nn::Dense(4, 1)},
                             nn::GaussianLearnedNoise(3.0), make_data(12, 3, 1, 23, 0));
  check_minibatch(noise, start(noise, 24), "learned noise");
  const nn::Supervised softmax(nn::Sequential{nn::Dense(4, 5), nn::Tanh{}, nn::Dense(5, 3)},
                               nn::SoftmaxCategorical(3), make_data(13, 4, 1, 25, 1));
  check_minibatch(softmax, start(softmax, 26), "softmax");
}

BOOST_AUTO_TEST_CASE(minibatch_generic_model_and_hessians) {
  // A CallableModel (no batched route): row k must be ∇ℓ_{idx[k]} and ∇²ℓ_{idx[k]}.
  const nn::Supervised net(nn::Sequential{nn::Dense(2, 3), nn::Tanh{}, nn::Dense(3, 1)},
                           nn::GaussianLearnedNoise(), make_data(12, 2, 1, 27, 0));
  const auto callable =
      nn::make_model([&net](const auto& t, Eigen::Index i) { return net.example_loss(t, i); }, 12,
                     net.num_params());
  const Eigen::VectorXd th = start(net, 28);
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(12);
  nn::RowMatrixXd G, Gref;
  nn::per_example_gradients(callable, th, idx, G, {.threads = 1, .grain = 3});
  nn::per_example_gradients_batched(net, th, idx, Gref, {.threads = 1, .grain = 3});
  NGVI_CHECK_REPORT(
      compare(G, Gref, tol::ad_vs_ad, "CallableModel minibatch gradients vs batched route"));
  std::vector<Eigen::MatrixXd> H, H2;
  nn::per_example_hessians(callable, th, idx, H, {.threads = 1, .grain = 3});
  BOOST_TEST_REQUIRE(H.size() == idx.size());
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const Eigen::Index i = idx[k];
    NGVI_CHECK_REPORT(
        compare(H[k], ad::hessian([&](const auto& t) { return net.example_loss(t, i); }, th),
                tol::exact, "minibatch Hessian " + std::to_string(k) + " vs hessian of ℓ_idx[k]"));
  }
  nn::per_example_hessians(callable, th, idx, H2, {.threads = 2, .grain = 3});
  for (std::size_t k = 0; k < H.size(); ++k)
    NGVI_CHECK_REPORT(compare(H2[k], H[k], tol::exact, "minibatch Hessians, 2 vs 1 thread"));
}

BOOST_AUTO_TEST_CASE(minibatch_bad_indices_are_rejected) {
  const nn::Supervised model(nn::Sequential{nn::Dense(2, 1)}, nn::GaussianFixedNoise(),
                             make_data(4, 2, 1, 29, 0));
  const Eigen::VectorXd th = Eigen::VectorXd::Zero(model.num_params());
  nn::RowMatrixXd M;
  std::vector<Eigen::MatrixXd> H;
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices idx) { nn::per_example_gradients(model, th, idx, M); }, 4,
      "per_example_gradients");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices idx) { nn::per_example_gradients_generic(model, th, idx, M); }, 4,
      "per_example_gradients");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices idx) { nn::per_example_jacobians(model, th, idx, M); }, 4,
      "per_example_jacobians");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices idx) { nn::per_example_jacobians_generic(model, th, idx, M); }, 4,
      "per_example_jacobians");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices idx) { nn::per_example_hessians(model, th, idx, H); }, 4,
      "per_example_hessians");
  Eigen::VectorXd s = Eigen::VectorXd::Zero(model.num_params()), q = s;
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices idx) { nn::add_gradient_sums_and_squares(model, th, idx, s, q); }, 4,
      "add_gradient_sums_and_squares");
}

BOOST_AUTO_TEST_CASE(wrong_theta_size_is_rejected) {
  const nn::Supervised model(nn::Sequential{nn::Dense(2, 1)}, nn::GaussianFixedNoise(),
                             make_data(4, 2, 1, 15, 0));
  nn::RowMatrixXd G;
  BOOST_CHECK_THROW(nn::per_example_gradients(model, Eigen::VectorXd::Zero(2), G),
                    std::invalid_argument);
  BOOST_CHECK_THROW(nn::per_example_gradients_generic(model, Eigen::VectorXd::Zero(4), G),
                    std::invalid_argument);
}

// A model that is not nn::Supervised but has what the batched route asks for (a Sequential
// net, a likelihood, the data and where the likelihood's parameters sit in θ).
template <class Lik>
class OwnModel {
 public:
  explicit OwnModel(nn::Supervised<nn::Sequential, Lik> m) : m_(std::move(m)) {}
  Eigen::Index num_examples() const { return m_.num_examples(); }
  Eigen::Index num_params() const { return m_.num_params(); }
  template <class T>
  T example_loss(const nn::Vector<T>& theta, Eigen::Index i) const {
    return m_.example_loss(theta, i);
  }
  const nn::Sequential& net() const { return m_.net(); }
  const Lik& likelihood() const { return m_.likelihood(); }
  const nn::Dataset& data() const { return m_.data(); }
  Eigen::Index likelihood_offset() const { return m_.likelihood_offset(); }

 private:
  nn::Supervised<nn::Sequential, Lik> m_;
};
static_assert(nn::BatchedSequentialModel<OwnModel<nn::GaussianLearnedNoise>>);
static_assert(nn::BatchedSequentialModel<nn::Supervised<nn::Sequential, nn::BernoulliLogit>>);

BOOST_AUTO_TEST_CASE(the_batched_route_is_chosen_by_capability_not_by_type) {
  const nn::Supervised model(nn::Sequential{nn::Dense(3, 6), nn::Tanh{}, nn::Dense(6, 1)},
                             nn::GaussianLearnedNoise(3.0), make_data(17, 3, 1, 5, 0));
  const auto callable =
      nn::make_model([&model](const auto& t, Eigen::Index i) { return model.example_loss(t, i); },
                     model.num_examples(), model.num_params());
  static_assert(!nn::BatchedSequentialModel<decltype(callable)>);
  const OwnModel<nn::GaussianLearnedNoise> own(model);
  const Eigen::VectorXd th = start(model, 6);
  nn::RowMatrixXd G_own, G_generic;
  Eigen::VectorXd l_own, l_generic;
  nn::per_example_gradients(own, th, G_own, {.threads = 2, .grain = 4}, &l_own);
  nn::per_example_gradients_generic(model, th, G_generic, {.threads = 1, .grain = 4}, &l_generic);
  NGVI_CHECK_REPORT(compare(G_own, G_generic, tol::ad_vs_ad,
                            "own model by the batched route vs Supervised by the generic route"));
  NGVI_CHECK_REPORT(compare(l_own, l_generic, tol::ad_vs_ad, "losses of both"));
  nn::RowMatrixXd G_supervised;
  nn::per_example_gradients(model, th, G_supervised, {.threads = 1, .grain = 4});
  NGVI_CHECK_REPORT(compare(G_own, G_supervised, tol::exact,
                            "own model vs Supervised, both batched: the same operations"));
}

BOOST_AUTO_TEST_SUITE_END()
