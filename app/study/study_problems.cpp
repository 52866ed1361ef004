// The study's problems (study_problems.hpp): sizes, step sizes, references.
#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <app/study/continual_study.hpp>
#include <app/study/evidence_study.hpp>
#include <app/study/fit_health.hpp>
#include <app/study/gaussian_kl.hpp>
#include <app/study/hmc_reference.hpp>
#include <app/study/hmc_scores.hpp>
#include <app/study/logistic_vi_optimum.hpp>
#include <app/study/method_suites.hpp>
#include <app/study/sample_size_study.hpp>
#include <app/study/study_problems.hpp>
#include <fmt/format.h>
#include <io/uci_folder.hpp>

#include <inference/problems.hpp>
#include <inference/random.hpp>

namespace ngvi::app::study {
namespace {

// The loop of every method on a problem: `epochs` passes in minibatches of `minibatch` (0: full
// batch), with about `rows` history rows.
vi::LoopOptions loop_for(Eigen::Index epochs, Eigen::Index minibatch, Eigen::Index n,
                         Eigen::Index rows, const StudySettings& st) {
  vi::LoopOptions loop;
  loop.epochs = epochs;
  loop.minibatch = minibatch;
  const Eigen::Index per_epoch = minibatch > 0 ? (n + minibatch - 1) / minibatch : 1;
  loop.history_every = std::max<Eigen::Index>(1, epochs * per_epoch / rows);
  return ad::with_parallel(loop, st);
}

Eigen::Index scaled(const StudySettings& st, Eigen::Index full, Eigen::Index quick) {
  return st.quick ? quick : full;
}

void run_suites(const ProblemSetup& s, ProblemRecord& r) {
  r.examples = s.train->num_examples();
  r.test_examples = s.test->num_examples();
  r.parameters = s.train->num_params();
  r.epochs = s.loop.epochs;
  r.minibatch = s.loop.minibatch;
  const Eigen::Index m = s.loop.minibatch > 0 ? s.loop.minibatch : r.examples;
  r.iterations = s.loop.epochs * ((r.examples + m - 1) / m);
  r.prior_precision = s.prior_precision;
  r.elbo_method = s.exact_elbo() ? "exact" : "monte_carlo";
  r.elbo_samples = s.exact_elbo() ? 0 : s.loop.elbo_samples;
  r.elbo_how = s.quadratic_loss ? "exact: the loss is quadratic, E_q[NLL] = NLL(μ) + ½ tr(HΣ)"
               : s.exact_elbo()
                   ? "exact: E_q[ℓᵢ] by one-dimensional quadrature of fᵢ = φᵢᵀθ ~ N(mᵢ, vᵢ)"
                   : fmt::format("Monte Carlo, {} draws", s.loop.elbo_samples);
  r.test_inputs = s.test->data().X;
  r.test_targets = s.targets.inverse_transform(s.test->data().Y).col(0);
  r.methods = run_methods(s);
  r.no_skill_log_likelihood =
      no_skill_log_likelihood(s.train->data().Y.col(0), s.test->data().Y.col(0),
                              is_classification(*s.train), s.targets.log_jacobian());
  for (MethodRecord& m : r.methods) assess_health(m, r.no_skill_log_likelihood);
  r.evidence_runs = run_evidence_study(s);
}

// VON with each remedy for an indefinite Hessian (the study's own run, clip_eigenvalues, first;
// then the refits of run_von_remedies), each scored against the problem's HMC reference when it
// finished. Nothing without a full-covariance VON run; needs the HMC reference (r.hmc).
void add_remedy_runs(const ProblemSetup& s, ProblemRecord& r) {
  const auto von = std::find_if(r.methods.begin(), r.methods.end(),
                                [](const MethodRecord& m) { return m.name == "von"; });
  if (von == r.methods.end()) return;
  auto add = [&](const std::string& remedy, const MethodRecord& m) {
    RemedyRun run;
    run.remedy = remedy;
    run.status = m.status;
    run.message = m.message;
    run.steps = m.steps;
    run.remedies = m.remedies;
    run.test_log_likelihood = m.test_log_likelihood;
    if (m.status == "finished" && m.at_points && m.marginal_sd.size() == r.parameters)
      run.hmc_scores = score_against_hmc(m, *r.hmc);
    r.remedy_runs.push_back(std::move(run));
  };
  add("clip_eigenvalues", *von);
  for (const auto& [remedy, m] : run_von_remedies(s)) add(remedy, m);
}

// Two moons' HMC budget, which a user's network gets too (hmc_work_limit is set from its cost):
// 4 chains × (300 + 1000) transitions at depth 7; --quick 4 × (150 + 150) at depth 6.
HmcBudget network_hmc_budget(bool quick) {
  return quick ? HmcBudget{.warmup = 150,
                           .draws = 150,
                           .max_tree_depth = 6,
                           .predictive_samples = 100}
               : HmcBudget{.warmup = 300, .draws = 1000, .max_tree_depth = 7};
}

// The HMC reference of a network problem (hmc_reference.hpp), every chain started at the MAP
// fit's θ*, and each method's scores against it. Without a finite MAP there is no reference, and
// the record says why.
void add_hmc_reference(const ProblemSetup& s, const HmcBudget& budget, ProblemRecord& r) {
  r.evaluation_points = s.evaluation_points;
  const MethodRecord* map = nullptr;
  for (const MethodRecord& m : r.methods)
    if (m.name == "map_laplace") map = &m;
  if (!map || map->mean.size() != r.parameters || !map->mean.allFinite()) {
    r.hmc_absent = "the MAP fit, where the chains start, did not end at a finite θ";
    return;
  }
  r.hmc = hmc_reference(s, map->mean, budget);
  for (MethodRecord& m : r.methods)
    if (m.at_points && m.marginal_sd.size() == r.parameters)
      m.hmc_scores = score_against_hmc(m, *r.hmc);
}

// A linear model's Gaussian VI optimum in the record, each method's KL(q ‖ q*) from it (the
// noisy K-FAC finding, study_verdicts.cpp), and the refits of VON and VOGN with S = 1, 4, 16, 64
// samples against it (sample_size_study.hpp).
void add_vi_optimum(const ProblemSetup& s, GaussianOptimum optimum, ProblemRecord& r) {
  for (MethodRecord& m : r.methods)
    if (m.covariance.rows() == r.parameters && m.mean.allFinite() && m.covariance.allFinite() &&
        m.covariance.llt().info() == Eigen::Success)
      m.kl_from_vi_optimum = gaussian_kl(m.mean, m.covariance, optimum.mean, optimum.covariance);
  r.sample_size = run_sample_size_study(s, optimum);
  r.vi_optimum = std::move(optimum);
}

// A problem's setup with the study-wide settings: the seed every method starts from, the
// threads, and the predictive draws.
template <class Model>
ProblemSetup setup_for(const std::string& name, const Model& train, const Model& test,
                       const StudySettings& st) {
  ProblemSetup s;
  s.name = name;
  // The problem's networks as the tool's model type (the same network, data and likelihood; the
  // data shared, not copied).
  s.train =
      std::make_shared<const NetworkModel>(train.net(), train.likelihood(), train.shared_data());
  s.test = std::make_shared<const NetworkModel>(test.net(), test.likelihood(), test.shared_data());
  s.seed = st.seed;
  s.progress = st.progress;
  s.history_predictive_samples = st.quick ? 5 : 10;
  s.point_predictive_samples = st.quick ? 300 : 1000;
  s.final_predictive_samples = st.quick ? 30 : 100;
  s.final_elbo_samples = st.quick ? 50 : 200;
  return s;
}

ProblemRecord record_for(const std::string& name, std::string title, std::string description,
                         std::string task) {
  ProblemRecord r;
  r.name = name;
  r.title = std::move(title);
  r.description = std::move(description);
  r.task = std::move(task);
  return r;
}

std::vector<double> linspace(double a, double b, Eigen::Index n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] =
        a + (b - a) * static_cast<double>(i) / static_cast<double>(n - 1);
  return v;
}

// The continual-learning study's setup (continual_study.hpp) beside the gap problem `gap`: its
// network, prior δ, step sizes and predictive draws, the seed's tasks of 40 training examples,
// and per stage 150 epochs in minibatches of 20 (300 steps; --quick 20 epochs).
ContinualSetup continual_setup(const ProblemSetup& gap, const StudySettings& st) {
  ContinualSetup c;
  c.tasks = moving_sine_tasks(st.seed, 40, 100);
  c.loop = loop_for(scaled(st, 150, 20), 20, 40, 1, st);
  c.loop.history_every = c.loop.epochs * 2;  // one history row, at the end
  c.prior_precision = gap.prior_precision;
  c.steps = gap.steps;
  c.seed = st.seed;
  c.predictive_samples = gap.final_predictive_samples;
  return c;
}

ProblemRecord regression_1d_gap(const StudySettings& st) {
  vi::problems::Regression1dGapOptions po;
  po.seed = st.seed;
  const vi::problems::Regression1dGap p = vi::problems::make_regression_1d_gap(po);
  auto s = setup_for("regression_1d_gap", p.model, p.test_model, st);
  s.targets = p.targets;
  s.loop = loop_for(scaled(st, 500, 40), 32, p.model.num_examples(), st.quick ? 6 : 30, st);
  s.steps.ivon = 0.01;
  s.steps.natural_decay = 0.005;
  ProblemRecord r =
      record_for(s.name, "1-D regression with a gap in the inputs", p.description, "regression");
  r.grid_x = linspace(-2.6, 2.6, st.quick ? 50 : 160);
  s.grid = Eigen::Map<const Eigen::VectorXd>(r.grid_x.data(),
                                             static_cast<Eigen::Index>(r.grid_x.size()));
  r.train_inputs = p.model.data().X;
  r.train_targets = p.model.data().Y;
  for (const double x : r.grid_x) r.grid_truth.push_back(std::sin(2.0 * x));
  // Nine points across the gap, where Foong et al. 2019 look for in-between uncertainty.
  s.evaluation_points = Eigen::VectorXd::LinSpaced(9, -0.4, 0.4);
  r.evaluation_points_what = "9 points x = −0.4, −0.3, …, 0.4 inside the gap (−0.5, 0.5)";
  run_suites(s, r);
  // The posterior is narrow along some directions (τ = 25, N = 100) and prior-wide along others:
  // NUTS's trees would grow to Stan's depth 10 (1023 gradients per draw), so the depth is capped.
  // At depth 9 the parameters' R-hat stays above 1.01 (1.026–1.049 on seeds 1–5: the chains
  // cross between the network's sign-flipped modes, hmc_reference.hpp), while the function
  // values at the evaluation points converge (R-hat ≤ 1.01 on seeds 1–5); at depth 7 those miss
  // it too (up to 1.04 on 4 of 5 seeds), so depth 9 stays.
  add_hmc_reference(
      s,
      st.quick
          ? HmcBudget{.warmup = 150, .draws = 150, .max_tree_depth = 5, .predictive_samples = 100}
          : HmcBudget{.warmup = 300, .draws = 300, .max_tree_depth = 9},
      r);
  // VON's other remedies on this problem alone: four more full-covariance VON fits per seed are
  // about a fifth of the study's time here, and would be as much again on two moons.
  if (r.hmc) add_remedy_runs(s, r);
  r.continual = run_continual_study(continual_setup(s, st));
  return r;
}

ProblemRecord two_moons(const StudySettings& st) {
  vi::problems::TwoMoonsOptions po;
  po.seed = st.seed;
  const vi::problems::TwoMoons p = vi::problems::make_two_moons(po);
  auto s = setup_for("two_moons", p.model, p.test_model, st);
  s.loop = loop_for(scaled(st, 250, 20), 32, p.model.num_examples(), st.quick ? 6 : 30, st);
  s.steps.noisy_adam = 1e-2;
  s.steps.natural_decay = 0.005;
  ProblemRecord r =
      record_for(s.name, "Two moons (2-D classification)", p.description, "classification");
  r.grid_x = linspace(-2.0, 2.0, st.quick ? 24 : 64);
  r.grid_y = linspace(-1.5, 1.5, st.quick ? 18 : 48);
  s.grid.resize(static_cast<Eigen::Index>(r.grid_x.size() * r.grid_y.size()), 2);
  Eigen::Index k = 0;
  for (double y : r.grid_y)
    for (double x : r.grid_x) {
      s.grid(k, 0) = x;
      s.grid(k++, 1) = y;
    }
  r.train_inputs = p.model.data().X;
  r.train_targets = p.model.data().Y;
  // A 5 × 4 grid over the moons and the space between and around them.
  s.evaluation_points.resize(20, 2);
  for (Eigen::Index i = 0; i < 5; ++i)
    for (Eigen::Index j = 0; j < 4; ++j) {
      s.evaluation_points(4 * i + j, 0) = -1.5 + 0.75 * static_cast<double>(i);
      s.evaluation_points(4 * i + j, 1) = -1.0 + (2.0 / 3.0) * static_cast<double>(j);
    }
  r.evaluation_points_what =
      "a 5 × 4 grid over [−1.5, 1.5] × [−1, 1]: the moons and the space between and around them";
  run_suites(s, r);
  add_hmc_reference(s, network_hmc_budget(st.quick), r);
  return r;
}

// A normal density's values at the points x.
Eigen::VectorXd normal_density(const Eigen::VectorXd& x, double mean, double sd) {
  return ((-0.5 * ((x.array() - mean) / sd).square()).exp() /
          (sd * std::sqrt(2.0 * std::numbers::pi)))
      .matrix();
}

ProblemRecord bayesian_linear_regression(const StudySettings& st) {
  vi::problems::BayesianLinearRegressionOptions po;
  po.seed = st.seed;
  const vi::problems::BayesianLinearRegression p =
      vi::problems::make_bayesian_linear_regression(po);
  // Held-out data from the same θ_true and noise, from a generator of its own.
  vi::Rng rng(st.seed + 1);
  const Eigen::Index d = po.inputs, n_test = 200;
  Eigen::MatrixXd phi(n_test, d + 1);
  phi.leftCols(d) = vi::standard_normal(rng, n_test, d);
  phi.col(d).setOnes();
  const Eigen::VectorXd y =
      phi * p.true_parameters + vi::standard_normal(rng, n_test) / std::sqrt(p.noise_precision);
  const vi::problems::BayesianLinearRegression::model_type test(p.model.net(), p.model.likelihood(),
                                                                nn::Dataset{phi.leftCols(d), y});
  auto s = setup_for("bayesian_linear_regression", p.model, test, st);
  // Full batch, and expectations at the mean: for a quadratic loss E_q[∇ℓ] = ∇ℓ(μ) and
  // E_q[∇²ℓ] = ∇²ℓ, so VON and VOGN (GGN = Hessian here) iterate towards the exact posterior.
  s.loop = loop_for(scaled(st, 400, 200), 0, p.model.num_examples(), st.quick ? 6 : 30, st);
  s.prior_precision = p.prior_precision;
  s.quadratic_loss = true;  // linear in θ, Gaussian likelihood: the ELBO is exact
  s.steps.natural = 0.8;
  s.steps.natural_mc_samples = 0;
  s.steps.adam = 0.05;
  s.steps.ivon = 0.2;
  s.steps.kfac = 0.2;
  s.steps.kfac_beta = 0.2;
  ProblemRecord r =
      record_for(s.name, "Bayesian linear regression (conjugate: exact posterior in closed form)",
                 "y = Φθ + N(0, 1/" + vi::problems::short_number(p.noise_precision) +
                     "), Φ = [X | 1], X ~ N(0, 1), " + std::to_string(d) + " inputs; prior N(0, " +
                     vi::problems::short_number(1.0 / p.prior_precision) + "·I)",
                 "regression");
  for (Eigen::Index j = 0; j < d; ++j) r.parameter_names.push_back("w" + std::to_string(j + 1));
  r.parameter_names.push_back("b");
  ReferencePosterior ref;
  ref.how = "closed form: Λ = τΦᵀΦ + δI, μ = Λ⁻¹τΦᵀy";
  ref.mean = p.posterior_mean;
  ref.sd = p.posterior_covariance.diagonal().cwiseSqrt();
  ref.mean_field_sd = p.posterior_precision.diagonal().cwiseInverse().cwiseSqrt();
  for (Eigen::Index j = 0; j < d + 1; ++j) {
    const Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(200, ref.mean(j) - 4.5 * ref.sd(j),
                                                         ref.mean(j) + 4.5 * ref.sd(j));
    ref.marginal_x.push_back(x);
    ref.marginal_density.push_back(normal_density(x, ref.mean(j), ref.sd(j)));
  }
  r.reference = std::move(ref);
  r.design = p.design;
  r.targets = p.targets;
  r.noise_precision = p.noise_precision;
  run_suites(s, r);
  GaussianOptimum optimum;
  optimum.how = "closed form: the exact posterior N(μ, Λ⁻¹); mean field: μ with sd 1/√Λⱼⱼ";
  optimum.mean = p.posterior_mean;
  optimum.covariance = p.posterior_covariance;
  optimum.mean_field_mean = p.posterior_mean;
  optimum.mean_field_sd = p.posterior_precision.diagonal().cwiseInverse().cwiseSqrt();
  add_vi_optimum(s, std::move(optimum), r);
  return r;
}

// The posterior of θ = (w, b) on a grid: log p(θ | D) = −Σᵢ [log(1 + e^{fᵢ}) − yᵢfᵢ] − δ/2‖θ‖² +
// const, fᵢ = w xᵢ + b, written out here (not through nn/) so that it is an independent route.
// The grid covers the mean ± 7 sd of a first, coarse pass. Cost: O(grid² · N).
ReferencePosterior logistic_quadrature(const vi::problems::LogisticRegression2d& p,
                                       Eigen::Index n) {
  auto log_post = [&](double w, double b) {
    double s = -0.5 * p.prior_precision * (w * w + b * b);
    for (Eigen::Index i = 0; i < p.inputs.size(); ++i) {
      const double f = w * p.inputs(i) + b;
      s -= (f > 0 ? f + std::log1p(std::exp(-f)) : std::log1p(std::exp(f))) - p.labels(i) * f;
    }
    return s;
  };
  Eigen::Vector2d lo(-10.0, -10.0), hi(10.0, 10.0);
  ReferencePosterior ref;
  for (int pass = 0; pass < 2; ++pass) {
    const Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(n, lo(0), hi(0));
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, lo(1), hi(1));
    Eigen::MatrixXd lp(n, n);  // (w index, b index)
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < n; ++j) lp(i, j) = log_post(w(i), b(j));
    const Eigen::MatrixXd dens = (lp.array() - lp.maxCoeff()).exp().matrix();
    const double dw = w(1) - w(0), db = b(1) - b(0);
    const Eigen::VectorXd mw = dens.rowwise().sum() * db,
                          mb = dens.colwise().sum().transpose() * dw;
    const double zw = mw.sum() * dw, zb = mb.sum() * db;
    const Eigen::VectorXd pw = mw / zw, pb = mb / zb;
    const double ew = w.dot(pw) * dw, eb = b.dot(pb) * db;
    const double sw = std::sqrt(((w.array() - ew).square() * pw.array()).sum() * dw);
    const double sb = std::sqrt(((b.array() - eb).square() * pb.array()).sum() * db);
    ref.mean.resize(2);
    ref.mean << ew, eb;
    ref.sd.resize(2);
    ref.sd << sw, sb;
    ref.marginal_x = {w, b};
    ref.marginal_density = {pw, pb};
    lo = ref.mean - 7.0 * ref.sd;
    hi = ref.mean + 7.0 * ref.sd;
  }
  ref.how = "quadrature: the unnormalised posterior on a " + std::to_string(n) + "×" +
            std::to_string(n) + " grid over the mean ± 7 sd (midpoint rule)";
  return ref;
}

ProblemRecord logistic_regression_2d(const StudySettings& st) {
  vi::problems::LogisticRegression2dOptions po;
  po.seed = st.seed;
  const vi::problems::LogisticRegression2d p = vi::problems::make_logistic_regression_2d(po);
  vi::problems::LogisticRegression2dOptions to = po;
  to.seed = st.seed + 1;
  to.examples = 500;
  const vi::problems::LogisticRegression2d held_out = vi::problems::make_logistic_regression_2d(to);
  auto s = setup_for("logistic_regression_2d", p.model, held_out.model, st);
  s.loop = loop_for(scaled(st, 300, 80), 0, p.model.num_examples(), st.quick ? 6 : 30, st);
  s.steps.noisy_adam = 1e-2;
  s.prior_precision = p.prior_precision;
  s.steps.natural = 0.3;
  s.steps.adam = 0.05;
  // θ = (w, b), f = w x + b: the design [x | 1] makes the ELBO exact by quadrature.
  s.logistic_design.resize(p.inputs.size(), 2);
  s.logistic_design << p.inputs, Eigen::VectorXd::Ones(p.inputs.size());
  s.steps.kfac = 0.2;
  s.steps.kfac_beta = 0.2;
  ProblemRecord r =
      record_for(s.name, "2-D Bayesian logistic regression (exact posterior by quadrature)",
                 "P(y = 1) = σ(w x + b), x ~ N(0, 1), N = " + std::to_string(po.examples) +
                     ", (w, b)_true = (" + vi::problems::short_number(po.true_weight) + ", " +
                     vi::problems::short_number(po.true_bias) + "); prior N(0, I)",
                 "classification");
  r.parameter_names = {"w", "b"};
  r.reference = logistic_quadrature(p, st.quick ? 121 : 301);
  r.design = s.logistic_design;
  r.targets = p.labels;
  run_suites(s, r);
  add_vi_optimum(s, logistic_gaussian_optimum(s.logistic_design, p.labels, s.prior_precision), r);
  return r;
}

// Why Boston has no HMC reference (see app/study/README.md).
constexpr const char* boston_without_hmc =
    "not computed, for the time budget (an estimate, not a measured run): on two moons (P = 65, "
    "N = 200) NUTS needs about 80 gradients per draw and 4 × 1300 transitions, about 20 s of one "
    "core per seed, to reach max R-hat ≤ 1.01 on most seeds; Boston's network (P = 151, N = 455) "
    "costs several times as much per gradient and needs at least as many, so five seeds would "
    "exceed the study's whole budget of 3 minutes on 2 cores";

ProblemRecord uci_boston(const StudySettings& st) {
  const vi::problems::UciRegression p =
      io::uci_regression_problem({.folder = st.boston, .problem = {.hidden_units = 10}});
  auto s = setup_for("uci_boston", p.model, p.test_model, st);
  s.targets = p.targets;
  s.loop = loop_for(scaled(st, 120, 4), 32, p.model.num_examples(), st.quick ? 4 : 25, st);
  s.steps.ivon = 0.01;
  s.steps.natural_decay = 0.002;
  s.steps.natural = 0.03;
  s.steps.adam = 0.01;
  ProblemRecord r =
      record_for(s.name, "Boston housing (UCI, split 0), a small MLP", p.description, "regression");
  run_suites(s, r);
  r.hmc_absent = boston_without_hmc;
  return r;
}

// The design Φ of a model linear in θ, f(x; θ) = Φ(x)θ: column j is the output at θ = e_j (the
// network's output at θ = 0 is 0: no dense layer without its weights). Cost: P forward passes.
Eigen::MatrixXd linear_design(const NetworkModel& model) {
  const Eigen::Index p = model.num_params();
  Eigen::MatrixXd phi(model.num_examples(), p);
  for (Eigen::Index j = 0; j < p; ++j)
    phi.col(j) = model.outputs(Eigen::VectorXd::Unit(p, j)).col(0);
  return phi;
}

// The closed-form posterior of a linear-Gaussian model, Λ = τΦᵀΦ + δI, μ = Λ⁻¹τΦᵀy (Bishop 2006,
// §3.3), as the exact reference and the Gaussian VI optimum (the same, full covariance; the
// mean field has the exact means with sd 1/√Λⱼⱼ). Cost: O(N·P² + P³).
std::pair<ReferencePosterior, GaussianOptimum> linear_gaussian_posterior(const Eigen::MatrixXd& phi,
                                                                         const Eigen::VectorXd& y,
                                                                         double tau, double delta) {
  const Eigen::Index p = phi.cols();
  Eigen::MatrixXd precision = tau * phi.transpose() * phi;
  precision.diagonal().array() += delta;
  const Eigen::LLT<Eigen::MatrixXd> llt(precision);
  const Eigen::MatrixXd covariance = llt.solve(Eigen::MatrixXd::Identity(p, p));
  const Eigen::VectorXd mean = llt.solve(tau * phi.transpose() * y);
  ReferencePosterior ref;
  ref.how = "closed form: Λ = τΦᵀΦ + δI, μ = Λ⁻¹τΦᵀy";
  ref.mean = mean;
  ref.sd = covariance.diagonal().cwiseSqrt();
  ref.mean_field_sd = precision.diagonal().cwiseInverse().cwiseSqrt();
  for (Eigen::Index j = 0; j < p; ++j) {
    const Eigen::VectorXd x =
        Eigen::VectorXd::LinSpaced(200, mean(j) - 4.5 * ref.sd(j), mean(j) + 4.5 * ref.sd(j));
    ref.marginal_x.push_back(x);
    ref.marginal_density.push_back(normal_density(x, mean(j), ref.sd(j)));
  }
  GaussianOptimum optimum;
  optimum.how = "closed form: the exact posterior N(μ, Λ⁻¹); mean field: μ with sd 1/√Λⱼⱼ";
  optimum.mean = mean;
  optimum.covariance = covariance;
  optimum.mean_field_mean = mean;
  optimum.mean_field_sd = ref.mean_field_sd;
  return {std::move(ref), std::move(optimum)};
}

// Why a user's problem has no HMC reference, or an empty string if it gets one.
std::string user_hmc_absent(const Problem& p, bool exact_reference) {
  const Eigen::Index params = p.train->num_params(), n = p.train->num_examples();
  if (exact_reference)
    return "not computed: the exact posterior is known (the reference the methods are checked "
           "against)";
  if (params * n > hmc_work_limit)
    return fmt::format(
        "not computed, for the time budget: P·N = {}·{} = {} exceeds the study's limit of {} "
        "(two moons, P·N = 65·200 = 13 000, takes about 20 s of one core per seed for 4 × 1300 "
        "NUTS transitions of about 80 gradients each, and a gradient costs about P·N)",
        params, n, params * n, hmc_work_limit);
  return {};
}

}  // namespace

void check_problem(const Problem& p) {
  const std::string who = "ngvi::app::study::run_problem";
  if (p.name.empty() || !std::all_of(p.name.begin(), p.name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
      }))
    throw std::invalid_argument(fmt::format(
        "{}: the problem's name '{}' must be letters, digits, '_' and '-' (it names files)", who,
        p.name));
  if (!p.train || !p.test)
    throw std::invalid_argument(fmt::format("{}: problem '{}' has no {} model", who, p.name,
                                            p.train ? "test" : "training"));
  const bool classification = is_classification(*p.train);
  if (!classification && !p.train->likelihood().holds<nn::GaussianFixedNoise>())
    throw std::invalid_argument(fmt::format(
        "{}: problem '{}': the study supports the GaussianFixedNoise and BernoulliLogit "
        "likelihoods, not {}",
        who, p.name, p.train->likelihood().held_name()));
  if (p.test->likelihood().held_name() != p.train->likelihood().held_name() ||
      p.test->num_params() != p.train->num_params() ||
      p.test->data().X.cols() != p.train->data().X.cols() || p.train->net().output_dim() != 1)
    throw std::invalid_argument(fmt::format(
        "{}: problem '{}': the training and test models must be the same one-output network and "
        "likelihood (P = {} and {}, {} and {} inputs, {} outputs)",
        who, p.name, p.train->num_params(), p.test->num_params(), p.train->data().X.cols(),
        p.test->data().X.cols(), p.train->net().output_dim()));
  if (classification)
    for (const NetworkModel* m : {p.train.get(), p.test.get()})
      for (Eigen::Index i = 0; i < m->num_examples(); ++i)
        if (const double y = m->data().Y(i, 0); y != 0.0 && y != 1.0)
          throw std::invalid_argument(fmt::format(
              "{}: problem '{}': a Bernoulli-logit label must be 0 or 1; {} example {} has {}", who,
              p.name, m == p.train.get() ? "training" : "test", i, y));
  if (p.train->num_params() > study_parameter_limit)
    throw std::invalid_argument(fmt::format(
        "{}: problem '{}' has P = {} parameters; the study is limited to P ≤ {} (MAP + "
        "Laplace, every problem's baseline, factorises the full P×P GGN): use a smaller network",
        who, p.name, p.train->num_params(), study_parameter_limit));
}

ProblemRecord run_problem(const Problem& p, const StudySettings& st) {
  check_problem(p);
  const bool classification = is_classification(*p.train);
  const bool linear = linear_in_parameters(*p.train);
  ProblemSetup s = setup_for(p.name, *p.train, *p.test, st);
  s.targets = p.targets;
  s.prior_precision = p.prior_precision;
  s.steps = p.steps;
  const Eigen::Index params = p.train->num_params();
  s.full_covariance = params <= full_covariance_parameter_limit;
  s.curvature_study = params <= curvature_parameter_limit;
  // A minibatch no smaller than the training set is the full batch (the fit loop refuses it).
  const Eigen::Index n = p.train->num_examples();
  s.loop = loop_for(st.quick ? p.quick_epochs : p.epochs, p.minibatch >= n ? 0 : p.minibatch, n,
                    st.quick ? 6 : 30, st);
  ProblemRecord r = record_for(p.name, p.title.empty() ? p.name : p.title, p.description,
                               classification ? "classification" : "regression");
  const Eigen::MatrixXd phi = linear ? linear_design(*p.train) : Eigen::MatrixXd();
  const Eigen::VectorXd y = p.train->data().Y.col(0);
  std::optional<ReferencePosterior> reference = p.reference;
  std::optional<GaussianOptimum> optimum = p.vi_optimum;
  if (linear && !classification) {
    s.quadratic_loss = true;
    const double tau = p.train->likelihood().get_if<nn::GaussianFixedNoise>()->precision();
    if (!reference || !optimum) {
      auto [ref, opt] = linear_gaussian_posterior(phi, y, tau, p.prior_precision);
      if (!reference) reference = std::move(ref);
      if (!optimum) optimum = std::move(opt);
    }
    r.design = phi;
    r.targets = y;
    r.noise_precision = tau;
  } else if (linear) {
    s.logistic_design = phi;
    if (!optimum) optimum = logistic_gaussian_optimum(phi, y, p.prior_precision);
    r.design = phi;
    r.targets = y;
  }
  if (params <= small_problem_parameters)
    for (Eigen::Index j = 0; j < params; ++j)
      r.parameter_names.push_back(fmt::format("theta{}", j + 1));
  r.reference = std::move(reference);
  if (!s.curvature_study)
    r.curvature_absent = fmt::format(
        "not computed: P = {} exceeds {}, the limit of the exact P×P Hessians they need at every "
        "history row of every fit",
        params, curvature_parameter_limit);
  // Evaluation points only where there is an HMC reference to compare the predictives with.
  r.hmc_absent = user_hmc_absent(p, r.reference.has_value());
  if (r.hmc_absent.empty()) {
    s.evaluation_points = p.evaluation_points.size() > 0
                              ? p.evaluation_points
                              : Eigen::MatrixXd(p.test->data().X.topRows(
                                    std::min<Eigen::Index>(10, p.test->num_examples())));
    r.evaluation_points_what =
        p.evaluation_points.size() > 0
            ? fmt::format("{} points given with the problem", p.evaluation_points.rows())
            : fmt::format("the first {} test inputs (standardised)", s.evaluation_points.rows());
  }
  run_suites(s, r);
  if (optimum) add_vi_optimum(s, std::move(*optimum), r);
  if (r.hmc_absent.empty()) add_hmc_reference(s, network_hmc_budget(st.quick), r);
  return r;
}

ProblemRecord run_problem(const std::string& name, const StudySettings& settings) {
  if (name == "regression_1d_gap") return regression_1d_gap(settings);
  if (name == "two_moons") return two_moons(settings);
  if (name == "bayesian_linear_regression") return bayesian_linear_regression(settings);
  if (name == "logistic_regression_2d") return logistic_regression_2d(settings);
  if (name == "uci_boston") return uci_boston(settings);
  throw std::invalid_argument("ngvi study: unknown problem '" + name + "'");
}

}  // namespace ngvi::app::study
