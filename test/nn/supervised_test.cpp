// Tests of nn/supervised.hpp and nn/model_concept.hpp: the Supervised model's losses and
// outputs against a hand-written loop, batched vs per-example losses, derivatives against
// finite differences and forward-over-reverse, the θ layout with a likelihood parameter,
// construction errors, a hand-written (hierarchical) model through CallableModel, and the
// minibatch members against a model built on the subset of the data.
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/autodiff.hpp>
#include <nn/likelihoods/likelihoods.hpp>
#include <nn/model_concept.hpp>
#include <nn/per_example.hpp>
#include <nn/supervised.hpp>

#include <support/check_report.hpp>
#include <support/minibatch.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(supervised_test)

using namespace ngvi;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::verify::compare;

namespace {

nn::Dataset regression_data(Eigen::Index n, Eigen::Index d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  nn::Dataset data;
  data.X.resize(n, d);
  data.Y.resize(n, 1);
  for (Eigen::Index k = 0; k < data.X.size(); ++k) data.X(k) = z(rng);
  for (Eigen::Index i = 0; i < n; ++i) data.Y(i, 0) = std::sin(data.X.row(i).sum()) + 0.1 * z(rng);
  return data;
}

Eigen::VectorXd init(const auto& model, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Eigen::VectorXd th;
  model.init(th, rng);
  return th;
}

// ℓᵢ for a 1-hidden-layer tanh net and Gaussian noise with learned log-precision, by hand.
double hand_loss(const Eigen::VectorXd& th, const Eigen::RowVectorXd& x, double y, Eigen::Index H) {
  const Eigen::Index D = x.size();
  double f = th(H * D + H + H);  // b2
  for (Eigen::Index h = 0; h < H; ++h) {
    double a = th(H * D + h);
    for (Eigen::Index j = 0; j < D; ++j) a += th(h * D + j) * x(j);
    f += th(H * D + H + h) * std::tanh(a);
  }
  const double s = th(H * D + 2 * H + 1);
  return 0.5 * std::log(2 * M_PI) - 0.5 * s + 0.5 * std::exp(s) * (y - f) * (y - f);
}

// A hierarchical regression written directly as a generic callable: J groups, group
// intercepts a_j ~ N(μ, e^{2 log σ}) (their prior split evenly over the group's examples so
// the loss stays a sum of per-example terms), yᵢ ~ N(a_{g(i)} + β xᵢ, 1).
struct Hierarchical {
  Eigen::VectorXd x, y;
  std::vector<int> group;
  std::vector<int> group_size;
  int groups = 0;
  template <class T>
  T operator()(const Eigen::Matrix<T, Eigen::Dynamic, 1>& th, Eigen::Index i) const {
    using std::exp;
    const int g = group[static_cast<std::size_t>(i)];
    const T& a = th(g);
    const T& mu = th(groups);
    const T& log_sigma = th(groups + 1);
    const T& beta = th(groups + 2);
    const T r = y(i) - a - beta * x(i);
    const T prior =
        ((a - mu) * (a - mu) * exp(-2.0 * log_sigma) * 0.5 + log_sigma) / double(group_size[g]);
    return T(0.5 * r * r + prior);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(losses_match_a_hand_written_model) {
  const nn::Dataset data = regression_data(12, 3, 1);
  const nn::Supervised model(nn::Sequential{nn::Dense(3, 4), nn::Tanh{}, nn::Dense(4, 1)},
                             nn::GaussianLearnedNoise(2.0), data);
  BOOST_TEST(model.num_examples() == 12);
  BOOST_TEST(model.num_params() == 3 * 4 + 4 + 4 + 1 + 1);
  BOOST_TEST(model.layout().block("log_precision").offset == 21);
  BOOST_TEST(model.likelihood_offset() == 21);
  BOOST_TEST(model.output_dim() == 2);
  Eigen::VectorXd th = init(model, 2);
  BOOST_TEST(th(21) == std::log(2.0));
  th(21) = 0.3;
  double total = 0.0;
  for (Eigen::Index i = 0; i < 12; ++i) {
    const double ref = hand_loss(th, data.X.row(i), data.Y(i, 0), 4);
    NGVI_CHECK_REPORT(
        compare(model.example_loss(th, i), ref, tol::closed_form, "example_loss vs loop"));
    total += ref;
  }
  NGVI_CHECK_REPORT(compare(model.total_loss(th), total, tol::closed_form, "total_loss vs loop"));
  NGVI_CHECK_REPORT(
      compare(model.example_losses(th).sum(), total, tol::closed_form, "example_losses vs loop"));
  const Eigen::VectorXd f = model.example_output(th, 5);
  BOOST_TEST(f.size() == 2);
  BOOST_TEST(f(1) == 0.3);
  NGVI_CHECK_REPORT(
      compare(model.outputs(th).row(5).transpose().eval(), f, tol::ad_vs_ad, "outputs row 5"));
}

BOOST_AUTO_TEST_CASE(batch_loss_is_the_sum_over_the_batch) {
  const nn::Dataset data = regression_data(20, 2, 3);
  const nn::Supervised model(nn::Sequential::mlp({2, 5, 5, 1}, nn::Softplus{}),
                             nn::GaussianFixedNoise(3.0), data);
  const Eigen::VectorXd th = init(model, 4);
  const std::vector<Eigen::Index> idx = {3, 17, 0, 3, 9};
  double sum = 0.0;
  for (Eigen::Index i : idx) sum += model.example_loss(th, i);
  NGVI_CHECK_REPORT(compare(model.batch_loss(th, std::span<const Eigen::Index>(idx)), sum,
                            tol::ad_vs_ad, "batch_loss vs Σ example_loss"));
  const Eigen::MatrixXd out = model.batch_output(th, std::span<const Eigen::Index>(idx));
  NGVI_CHECK_REPORT(
      compare(out(1, 0), model.example_output(th, 17)(0), tol::ad_vs_ad, "batch_output row"));
  // Gradients of the batched and the per-example forms agree.
  auto batched = [&](const auto& t) {
    return model.batch_loss(t, std::span<const Eigen::Index>(idx));
  };
  auto looped = [&](const auto& t) {
    using T = typename std::decay_t<decltype(t)>::Scalar;
    T s(0.0);
    for (Eigen::Index i : idx) s += model.example_loss(t, i);
    return s;
  };
  NGVI_CHECK_REPORT(compare(ad::gradient(batched, th), ad::gradient(looped, th), tol::ad_vs_ad,
                            "∇ batch_loss vs ∇ Σ example_loss"));
}

BOOST_AUTO_TEST_CASE(total_loss_in_blocks_is_the_whole_pass) {
  // More rows than one forward pass holds: total_loss and batch_loss in double (pass by pass)
  // against the sum of the single-example losses and the recorded one-pass total_loss's value,
  // batch_loss over every row in order and over them reversed (gathered).
  const Eigen::Index n = 2 * nn::rows_per_forward_pass + 11;
  const nn::Supervised model(nn::Sequential::mlp({2, 5, 1}, nn::Tanh{}),
                             nn::GaussianFixedNoise(3.0), regression_data(n, 2, 5));
  const Eigen::VectorXd th = init(model, 6);
  std::vector<Eigen::Index> all(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  const std::vector<Eigen::Index> reversed(all.rbegin(), all.rend());
  double each = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) each += model.example_loss(th, i);
  const double blocks = model.total_loss(th);
  NGVI_CHECK_REPORT(compare(blocks, each, tol::ad_vs_ad, "total_loss in blocks vs Σ example_loss"));
  NGVI_CHECK_REPORT(compare(model.batch_loss(th, std::span<const Eigen::Index>(all)), each,
                            tol::ad_vs_ad, "batch_loss in passes vs Σ example_loss"));
  NGVI_CHECK_REPORT(compare(model.batch_loss(th, std::span<const Eigen::Index>(reversed)), each,
                            tol::ad_vs_ad, "batch_loss of the rows reversed vs Σ example_loss"));
  Eigen::VectorXd g;
  const double recorded =
      ad::value_and_gradient([&](const auto& t) { return model.total_loss(t); }, th, g);
  NGVI_CHECK_REPORT(compare(blocks, recorded, tol::ad_vs_ad, "double vs recorded total_loss"));
}

BOOST_AUTO_TEST_CASE(minibatch_reads_rows_in_place_or_gathered) {
  // References: the same network on data.subset(idx) (a separate Supervised), and for idx =
  // 0..N−1 the whole-data members; bad indices name the member.
  const nn::Dataset data = regression_data(14, 3, 31);
  const nn::Supervised model(nn::Sequential::mlp({3, 4, 1}, nn::Tanh{}),
                             nn::GaussianLearnedNoise(2.0), data);
  const Eigen::VectorXd th = init(model, 32);
  const std::vector<Eigen::Index> idx = test::mixed_minibatch(14);
  const nn::Supervised sub = test::subset_model(model, idx);
  NGVI_CHECK_REPORT(compare(model.batch_loss(th, nn::ExampleIndices(idx)), sub.total_loss(th),
                            tol::ad_vs_ad, "batch_loss(idx) vs total_loss of the subset model"));
  NGVI_CHECK_REPORT(compare(Eigen::MatrixXd(model.batch_output(th, nn::ExampleIndices(idx))),
                            sub.outputs(th), tol::ad_vs_ad,
                            "batch_output(idx) vs outputs of the subset model"));
  const auto g =
      ad::gradient([&](const auto& t) { return model.batch_loss(t, nn::ExampleIndices(idx)); }, th);
  NGVI_CHECK_REPORT(compare(g, ad::gradient([&](const auto& t) { return sub.total_loss(t); }, th),
                            tol::ad_vs_ad,
                            "∇ batch_loss(idx) vs ∇ total_loss of the subset model"));
  // A consecutive run (read in place) and all N examples in order (the whole-data path).
  const std::vector<Eigen::Index> run = {4, 5, 6, 7}, all = nn::all_examples(14);
  NGVI_CHECK_REPORT(compare(model.batch_loss(th, nn::ExampleIndices(run)),
                            test::subset_model(model, run).total_loss(th), tol::ad_vs_ad,
                            "batch_loss of a consecutive run vs subset model"));
  NGVI_CHECK_REPORT(compare(model.batch_loss(th, nn::ExampleIndices(all)), model.total_loss(th),
                            tol::exact, "batch_loss(0..N−1) vs total_loss"));
  NGVI_CHECK_REPORT(compare(Eigen::MatrixXd(model.batch_output(th, nn::ExampleIndices(all))),
                            model.outputs(th), tol::exact, "batch_output(0..N−1) vs outputs"));
  test::check_rejects_bad_indices([&](nn::ExampleIndices bad) { return model.batch_loss(th, bad); },
                                  14, "Supervised::batch_loss");
  test::check_rejects_bad_indices(
      [&](nn::ExampleIndices bad) { return model.batch_output(th, bad); }, 14,
      "Supervised::batch_output");
}

BOOST_AUTO_TEST_CASE(derivatives_match_finite_differences) {
  const nn::Dataset data = regression_data(6, 2, 5);
  const nn::Supervised model(nn::Sequential{nn::Dense(2, 3), nn::Tanh{}, nn::Dense(3, 2)},
                             nn::HeteroscedasticGaussian(), data);
  const Eigen::VectorXd th = init(model, 6);
  auto total = [&](const auto& t) { return model.total_loss(t); };
  NGVI_CHECK_REPORT(ad::verify::check_gradient(total, th));
  NGVI_CHECK_REPORT(ad::verify::check_hessian(total, th));
  auto one = [&](const auto& t) { return model.example_loss(t, 4); };
  NGVI_CHECK_REPORT(ad::verify::check_gradient(one, th));
}

BOOST_AUTO_TEST_CASE(classification_models) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z(0.0, 1.0);
  nn::Dataset data;
  data.X.resize(15, 2);
  data.Y.resize(15, 1);
  for (Eigen::Index k = 0; k < data.X.size(); ++k) data.X(k) = z(rng);
  for (Eigen::Index i = 0; i < 15; ++i) data.Y(i, 0) = static_cast<double>(i % 3);
  const nn::Supervised model(nn::Sequential{nn::Dense(2, 4), nn::Relu{}, nn::Dense(4, 3)},
                             nn::SoftmaxCategorical(3), data);
  const Eigen::VectorXd th = init(model, 8);
  double sum = 0.0;
  for (Eigen::Index i = 0; i < 15; ++i) sum += model.example_loss(th, i);
  NGVI_CHECK_REPORT(compare(model.total_loss(th), sum, tol::ad_vs_ad, "softmax total vs Σ"));
  auto total = [&](const auto& t) { return model.total_loss(t); };
  NGVI_CHECK_REPORT(compare(ad::gradient(total, th),
                            ad::gradient(
                                [&](const auto& t) {
                                  using T = typename std::decay_t<decltype(t)>::Scalar;
                                  T s(0.0);
                                  for (Eigen::Index i = 0; i < 15; ++i)
                                    s += model.example_loss(t, i);
                                  return s;
                                },
                                th),
                            tol::ad_vs_ad, "softmax ∇ total vs ∇ Σ"));
  nn::Dataset bern = data;
  bern.Y = (data.Y.array() > 0.5).cast<double>();
  const nn::Supervised logistic(nn::Sequential{nn::Dense(2, 1)}, nn::BernoulliLogit(), bern);
  NGVI_CHECK_REPORT(ad::verify::check_hessian([&](const auto& t) { return logistic.total_loss(t); },
                                              init(logistic, 9)));
  const nn::Supervised counts(nn::Sequential{nn::Dense(2, 1)}, nn::PoissonLog(), data);
  NGVI_CHECK_REPORT(ad::verify::check_gradient([&](const auto& t) { return counts.total_loss(t); },
                                               init(counts, 10)));
}

BOOST_AUTO_TEST_CASE(mismatched_data_are_rejected) {
  nn::Dataset data = regression_data(5, 3, 11);
  const nn::Sequential net{nn::Dense(3, 2), nn::Tanh{}, nn::Dense(2, 1)};
  BOOST_CHECK_THROW(nn::Supervised(nn::Sequential{nn::Dense(4, 1)}, nn::GaussianFixedNoise(), data),
                    std::invalid_argument);
  BOOST_CHECK_THROW(nn::Supervised(net, nn::HeteroscedasticGaussian(), data),
                    std::invalid_argument);
  BOOST_CHECK_THROW(nn::Supervised(net, nn::BernoulliLogit(), data), std::invalid_argument);
  nn::Dataset ragged = data;
  ragged.Y.conservativeResize(4, 1);
  BOOST_CHECK_THROW(nn::Supervised(net, nn::GaussianFixedNoise(), ragged), std::invalid_argument);
  nn::Dataset nan = data;
  nan.X(2, 1) = std::nan("");
  BOOST_CHECK_THROW(nn::Supervised(net, nn::GaussianFixedNoise(), nan), std::invalid_argument);
  const nn::Supervised model(net, nn::GaussianFixedNoise(), data);
  const Eigen::VectorXd th = Eigen::VectorXd::Zero(model.num_params());
  BOOST_CHECK_THROW(model.example_loss(th, 5), std::out_of_range);
  BOOST_CHECK_THROW(model.total_loss(Eigen::VectorXd(Eigen::VectorXd::Zero(2))),
                    std::invalid_argument);
}

// Copies and models over shared_data() read the same rows in place; a model over the shared rows
// under another likelihood gives the same losses, bit for bit, as one built from its own copy of
// the data; and the shared rows are still checked against the new likelihood.
BOOST_AUTO_TEST_CASE(models_share_their_data) {
  const nn::Dataset data = regression_data(7, 3, 13);
  const nn::Sequential net{nn::Dense(3, 2), nn::Tanh{}, nn::Dense(2, 1)};
  const nn::Supervised model(net, nn::GaussianFixedNoise(4.0), data);
  const nn::Supervised copy = model;
  BOOST_TEST(copy.data().X.data() == model.data().X.data());
  const nn::Supervised student(net, nn::StudentT(3.0, 2.0), model.shared_data());
  BOOST_TEST(student.data().X.data() == model.data().X.data());
  BOOST_TEST(student.data().Y.data() == model.data().Y.data());
  const nn::Supervised own(net, nn::StudentT(3.0, 2.0), data);
  BOOST_TEST(own.data().X.data() != model.data().X.data());
  const Eigen::VectorXd th = init(model, 14);
  BOOST_TEST(student.total_loss(th) == own.total_loss(th));
  BOOST_TEST(student.example_losses(th) == own.example_losses(th));
  BOOST_CHECK_THROW(nn::Supervised(net, nn::BernoulliLogit(), model.shared_data()),
                    std::invalid_argument);
  BOOST_CHECK_THROW(
      nn::Supervised(net, nn::GaussianFixedNoise(), std::shared_ptr<const nn::Dataset>()),
      std::invalid_argument);
}

// A model over a window of the rows (RowWindow: rows 5..10 of 14) answers for those examples,
// by their indices in the whole set, what the model over all 14 answers, bit for bit — losses,
// outputs, per-example gradients — and refuses, naming the window, an example it does not hold
// and a pass over all N.
BOOST_AUTO_TEST_CASE(a_window_of_rows_answers_as_the_whole_data_set) {
  const nn::Dataset data = regression_data(14, 3, 41);
  const nn::Sequential net = nn::Sequential::mlp({3, 4, 1}, nn::Tanh{});
  const nn::Supervised whole(net, nn::GaussianLearnedNoise(2.0), data);
  std::vector<Eigen::Index> held(6);
  std::iota(held.begin(), held.end(), Eigen::Index{5});
  const nn::Supervised part(net, nn::GaussianLearnedNoise(2.0),
                            std::make_shared<const nn::Dataset>(data.subset(held)),
                            nn::RowWindow{5, 14});
  BOOST_TEST(part.num_examples() == 14);
  BOOST_TEST(!part.holds_all());
  BOOST_TEST(whole.holds_all());
  const Eigen::VectorXd th = init(whole, 42);
  for (const std::vector<Eigen::Index>& idx :
       {std::vector<Eigen::Index>{9, 5, 7, 7, 10}, std::vector<Eigen::Index>{6, 7, 8}, held}) {
    const nn::ExampleIndices ix(idx);
    BOOST_TEST(part.batch_loss(th, ix) == whole.batch_loss(th, ix));
    BOOST_TEST((part.batch_output(th, ix).array() == whole.batch_output(th, ix).array()).all());
    ad::RowMatrixXd gp, gw;
    nn::per_example_gradients(part, th, ix, gp);
    nn::per_example_gradients(whole, th, ix, gw);
    BOOST_TEST((gp.array() == gw.array()).all());
  }
  for (const Eigen::Index i : held) {
    BOOST_TEST(part.example_loss(th, i) == whole.example_loss(th, i));
    BOOST_TEST((part.target(i).array() == whole.target(i).array()).all());
  }
  const std::vector<Eigen::Index> outside{6, 11};
  test::check_error_mentions([&] { part.batch_loss(th, nn::ExampleIndices(outside)); },
                             "example 11 (position 1) is not held: this model holds examples "
                             "5..10 of 14");
  test::check_error_mentions([&] { part.example_loss(th, 4); },
                             "example 4 (position 0) is not held");
  test::check_error_mentions([&] { part.total_loss(th); },
                             "total_loss runs over all N = 14 examples, but this model holds only "
                             "examples 5..10");
  test::check_error_mentions([&] { part.outputs(th); }, "outputs runs over all N = 14");
  test::check_error_mentions(
      [&] {
        nn::Supervised(net, nn::GaussianLearnedNoise(2.0),
                       std::make_shared<const nn::Dataset>(data.subset(held)),
                       nn::RowWindow{9, 14});
      },
      "a window of 6 rows from row 9 does not fit in a data set of 14 examples");
}

BOOST_AUTO_TEST_CASE(a_hand_written_hierarchical_model) {
  Hierarchical h;
  std::mt19937_64 rng(12);
  std::normal_distribution<double> z(0.0, 1.0);
  h.groups = 3;
  const Eigen::Index N = 18;
  h.x.resize(N);
  h.y.resize(N);
  h.group_size.assign(3, 0);
  for (Eigen::Index i = 0; i < N; ++i) {
    h.group.push_back(static_cast<int>(i % 3));
    ++h.group_size[static_cast<std::size_t>(i % 3)];
    h.x(i) = z(rng);
    h.y(i) = 0.5 * static_cast<double>(i % 3) + 0.8 * h.x(i) + 0.2 * z(rng);
  }
  nn::ParameterLayout layout;
  layout.add("intercepts", 3, 1);
  layout.add("mu", 1, 1);
  layout.add("log_sigma", 1, 1);
  layout.add("beta", 1, 1);
  const auto model = nn::make_model(h, N, layout);
  static_assert(nn::SeparableModel<std::decay_t<decltype(model)>>);
  static_assert(!nn::SeparableModel<int>);
  BOOST_TEST(model.num_params() == 6);
  Eigen::VectorXd th(6);
  th << 0.1, 0.4, 0.9, 0.3, -0.2, 0.7;
  auto total = [&](const auto& t) { return model.total_loss(t); };
  NGVI_CHECK_REPORT(ad::verify::check_gradient(total, th));
  NGVI_CHECK_REPORT(ad::verify::check_hessian(total, th));
  // Per-example gradients through the generic route sum to the gradient of the total.
  nn::RowMatrixXd G;
  nn::per_example_gradients(model, th, G);
  BOOST_TEST(G.rows() == N);
  NGVI_CHECK_REPORT(compare(G.colwise().sum().transpose().eval(), ad::gradient(total, th),
                            tol::ad_vs_ad, "Σ per-example gradients vs gradient of the total"));
  BOOST_CHECK_THROW(model.example_loss(th, N), std::out_of_range);
}

BOOST_AUTO_TEST_SUITE_END()
