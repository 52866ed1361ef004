// Tests of nn/curvature/kfac.hpp: K-FAC's Kronecker factors and the block-diagonal matrix.
//
// The identity: for one dense layer f = W x + b, Jᵢ = I ⊗ x̃ᵢᵀ, so the GGN is
// Σᵢ H_L,i ⊗ x̃ᵢx̃ᵢᵀ; with one example (or a constant H_L, as for a fixed-noise Gaussian) this is
// exactly N·(S ⊗ A) with the expected-Fisher S. The factors themselves are checked against
// direct computations: A from a forward pass written out here, S from the pre-activation
// adjoints of a batched Var recording (Sequential's cache), from the bias columns of
// per-example gradients, and from the literal sampled-target gradients.
//
// Minibatch overloads (ExampleIndices): deterministic S variants and A against the model built
// on data.subset(idx); the sampled S against literal sampled-target gradients at idx; threads.
// A dense layer without a bias is refused, naming it.
#include <stdexcept>
#include <string>

#include <boost/test/unit_test.hpp>

#include <nn/curvature/empirical_fisher.hpp>
#include <nn/curvature/ggn.hpp>
#include <nn/curvature/kfac.hpp>
#include <nn/curvature/mc_fisher.hpp>

#include <support/check_report.hpp>
#include <support/curvature_fixtures.hpp>
#include <support/minibatch.hpp>

BOOST_AUTO_TEST_SUITE(kfac_test)

namespace {

using namespace ngvi;
namespace tol = ad::verify::tolerances;
using ad::verify::compare;

constexpr ad::verify::Tolerance reordered_sum = tol::ad_vs_ad.scaled(10.0);

// Each dense layer's input for example i, by a forward pass written out with θ's views.
template <class Model>
std::vector<Eigen::VectorXd> layer_inputs(const Model& m, const Eigen::VectorXd& theta,
                                          Eigen::Index i) {
  std::vector<Eigen::VectorXd> a;
  Eigen::VectorXd h = m.data().X.row(i).transpose();
  const auto& slots = m.net().dense_layers();
  for (std::size_t l = 0; l < slots.size(); ++l) {
    a.push_back(h);
    const Eigen::MatrixXd W = nn::view(theta, slots[l].weight);
    const Eigen::VectorXd b = nn::vector_view(theta, slots[l].bias);
    h = W * h + b;
    if (l + 1 < slots.size()) h = h.array().tanh().matrix();
  }
  return a;
}

template <class Model>
Eigen::MatrixXd bias_columns(const ad::RowMatrixXd& G, const Model& m, std::size_t l) {
  const nn::DenseSlot& s = m.net().dense_layers()[l];
  return G.middleCols(s.bias.offset, s.out);
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_layer_one_example_equals_ggn) {
  Eigen::VectorXd theta;
  nn::KfacOptions o;
  o.s_factor = nn::KfacS::expected_fisher;
  // Softmax: H_L = diag(p) − ppᵀ is a full matrix, so S ⊗ A is a genuine Kronecker product.
  const auto soft = test::make_supervised({3, 3}, nn::SoftmaxCategorical(3), 1, 51, &theta);
  std::vector<nn::KfacFactors> k = nn::kfac_factors(soft, theta, o);
  BOOST_TEST_REQUIRE(k.size() == 1u);
  NGVI_CHECK_REPORT(compare(nn::kfac_matrix(k, soft.num_params()), nn::ggn(soft, theta),
                            reordered_sum, "N·(S ⊗ A) vs GGN, one softmax layer, one example"));
  const auto bern = test::make_supervised({4, 1}, nn::BernoulliLogit(), 1, 52, &theta);
  k = nn::kfac_factors(bern, theta, o);
  NGVI_CHECK_REPORT(compare(nn::kfac_matrix(k, bern.num_params()), nn::ggn(bern, theta),
                            reordered_sum,
                            "N·(S ⊗ A) vs GGN, one Bernoulli-logit layer, one example"));
}

BOOST_AUTO_TEST_CASE(one_gaussian_layer_many_examples_equals_ggn) {
  // A constant H_L = τI factors out of Σᵢ H_L ⊗ x̃ᵢx̃ᵢᵀ, so K-FAC is exact for any N.
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({3, 2}, nn::GaussianFixedNoise(0.8, 2), 30, 53, &theta);
  nn::KfacOptions o;
  o.s_factor = nn::KfacS::expected_fisher;
  NGVI_CHECK_REPORT(compare(nn::kfac_matrix(nn::kfac_factors(m, theta, o), m.num_params()),
                            nn::ggn(m, theta), reordered_sum,
                            "N·(S ⊗ A) vs GGN, one Gaussian layer, 30 examples"));
  // With Bernoulli-logit, H_L varies across examples and K-FAC is only an approximation.
  const auto b = test::make_supervised({3, 1}, nn::BernoulliLogit(), 30, 54, &theta);
  const Eigen::MatrixXd G = nn::ggn(b, theta);
  BOOST_TEST((nn::kfac_matrix(nn::kfac_factors(b, theta, o), b.num_params()) - G).norm() >
             1e-3 * G.norm());
}

BOOST_AUTO_TEST_CASE(a_factor_matches_direct_computation) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 3, 1}, nn::BernoulliLogit(), 17, 55, &theta);
  const std::vector<nn::KfacFactors> k = nn::kfac_factors(m, theta);
  BOOST_TEST_REQUIRE(k.size() == 3u);
  for (std::size_t l = 0; l < 3; ++l) {
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(k[l].slot.in + 1, k[l].slot.in + 1);
    for (Eigen::Index i = 0; i < 17; ++i) {
      Eigen::VectorXd a(k[l].slot.in + 1);
      a << layer_inputs(m, theta, i)[l], 1.0;
      A += a * a.transpose() / 17.0;
    }
    NGVI_CHECK_REPORT(compare(k[l].A, A, reordered_sum, "A of layer " + std::to_string(l)));
  }
}

BOOST_AUTO_TEST_CASE(empirical_s_matches_pre_activation_adjoints) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 3}, nn::SoftmaxCategorical(3), 19, 56, &theta);
  nn::KfacOptions o;
  o.s_factor = nn::KfacS::empirical_fisher;
  const std::vector<nn::KfacFactors> k = nn::kfac_factors(m, theta, o);
  // Route 1: record the batch loss once, with Sequential's cache of pre-activations Z; after
  // one reverse sweep row i of Z's adjoint is ∂ℓᵢ/∂zᵢ.
  std::vector<Eigen::MatrixXd> deltas;
  {
    ad::Recording<double> rec;
    const ad::VarVector<double> th = rec.inputs(theta);
    const nn::ForwardCache<ad::Var<double>> cache = m.net().forward_with_cache(th, m.data().X);
    BOOST_TEST_REQUIRE(rec.backward(m.likelihood().batch_nll(cache.output, m.data().Y)));
    // Read the adjoints now: the drivers below record on this thread's tape and reset them.
    for (std::size_t l = 0; l < 2; ++l) deltas.push_back(rec.adjoints_of(cache.pre_activations[l]));
  }
  // Route 2: the bias columns of the per-example gradients.
  const ad::RowMatrixXd G = nn::example_gradients(m, theta);
  for (std::size_t l = 0; l < 2; ++l) {
    const Eigen::MatrixXd& delta = deltas[l];
    BOOST_TEST_REQUIRE(delta.rows() == 19);
    BOOST_TEST(delta.cwiseAbs().maxCoeff() > 0.0);
    NGVI_CHECK_REPORT(
        compare(k[l].S, Eigen::MatrixXd(delta.transpose() * delta / 19.0), reordered_sum,
                "empirical S vs pre-activation adjoints, layer " + std::to_string(l)));
    const Eigen::MatrixXd B = bias_columns(G, m, l);
    NGVI_CHECK_REPORT(compare(k[l].S, Eigen::MatrixXd(B.transpose() * B / 19.0), reordered_sum,
                              "empirical S vs bias gradients, layer " + std::to_string(l)));
  }
}

BOOST_AUTO_TEST_CASE(sampled_s_matches_sampled_target_gradients) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 5, 2}, nn::GaussianFixedNoise(1.5, 2), 23, 57, &theta);
  nn::KfacOptions o;
  o.s_factor = nn::KfacS::sampled_fisher;
  o.samples = 4;
  o.seed = 11;
  const std::vector<nn::KfacFactors> k = nn::kfac_factors(m, theta, o);
  nn::MonteCarloFisherOptions mc;
  mc.samples = 4;
  mc.seed = 11;
  const ad::RowMatrixXd G = nn::sampled_target_gradients(m, theta, mc);
  for (std::size_t l = 0; l < 2; ++l) {
    const Eigen::MatrixXd B = bias_columns(G, m, l);
    NGVI_CHECK_REPORT(
        compare(k[l].S, Eigen::MatrixXd(B.transpose() * B / (23.0 * 4.0)), reordered_sum,
                "sampled S vs literal sampled-target bias gradients, layer " + std::to_string(l)));
  }
}

BOOST_AUTO_TEST_CASE(expected_s_is_the_limit_of_sampled_s) {
  // (1/N)Σ Jzᵀ H_L Jz is E[S_sampled]; with many samples the two agree to MC accuracy.
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 1}, nn::BernoulliLogit(), 20, 58, &theta);
  nn::KfacOptions e, s;
  e.s_factor = nn::KfacS::expected_fisher;
  s.samples = 4000;
  const auto ke = nn::kfac_factors(m, theta, e);
  const auto ks = nn::kfac_factors(m, theta, s);
  for (std::size_t l = 0; l < 2; ++l) {
    const double err = (ks[l].S - ke[l].S).norm() / ke[l].S.norm();
    BOOST_TEST(err < 0.05, "layer " << l << ": relative error " << err);
    NGVI_CHECK_REPORT(compare(ks[l].A, ke[l].A, tol::exact, "A does not depend on the S variant"));
  }
}

BOOST_AUTO_TEST_CASE(matrix_layout_and_diagonal) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 3, 1}, nn::GaussianLearnedNoise(2.0), 12, 59, &theta);
  const auto k = nn::kfac_factors(m, theta);
  const Eigen::MatrixXd F = nn::kfac_matrix(k, m.num_params());
  NGVI_CHECK_REPORT(compare(nn::kfac_diagonal(k, m.num_params()), Eigen::VectorXd(F.diagonal()),
                            tol::ad_vs_ad, "kfac_diagonal vs diag(kfac_matrix)"));
  NGVI_CHECK_REPORT(compare(F, Eigen::MatrixXd(F.transpose()), tol::exact, "symmetry"));
  // Entry (W0(1, 0), W0(2, 1)) = N·S(1, 2)·A(0, 1).
  const nn::KfacFactors& k0 = k[0];
  BOOST_TEST(F(k0.slot.weight.offset + 1 * 2 + 0, k0.slot.weight.offset + 2 * 2 + 1) ==
             12.0 * k0.S(1, 2) * k0.A(0, 1));
  // (b0(1), W0(0, 1)) = N·S(1, 0)·A(2, 1): bias is the last column of the augmented layer.
  BOOST_TEST(F(k0.slot.bias.offset + 1, k0.slot.weight.offset + 1) ==
             12.0 * k0.S(1, 0) * k0.A(2, 1));
  // Block diagonal: nothing between layer 0 and layer 1, nothing for the noise parameter.
  const nn::KfacFactors& k1 = k[1];
  BOOST_TEST(F.block(k1.slot.weight.offset, 0, 4, k1.slot.weight.offset).cwiseAbs().maxCoeff() ==
             0.0);
  BOOST_TEST(F.row(m.num_params() - 1).cwiseAbs().maxCoeff() == 0.0);
  BOOST_TEST(m.likelihood_offset() == m.num_params() - 1);
}

BOOST_AUTO_TEST_CASE(bitwise_identical_for_any_thread_count) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 1}, nn::BernoulliLogit(), 40, 60, &theta);
  const nn::KfacOptions one{.threads = 1, .grain = 1}, two{.threads = 2, .grain = 1};
  const auto k1 = nn::kfac_factors(m, theta, one), k2 = nn::kfac_factors(m, theta, two);
  for (std::size_t l = 0; l < k1.size(); ++l) {
    NGVI_CHECK_REPORT(compare(k2[l].S, k1[l].S, tol::exact, "S, 2 threads vs 1"));
    NGVI_CHECK_REPORT(compare(k2[l].A, k1[l].A, tol::exact, "A, 2 threads vs 1"));
  }
}

BOOST_AUTO_TEST_CASE(a_dense_layer_without_a_bias_is_refused_naming_it) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised(
      nn::Sequential{nn::Dense(2, 4), nn::Tanh{}, nn::Dense(4, 1, nn::Bias::none)},
      nn::GaussianFixedNoise(1.0), 10, 62, &theta);
  try {
    (void)nn::kfac_factors(m, theta);
    BOOST_ERROR("no error for a layer without a bias");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string(e.what()).find("ngvi::nn::kfac_factors: dense layer 1 (dense(4->1, "
                                          "no bias)) has no bias") != std::string::npos,
               e.what());
  }
}

BOOST_AUTO_TEST_CASE(minibatch_factors) {
  Eigen::VectorXd theta;
  const auto m = test::make_supervised({2, 4, 3}, nn::SoftmaxCategorical(3), 14, 61, &theta);
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(14);
  const auto n = static_cast<double>(idx.size());
  const auto sub = test::subset_model(m, idx);
  for (const nn::KfacS which : {nn::KfacS::expected_fisher, nn::KfacS::empirical_fisher}) {
    const nn::KfacOptions o{.s_factor = which, .threads = 1, .grain = 3};
    const auto k = nn::kfac_factors(m, theta, idx, o), ks = nn::kfac_factors(sub, theta, o);
    BOOST_TEST_REQUIRE(k.size() == ks.size());
    for (std::size_t l = 0; l < k.size(); ++l) {
      BOOST_TEST(k[l].examples == static_cast<Eigen::Index>(idx.size()));
      NGVI_CHECK_REPORT(compare(k[l].A, ks[l].A, reordered_sum,
                                "A(idx) vs subset model, layer " + std::to_string(l)));
      NGVI_CHECK_REPORT(compare(k[l].S, ks[l].S, reordered_sum,
                                "S(idx) vs subset model, layer " + std::to_string(l)));
    }
  }
  const nn::KfacOptions o{.samples = 2, .seed = 9, .threads = 1, .grain = 3},
      o2{.samples = 2, .seed = 9, .threads = 2, .grain = 3};
  const auto k = nn::kfac_factors(m, theta, idx, o), k2 = nn::kfac_factors(m, theta, idx, o2);
  nn::MonteCarloFisherOptions mc;
  mc.samples = 2;
  mc.seed = 9;
  const ad::RowMatrixXd Gall = nn::sampled_target_gradients(m, theta, mc);
  for (std::size_t l = 0; l < k.size(); ++l) {
    const Eigen::MatrixXd B = bias_columns(Gall, m, l);
    Eigen::MatrixXd S = Eigen::MatrixXd::Zero(B.cols(), B.cols());
    for (const Eigen::Index i : idx)
      for (Eigen::Index s = 0; s < 2; ++s)
        S += B.row(i * 2 + s).transpose() * B.row(i * 2 + s) / (2.0 * n);
    NGVI_CHECK_REPORT(compare(
        k[l].S, S, reordered_sum,
        "sampled S(idx) vs literal sampled-target bias gradients, layer " + std::to_string(l)));
    NGVI_CHECK_REPORT(compare(k2[l].S, k[l].S, tol::exact, "S(idx), 2 threads vs 1"));
    NGVI_CHECK_REPORT(compare(k2[l].A, k[l].A, tol::exact, "A(idx), 2 threads vs 1"));
  }
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices bad) { return nn::kfac_factors(m, theta, bad); }, 14, "kfac_factors");
}

BOOST_AUTO_TEST_SUITE_END()
