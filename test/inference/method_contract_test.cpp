// The contract every inference method keeps, written once as Boost.Test template cases that each
// method below instantiates:
// * the same seed gives the same bits for 1 and 2 threads (posterior, history, counters), and a
//   different seed gives different bits, so the comparison can fail;
// * a run checkpointed half-way and resumed from the encoded checkpoint ends with the same bits
//   as the uninterrupted run (every method of the shared fit loop);
// * a bad option is a std::invalid_argument naming the library function and the option (the
//   method's own options, and for the fit loop's methods the loop's shared ones too).
// A method joins by a case struct here: its options type, a model, the configurations the runs
// use and its bad options. Method-specific checks stay in the method's own test file.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <inference/bayes_by_backprop.hpp>
#include <inference/fit.hpp>
#include <inference/hmc.hpp>
#include <inference/ivon.hpp>
#include <inference/laplace.hpp>
#include <inference/map.hpp>
#include <inference/noisy_adam.hpp>
#include <inference/noisy_kfac.hpp>
#include <inference/problems/two_moons.hpp>
#include <inference/slang.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>
#include <nn/dense.hpp>

#include <support/check_bitwise.hpp>
#include <support/conjugate_linear.hpp>
#include <support/method_fixtures.hpp>

BOOST_AUTO_TEST_SUITE(method_contract_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
using Eigen::MatrixXd;
using Eigen::VectorXd;

// ---- What a run's bits are ----------------------------------------------------------------------

// The parts of a result that must not depend on the thread count or on an interruption, each
// named so that a failure says which part differs (and NGVI_CHECK_BITWISE which entry).
using Fingerprint = std::vector<std::pair<std::string, MatrixXd>>;

template <class Q>
Fingerprint fingerprint(const vi::FitResult<Q>& r) {
  Fingerprint f{{"posterior mean", r.posterior.mean()},
                {"posterior marginal variances", r.posterior.marginal_variances()}};
  if constexpr (requires { r.posterior.precision(); })
    f.emplace_back("posterior precision", r.posterior.precision());
  MatrixXd history(static_cast<Eigen::Index>(r.history.size()), 5);
  for (Eigen::Index k = 0; k < history.rows(); ++k) {
    const vi::HistoryRow& row = r.history[static_cast<std::size_t>(k)];
    history.row(k) << static_cast<double>(row.iteration), row.elbo, row.expected_nll, row.kl,
        row.train_nll;
  }
  f.emplace_back("history (iteration, elbo, expected NLL, KL, train NLL)", history);
  f.emplace_back("steps", MatrixXd::Constant(1, 1, static_cast<double>(r.counters.steps)));
  for (const auto& [remedy, count] : r.counters.remedies)
    f.emplace_back("times fired: " + remedy, MatrixXd::Constant(1, 1, static_cast<double>(count)));
  return f;
}

template <class Q>
Fingerprint fingerprint(const vi::Laplace<Q>& r) {
  return {{"posterior mean", r.posterior.mean()},
          {"posterior precision", r.posterior.precision()},
          {"log marginal likelihood", MatrixXd::Constant(1, 1, r.log_marginal_likelihood)}};
}

inline Fingerprint fingerprint(const vi::HmcResult& r) {
  Fingerprint f;
  for (std::size_t c = 0; c < r.draws.size(); ++c) {
    const std::string chain = "chain " + std::to_string(c) + " ";
    f.emplace_back(chain + "draws", r.draws[c]);
    f.emplace_back(chain + "step size", MatrixXd::Constant(1, 1, r.chains[c].step_size));
    f.emplace_back(chain + "inverse metric", r.chains[c].inverse_metric);
    f.emplace_back(chain + "dense inverse metric", r.chains[c].dense_inverse_metric);
  }
  f.emplace_back("R-hat", r.rhat);
  return f;
}

// Whether a run finished as it should (a fit can fail without throwing; the others throw).
template <class Q>
bool finished(const vi::FitResult<Q>& r) {
  return r.ok();
}
template <class R>
bool finished(const R&) {
  return true;
}

bool same_bits(const Fingerprint& a, const Fingerprint& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].first != b[k].first || !ngvi::test::bitwise_equal(a[k].second, b[k].second, "").equal)
      return false;
  return true;
}

void check_same_bits(const Fingerprint& a, const Fingerprint& b) {
  BOOST_TEST_REQUIRE(a.size() == b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    BOOST_TEST(a[k].first == b[k].first);
    NGVI_CHECK_BITWISE(a[k].second, b[k].second, a[k].first);
  }
}

// ---- The methods --------------------------------------------------------------------------------

// An option edit that must be rejected, and what the error message must mention.
template <class Options>
struct BadOption {
  std::function<void(Options&)> edit;
  std::string mention;
};

template <class Options>
using Configurations = std::vector<std::pair<std::string, Options>>;

// A method run by vi::fit: threads in the loop options, resumable from a checkpoint.
template <class O>
struct FitMethod {
  using Options = O;
  static int& threads(Options& o) { return o.loop.threads; }
  template <class Model>
  static auto run(const Model& model, const Options& o, std::uint64_t seed) {
    vi::Rng rng(seed);
    return vi::fit(model, o, rng);
  }
};

// The 1-4-1 tanh network of method_fixtures.hpp: non-convex, so VON's remedies fire and every
// curvature differs.
struct Von : FitMethod<vi::VonOptions> {
  static auto model() { return ngvi::test::tanh_mlp_problem(); }
  static Configurations<Options> configurations() {
    Configurations<Options> c;
    for (const auto& [label, remedy, precision_rate, mc] :
         {std::tuple{"clip_eigenvalues", vi::VonRemedy::clip_eigenvalues, 0.9, 2},
          std::tuple{"ggn_fallback", vi::VonRemedy::ggn_fallback, 0.9, 2},
          std::tuple{"damp_step", vi::VonRemedy::damp_step, 0.5, 1}}) {
      Options o{.loop = {.epochs = 4, .minibatch = 5, .elbo_samples = 2, .grain = 2},
                .mean_rate = {0.05},
                .precision_rate = {precision_rate},
                .mc_samples = mc,
                .remedy = remedy};
      c.emplace_back(label, o);
    }
    return c;
  }
  static std::vector<BadOption<Options>> bad_options() {
    return {
        {[](Options& o) { o.mc_samples = -1; }, "mc_samples"},
        {[](Options& o) { o.kl_weight = 0.0; }, "kl_weight"},
        {[](Options& o) { o.mean_rate = {-1.0}; }, "mean_rate"},
        {[](Options& o) { o.precision_rate = {1.5}; }, "precision_rate"},
        {[](Options& o) { o.initial_mean = VectorXd::Zero(3); }, "initial_mean"},
        {[](Options& o) { o.initial_precision = -MatrixXd::Identity(2, 2); }, "initial_precision"},
        {[](Options& o) { o.eigenvalue_floor = -1.0; }, "eigenvalue_floor"},
        {[](Options& o) { o.precision_floor = 1.0; }, "precision_floor"}};
  }
};

struct DiagonalVon : FitMethod<vi::DiagonalVonOptions> {
  static auto model() { return ngvi::test::tanh_mlp_problem(); }
  static Configurations<Options> configurations() {
    return {
        {"mc_samples 2",
         {.loop = {.epochs = 4, .minibatch = 5, .elbo_samples = 2, .grain = 2}, .mc_samples = 2}}};
  }
  static std::vector<BadOption<Options>> bad_options() {
    return {{[](Options& o) { o.mc_samples = -1; }, "mc_samples"},
            {[](Options& o) { o.initial_precision = VectorXd::Zero(3); }, "initial_precision"}};
  }
};

template <class O>
struct VognMethod : FitMethod<O> {
  static auto model() { return ngvi::test::tanh_mlp_problem(); }
  static Configurations<O> configurations() {
    Configurations<O> c;
    for (const auto curvature : {vi::VognCurvature::empirical_fisher, vi::VognCurvature::ggn,
                                 vi::VognCurvature::mc_fisher}) {
      O o{.loop = {.epochs = 3, .minibatch = 8, .elbo_samples = 2, .grain = 2},
          .mc_samples = 2,
          .curvature = curvature};
      c.emplace_back(vi::to_string(curvature), o);
    }
    return c;
  }
  static std::vector<BadOption<O>> bad_options() {
    return {
        {[](O& o) { o.mc_samples = -1; }, "mc_samples"},
        {[](O& o) { o.fisher_samples = 0; }, "fisher_samples"},
        {[](O& o) { o.kl_weight = -1.0; }, "kl_weight"},
        {[](O& o) { o.precision_rate = {2.0}; }, "precision_rate"},
        {[](O& o) { o.initial_mean = VectorXd::Zero(5); }, "initial_mean"},
        {[](O& o) { o.initial_state_curvature = VectorXd::Zero(3); }, "initial_state_curvature"}};
  }
};
struct Vogn : VognMethod<vi::VognOptions> {};
struct FullVogn : VognMethod<vi::FullVognOptions> {};

// Rank 3 of P = 13 on the tanh network, each curvature (the eigendecomposition's seed and the MC
// Fisher's come from the training stream).
struct Slang : FitMethod<vi::SlangOptions> {
  static auto model() { return ngvi::test::tanh_mlp_problem(); }
  static Configurations<Options> configurations() {
    Configurations<Options> c;
    for (const auto curvature : {vi::VognCurvature::empirical_fisher, vi::VognCurvature::ggn,
                                 vi::VognCurvature::mc_fisher}) {
      Options o{.loop = {.epochs = 3, .minibatch = 8, .elbo_samples = 2, .grain = 2},
                .rank = 3,
                .mc_samples = 2,
                .curvature = curvature};
      c.emplace_back(vi::to_string(curvature), o);
    }
    return c;
  }
  static std::vector<BadOption<Options>> bad_options() {
    return {{[](Options& o) { o.rank = -1; }, "rank must be >= 0, got -1"},
            {[](Options& o) { o.rank = 14; }, "rank must be <= P = 13"},
            {[](Options& o) { o.mc_samples = -1; }, "mc_samples"},
            {[](Options& o) { o.fisher_samples = 0; }, "fisher_samples"},
            {[](Options& o) { o.kl_weight = -1.0; }, "kl_weight"},
            {[](Options& o) { o.precision_rate = {2.0}; }, "precision_rate"},
            {[](Options& o) { o.eigen.power_iterations = -1; }, "eigen.power_iterations"},
            {[](Options& o) { o.initial_mean = VectorXd::Zero(5); }, "initial_mean"},
            {[](Options& o) { o.initial_low_rank = MatrixXd::Zero(13, 2); }, "initial_low_rank"},
            {[](Options& o) { o.initial_diagonal = VectorXd::Zero(3); }, "initial_diagonal"}};
  }
};

// Bayesian linear regression, 30 examples of 2 inputs (P = 3), minibatches of 8.
ngvi::test::ConjugateLinear small_linear() {
  return ngvi::test::make_conjugate_linear(30, 2, 4.0, 1.0, 8);
}

struct Ivon : FitMethod<vi::IvonOptions> {
  static auto model() { return small_linear().model(); }
  static Configurations<Options> configurations() {
    Options o;
    o.prior_precision = small_linear().delta;
    o.loop = {.epochs = 5, .minibatch = 8, .history_every = 3, .grain = 2};
    o.mc_samples = 2;
    return {{"mc_samples 2", o}};
  }
  static std::vector<BadOption<Options>> bad_options() {
    return {{[](Options& o) { o.beta1 = 1.0; }, "beta1"},
            {[](Options& o) { o.beta2 = -0.1; }, "beta2"},
            {[](Options& o) { o.hess_init = 0.0; }, "hess_init"},
            {[](Options& o) { o.mc_samples = 0; }, "mc_samples"},
            {[](Options& o) { o.effective_sample_size = -1.0; }, "effective_sample_size"},
            {[](Options& o) { o.clip_radius = 0.0; }, "clip_radius"},
            {[](Options& o) { o.learning_rate.initial = 0.0; }, "learning_rate"}};
  }
};

struct BayesByBackprop : FitMethod<vi::BayesByBackpropOptions> {
  static auto model() { return small_linear().model(); }
  static Configurations<Options> configurations() {
    Options o;
    o.prior_precision = small_linear().delta;
    o.loop = {.epochs = 5, .minibatch = 8, .history_every = 3, .grain = 2};
    o.mc_samples = 2;
    return {{"mc_samples 2", o}};
  }
  static std::vector<BadOption<Options>> bad_options() {
    return {{[](Options& o) { o.kl_weight = -1.0; }, "kl_weight"},
            {[](Options& o) { o.mc_samples = 0; }, "mc_samples"},
            {[](Options& o) { o.initial_stddev = 0.0; }, "initial_stddev"},
            {[](Options& o) { o.learning_rate.initial = -1.0; }, "learning_rate"},
            {[](Options& o) { o.adam.beta1 = 1.0; }, "adam"}};
  }
};

struct NoisyAdam : FitMethod<vi::NoisyAdamOptions> {
  static auto model() { return ngvi::test::make_conjugate_linear(40, 2, 4.0, 1.0, 8).model(); }
  static Configurations<Options> configurations() {
    Configurations<Options> c;
    for (const auto fisher :
         {vi::NoisyAdamFisher::sampled_fisher, vi::NoisyAdamFisher::empirical_fisher}) {
      Options o;
      o.prior_precision = 1.0;
      o.loop = {.epochs = 3, .minibatch = 20, .history_every = 3, .grain = 4};
      o.fisher = fisher;
      c.emplace_back(
          fisher == vi::NoisyAdamFisher::sampled_fisher ? "sampled Fisher" : "empirical Fisher", o);
    }
    return c;
  }
  static std::vector<BadOption<Options>> bad_options() {
    return {{[](Options& o) { o.kl_weight = 0.0; }, "kl_weight"},
            {[](Options& o) { o.beta1 = -0.5; }, "beta1"},
            {[](Options& o) { o.beta2 = 1.0; }, "beta2"},
            {[](Options& o) { o.fisher_samples = 0; }, "fisher_samples"},
            {[](Options& o) { o.extrinsic_damping = -1.0; }, "extrinsic_damping"},
            {[](Options& o) { o.fisher_init = -1.0; }, "fisher_init"},
            {[](Options& o) { o.mc_samples = -1; }, "mc_samples"},
            {[](Options& o) { o.learning_rate.initial = 0.0; }, "learning_rate"}};
  }
};

// A 2-4-1 tanh network on 40 drawn points: two dense layers, so two Kronecker blocks.
struct NoisyKfac : FitMethod<vi::NoisyKfacOptions> {
  static auto model() {
    vi::Rng rng(4);
    nn::Dataset data{vi::standard_normal(rng, 40, 2), vi::standard_normal(rng, 40, 1)};
    return nn::Supervised(nn::Sequential{nn::Dense(2, 4), nn::Tanh{}, nn::Dense(4, 1)},
                          nn::GaussianFixedNoise(4.0), std::move(data));
  }
  static Configurations<Options> configurations() {
    Options o;
    o.loop = {.epochs = 3, .minibatch = 8, .history_every = 4, .grain = 4};
    o.mc_samples = 2;
    o.inverse_interval = 3;  // stale inverses must survive a checkpoint too
    return {{"inverse_interval 3", o}};
  }
  static std::vector<BadOption<Options>> bad_options() {
    return {{[](Options& o) { o.kl_weight = -1.0; }, "kl_weight"},
            {[](Options& o) { o.beta = 0.0; }, "beta"},
            {[](Options& o) { o.fisher_samples = 0; }, "fisher_samples"},
            {[](Options& o) { o.extrinsic_damping = -1.0; }, "extrinsic_damping"},
            {[](Options& o) { o.stats_interval = 0; }, "stats_interval"},
            {[](Options& o) { o.factor_init = 0.0; }, "factor_init"},
            {[](Options& o) { o.mc_samples = -1; }, "mc_samples"}};
  }
};

// Ridge regression by Adam, 40 examples of 3 inputs (P = 4), minibatches of 7.
struct Map : FitMethod<vi::MapOptions> {
  static auto model() { return ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 23).model(); }
  static Configurations<Options> configurations() {
    Options o;
    o.loop.epochs = 6;
    o.loop.minibatch = 7;
    o.loop.grain = 2;
    return {{"Adam", o}};
  }
  static std::vector<BadOption<Options>> bad_options() {
    return {{[](Options& o) { o.initial = VectorXd::Zero(3); }, "initial"},
            {[](Options& o) { o.initial = VectorXd::Constant(4, std::nan("")); }, "not finite"},
            {[](Options& o) { o.learning_rate.initial = -1.0; }, "learning_rate"}};
  }
};

// At θ drawn by the model's own initialisation from the seed: a small tanh network on two moons
// (a point of positive-definite GGN + δI).
struct Laplace {
  using Options = vi::LaplaceOptions;
  static int& threads(Options& o) { return o.threads; }
  static auto model() {
    return vi::problems::make_two_moons({.examples = 60, .test_examples = 0, .hidden_units = 4})
        .model;
  }
  template <class Model>
  static auto run(const Model& model, const Options& o, std::uint64_t seed) {
    VectorXd theta;
    vi::Rng rng(seed);
    model.init(theta, rng);
    return vi::laplace(model, theta, o);
  }
  static Configurations<Options> configurations() {
    Configurations<Options> c;
    for (const auto curvature : {vi::LaplaceCurvature::ggn, vi::LaplaceCurvature::kfac})
      c.emplace_back(vi::to_string(curvature),
                     Options{.curvature = curvature, .prior_precision = 1.0, .grain = 8});
    return c;
  }
  static std::vector<BadOption<Options>> bad_options() {
    return {{[](Options& o) { o.prior_precision = 0.0; }, "prior_precision must be positive"}};
  }
};

// NUTS and static HMC on Bayesian linear regression, 3 short chains.
struct Hmc {
  using Options = vi::HmcOptions;
  static int& threads(Options& o) { return o.threads; }
  static auto model() { return ngvi::test::make_conjugate_linear(40, 3, 4.0, 1.0, 17).model(); }
  template <class Model>
  static auto run(const Model& model, const Options& o, std::uint64_t seed) {
    vi::Rng rng(seed);
    return vi::hmc(model, o, rng);
  }
  static Configurations<Options> configurations() {
    Configurations<Options> c;
    for (const auto& [algorithm, metric] :
         {std::pair{vi::HmcAlgorithm::nuts, vi::HmcMetric::diagonal},
          std::pair{vi::HmcAlgorithm::static_hmc, vi::HmcMetric::diagonal},
          std::pair{vi::HmcAlgorithm::nuts, vi::HmcMetric::dense}}) {
      Options o;
      o.algorithm = algorithm;
      o.metric = metric;
      o.chains = 3;
      o.warmup = 60;
      o.draws = 40;
      c.emplace_back(std::string(vi::to_string(algorithm)) + ", " + vi::to_string(metric), o);
    }
    return c;
  }
  static std::vector<BadOption<Options>> bad_options() {
    const double inf = std::numeric_limits<double>::infinity();
    return {{[](Options& o) { o.chains = 0; }, "chains must be >= 1, got 0"},
            {[](Options& o) { o.draws = 5; }, "draws must be >= 8, got 5"},
            {[](Options& o) { o.warmup = -1; }, "warmup"},
            {[](Options& o) { o.leapfrog_steps = 0; }, "leapfrog_steps"},
            {[](Options& o) { o.max_tree_depth = 0; }, "max_tree_depth"},
            {[](Options& o) { o.algorithm = vi::HmcAlgorithm(7); },
             "algorithm must be static_hmc or nuts, got 7"},
            {[](Options& o) { o.metric = vi::HmcMetric(7); },
             "metric must be diagonal or dense, got 7"},
            {[](Options& o) { o.target_acceptance = 1.0; },
             "target_acceptance must be in (0, 1), got 1"},
            {[](Options& o) { o.initial_step_size = -0.1; }, "initial_step_size"},
            {[](Options& o) { o.step_size_jitter = 1.0; }, "step_size_jitter"},
            {[](Options& o) { o.prior_precision = std::nan(""); }, "prior_precision"},
            {[](Options& o) { o.adapt_kappa = 0.0; }, "adapt_kappa"},
            {[](Options& o) { o.max_energy_error = 0.0; }, "max_energy_error"},
            {[](Options& o) { o.threads = -1; }, "threads"},
            {[](Options& o) { o.initial = VectorXd::Zero(3); }, "initial"},
            {[inf](Options& o) { o.initial = VectorXd::Constant(4, inf); }, "not finite"}};
  }
};

using FitMethods = std::tuple<Von, DiagonalVon, Vogn, FullVogn, Slang, Ivon, BayesByBackprop,
                              NoisyAdam, NoisyKfac, Map>;
using AllMethods = decltype(std::tuple_cat(FitMethods{}, std::tuple<Laplace, Hmc>{}));

// Options every method of the fit loop rejects, whatever its own: the loop's and the prior's.
template <class Options>
std::vector<BadOption<Options>> fit_loop_bad_options() {
  return {{[](Options& o) { o.loop.epochs = 0; }, "loop.epochs"},
          {[](Options& o) { o.loop.threads = -1; }, "loop.threads"},
          {[](Options& o) { o.loop.minibatch = 1000; }, "exceeds the number of examples"},
          {[](Options& o) { o.prior_precision = 0.0; }, "prior_precision"}};
}

// The iteration half-way through a run of `options` on n examples, moved off an epoch's end so
// that the checkpoint holds a partly used epoch.
template <class Options>
Eigen::Index mid_epoch_iteration(const Options& options, Eigen::Index n) {
  const Eigen::Index m = options.loop.minibatch;
  const Eigen::Index batches = m == 0 || m >= n ? 1 : (n + m - 1) / m;
  Eigen::Index at = options.loop.epochs * batches / 2 + 1;
  if (batches > 1 && at % batches == 0) ++at;
  return at;
}

constexpr std::uint64_t kSeed = 31;

// ---- The contract -------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE_TEMPLATE(same_bits_for_one_and_two_threads, Method, AllMethods) {
  const auto model = Method::model();
  for (const auto& [label, options] : Method::configurations()) {
    BOOST_TEST_CONTEXT(label) {
      auto one = options, two = options;
      Method::threads(one) = 1;
      Method::threads(two) = 2;
      const auto a = Method::run(model, one, kSeed);
      const auto b = Method::run(model, two, kSeed);
      BOOST_TEST_REQUIRE(finished(a));
      check_same_bits(fingerprint(a), fingerprint(b));
      // The comparison sees the run: another seed gives other bits.
      BOOST_TEST(!same_bits(fingerprint(a), fingerprint(Method::run(model, one, kSeed + 1))));
    }
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(resume_from_a_checkpoint_is_the_uninterrupted_run, Method,
                              FitMethods) {
  const auto model = Method::model();
  for (const auto& [label, options] : Method::configurations()) {
    BOOST_TEST_CONTEXT(label) {
      ngvi::test::CheckpointAt at{mid_epoch_iteration(options, model.num_examples()), std::nullopt};
      vi::Rng rng(kSeed);
      const auto whole = vi::fit(model, options, rng, at);
      BOOST_TEST_REQUIRE(whole.ok(), whole.message);
      BOOST_TEST_REQUIRE(at.saved.has_value());
      BOOST_TEST_REQUIRE(at.at < whole.counters.steps);
      const auto resumed = vi::resume(model, options, vi::FitCheckpoint::decode(*at.saved));
      check_same_bits(fingerprint(whole), fingerprint(resumed));
    }
  }
}

// The step size of the mean: mean_rate for the natural-gradient methods, learning_rate else.
template <class Options>
vi::Schedule& mean_step(Options& o) {
  if constexpr (requires { o.mean_rate; })
    return o.mean_rate;
  else
    return o.learning_rate;
}

// A Schedule's step drop (drop_at, drop_factor: Zhang et al. 2018's decay of the step for the
// second half of the epochs) against another route to the same run: stopped at iteration k and
// resumed with the constant step initial·factor from there, to the same bits. The mean's step
// only, where it is constant (a decaying step would round differently in the two routes).
BOOST_AUTO_TEST_CASE_TEMPLATE(a_step_drop_is_a_resume_with_the_smaller_step, Method, FitMethods) {
  const auto model = Method::model();
  for (const auto& [label, options] : Method::configurations()) {
    auto dropped = options;
    vi::Schedule& step = mean_step(dropped);
    if (step.decay != 0.0 || step.floor != 0.0) continue;
    BOOST_TEST_CONTEXT(label) {
      const Eigen::Index k = mid_epoch_iteration(options, model.num_examples());
      step.drop_at = k + 1;
      step.drop_factor = 0.1;
      ngvi::test::CheckpointAt at{k, std::nullopt};
      vi::Rng rng(kSeed);
      const auto whole = vi::fit(model, dropped, rng, at);
      BOOST_TEST_REQUIRE(whole.ok(), whole.message);
      BOOST_TEST_REQUIRE(at.saved.has_value());
      auto smaller = options;
      mean_step(smaller).initial *= 0.1;
      const auto resumed = vi::resume(model, smaller, vi::FitCheckpoint::decode(*at.saved));
      check_same_bits(fingerprint(whole), fingerprint(resumed));
      // The drop changed the run: without it the bits differ.
      vi::Rng again(kSeed);
      BOOST_TEST(!same_bits(fingerprint(whole), fingerprint(vi::fit(model, options, again))));
      auto bad = options;
      mean_step(bad).drop_factor = 0.0;
      BOOST_CHECK_EXCEPTION((void)Method::run(model, bad, 1), std::invalid_argument,
                            [](const std::invalid_argument& e) {
                              return std::string(e.what()).find("drop_factor") != std::string::npos;
                            });
    }
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(bad_options_are_errors_naming_the_function_and_the_option, Method,
                              AllMethods) {
  using Options = typename Method::Options;
  const auto model = Method::model();
  std::vector<BadOption<Options>> bad = Method::bad_options();
  if constexpr (requires(Options o) { o.loop; })
    for (auto& b : fit_loop_bad_options<Options>()) bad.push_back(std::move(b));
  for (const auto& [edit, mention] : bad) {
    BOOST_TEST_CONTEXT("bad " << mention) {
      Options o = Method::configurations().front().second;
      edit(o);
      try {
        (void)Method::run(model, o, 1);
        BOOST_ERROR("no error");
      } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        BOOST_TEST(what.find(mention) != std::string::npos, what);
        BOOST_TEST(what.starts_with("ngvi::vi::"), what);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
