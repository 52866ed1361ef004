// curvature_study: how far are the Gauss-Newton, the empirical Fisher and the Monte-Carlo true
// Fisher from the true Hessian, along the way to the MAP?
//
// The claim under test: the Gauss-Newton approximation that VOGN uses (Khan et al. 2018, "Fast and
// Scalable Bayesian Deep Learning by Weight-Perturbation in Adam") becomes a better approximation
// to the Hessian as training goes on, as S. Swaroop's blog post deriving VOGN ("Natural-Gradient
// Variational Inference 1: The Maths") expects. Note that the matrix VOGN uses, (1/N)Σᵢ gᵢgᵢᵀ, is
// what Zhang, Sun, Duvenaud & Grosse (2018, footnote 2) call the *empirical Fisher*; the
// generalized Gauss-Newton (Martens 2020) is Σᵢ Jᵢᵀ H_L Jᵢ. This program measures both (and the MC
// true Fisher, and K-FAC's block-diagonal Kronecker approximation) against the exact Hessian on two
// small problems:
//   regression      1-D inputs, y = sin(2x) + noise, a 1-16-1 tanh MLP, Gaussian likelihood
//                   with the true noise precision;
//   classification  2-D two moons, a 2-16-1 tanh MLP, Bernoulli-logit likelihood;
// (both from inference/problems.hpp, the toy problems the tests and the CLI tool share), trained to
// the MAP (prior N(0, δ⁻¹I), i.e. L2) by full-batch vi::Adam on ad::gradient, its step decayed
// geometrically from 1e-2 to 1e-4 so that it settles. At each
// checkpoint it computes the curvature of the data term L(θ) = Σᵢ ℓᵢ(θ) (the prior adds the same
// δI to every matrix) and reports the relative Frobenius error ‖A − H‖_F/‖H‖_F, the cosine of the
// diagonals, and the Hessian's smallest eigenvalue and number of negative eigenvalues. It prints
// one table per problem and a verdict on the claim, and with --json PATH writes everything as
// JSON (atomically: a temporary file renamed over PATH). The output depends only on the options,
// bit for bit, whatever --threads is: the curvature sums are reduced over fixed blocks of
// examples, the Hessian's sweeps each write their own columns, and no fused node's result
// depends on where the tape that recorded it stood.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <Eigen/Cholesky>
#include <fmt/format.h>
#include <io/atomic_write.hpp>
#include <nlohmann/json.hpp>

#include <autodiff/functional/value_and_gradient.hpp>
#include <inference/adam.hpp>
#include <inference/problems.hpp>
#include <nn/curvature/curvature.hpp>

namespace {

namespace nn = ngvi::nn;
namespace ad = ngvi::ad;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using json = nlohmann::json;

struct StudyOptions {
  std::uint64_t seed = 1;
  int iterations = 3000;         // Adam steps
  double prior_precision = 1.0;  // δ
  double learning_rate = 0.01;   // Adam's step at iteration 0, decayed geometrically ...
  double final_learning_rate =
      1e-4;             // ... to this at the last iteration, so training settles at the MAP
  int mc_samples = 16;  // S for the Monte-Carlo true Fisher
  int threads = 0;      // oneTBB decides; the output is the same for any count
};

// ---- one checkpoint -----------------------------------------------------------------------------

struct Approx {
  std::string name;
  nn::CurvatureComparison c;
};

struct Checkpoint {
  int iteration = 0;       // Adam steps taken
  bool polished = false;   // after the Newton polish (the MAP row)
  double loss = 0.0;       // Σᵢ ℓᵢ
  double objective = 0.0;  // Σᵢ ℓᵢ + δ/2 ‖θ‖²
  double grad_norm = 0.0;  // of the MAP objective
  nn::Spectrum hessian;
  double posterior_min_eigenvalue = 0.0;  // λmin(H + δI), the MAP objective's curvature
  std::vector<Approx> approx;
};

template <class Model>
Checkpoint measure(const Model& model, const VectorXd& theta, int iteration,
                   const StudyOptions& o) {
  Checkpoint cp;
  cp.iteration = iteration;
  VectorXd g;
  const nn::CurvatureOptions par{.threads = o.threads};
  const MatrixXd H = nn::exact_hessian(model, theta, par, &cp.loss, &g);
  cp.objective = cp.loss + 0.5 * o.prior_precision * theta.squaredNorm();
  cp.grad_norm = (g + o.prior_precision * theta).norm();
  cp.hessian = nn::spectrum(H);
  cp.posterior_min_eigenvalue = cp.hessian.min + o.prior_precision;

  const nn::GgnOptions ggn_options{.threads = o.threads};
  const nn::MonteCarloFisherOptions mc{
      .samples = o.mc_samples,
      .seed = o.seed * 1000003u + static_cast<std::uint64_t>(iteration),
      .threads = o.threads};
  const nn::KfacOptions kfac{.s_factor = nn::KfacS::sampled_fisher,
                             .samples = o.mc_samples,
                             .seed = mc.seed,
                             .threads = o.threads};
  nn::KfacOptions kfac_exact = kfac;
  kfac_exact.s_factor = nn::KfacS::expected_fisher;

  const Eigen::Index P = theta.size();
  cp.approx.push_back(
      {"ggn", nn::compare_curvature(nn::ggn(model, theta, ggn_options), H, cp.hessian)});
  cp.approx.push_back(
      {"empirical_fisher",
       nn::compare_curvature(nn::empirical_fisher(model, theta, par), H, cp.hessian)});
  cp.approx.push_back(
      {"mc_fisher", nn::compare_curvature(nn::mc_fisher(model, theta, mc), H, cp.hessian)});
  cp.approx.push_back(
      {"kfac_expected",
       nn::compare_curvature(nn::kfac_matrix(nn::kfac_factors(model, theta, kfac_exact), P), H,
                             cp.hessian)});
  cp.approx.push_back({"kfac_sampled", nn::compare_curvature(
                                           nn::kfac_matrix(nn::kfac_factors(model, theta, kfac), P),
                                           H, cp.hessian)});
  return cp;
}

// ---- training -----------------------------------------------------------------------------------

// Adam's endpoint is only near the MAP: with a step of 1e-4 per coordinate and curvatures up to
// ~1e4 its gradient stays O(1), and the point can still have directions of negative curvature.
// The MAP row is measured after a Levenberg-Marquardt-damped Newton polish with the exact
// Hessian of the MAP objective: steps (H + δI + μI)⁻¹∇, accepted only if the objective goes down
// (μ shrinks after a success, grows after a failure), until the gradient norm is below 1e-8 or
// 100 steps. It ends at a point whose H + δI is positive definite unless it got stuck.
template <class Model>
void polish_to_map(const Model& model, VectorXd& theta, const StudyOptions& o) {
  const double delta = o.prior_precision;
  auto objective = [&](const VectorXd& th) {
    return model.total_loss(th) + 0.5 * delta * th.squaredNorm();
  };
  double mu = 1.0;
  for (int k = 0; k < 100; ++k) {
    double L = 0.0;
    VectorXd g;
    MatrixXd H = nn::exact_hessian(model, theta, {.threads = o.threads}, &L, &g);
    g += delta * theta;
    if (g.norm() < 1e-8) return;
    const double f0 = L + 0.5 * delta * theta.squaredNorm();
    H.diagonal().array() += delta;
    bool accepted = false;
    for (int tries = 0; tries < 40 && !accepted; ++tries) {
      MatrixXd A = H;
      A.diagonal().array() += mu;
      Eigen::LLT<MatrixXd> llt(A);
      if (llt.info() == Eigen::Success) {
        const VectorXd candidate = theta - llt.solve(g);
        if (objective(candidate) < f0) {
          theta = candidate;
          accepted = true;
          mu = std::max(mu / 3.0, 1e-12);
          continue;
        }
      }
      mu *= 10.0;
    }
    if (!accepted) return;
  }
}

// Full-batch Adam on Σᵢ ℓᵢ(θ) + δ/2 ‖θ‖², measuring at the checkpoints.
template <class Model>
std::vector<Checkpoint> train_and_measure(const Model& model, VectorXd theta,
                                          const StudyOptions& o) {
  std::vector<int> marks = {0, 10, 30, 100, 300, 1000, 3000, 10000, 30000};
  marks.erase(std::remove_if(marks.begin(), marks.end(), [&](int m) { return m >= o.iterations; }),
              marks.end());
  marks.push_back(o.iterations);

  ngvi::vi::Adam adam(theta.size(), ngvi::vi::AdamOptions{});  // the published β₁, β₂, ε
  VectorXd g;
  std::vector<Checkpoint> out;
  std::size_t next = 0;
  for (int t = 0; t <= o.iterations; ++t) {
    if (next < marks.size() && t == marks[next]) {
      out.push_back(measure(model, theta, t, o));
      ++next;
    }
    if (t == o.iterations) break;
    ad::value_and_gradient([&](const auto& th) { return model.total_loss(th); }, theta, g);
    g += o.prior_precision * theta;
    const double lr =
        o.learning_rate * std::pow(o.final_learning_rate / o.learning_rate,
                                   static_cast<double>(t) / std::max(1, o.iterations - 1));
    adam.step(theta, g, lr);
  }
  polish_to_map(model, theta, o);
  out.push_back(measure(model, theta, o.iterations, o));
  out.back().polished = true;
  return out;
}

// ---- reporting ----------------------------------------------------------------------------------

const Approx& find(const Checkpoint& c, const std::string& name) {
  for (const Approx& a : c.approx)
    if (a.name == name) return a;
  throw std::logic_error("no approximation " + name);
}

void print_table(const std::string& title, const std::vector<Checkpoint>& cps) {
  const char* head =
      "{:>6} {:>9} {:>8} | {:>9} {:>4} {:>8} {:>10} | {:>13} | {:>13} | {:>13} | {:>13} | {:>13}\n";
  fmt::print("\n{}\n", title);
  fmt::print(fmt::runtime(head), "iter", "loss", "|grad|", "λmin(H)", "#neg", "λmax(H)",
             "λmin(H+δI)", "GGN", "emp. Fisher", "MC Fisher", "K-FAC exp.", "K-FAC MC");
  fmt::print(fmt::runtime(head), "", "", "", "", "", "", "", "relF   cos", "relF   cos",
             "relF   cos", "relF   cos", "relF   cos");
  for (const Checkpoint& c : cps) {
    fmt::print("{:>6} {:>9.4g} {:>8.2e} | {:>9.3g} {:>4} {:>8.3g} {:>10.3g}",
               c.polished ? std::string("MAP") : std::to_string(c.iteration), c.loss, c.grad_norm,
               c.hessian.min, c.hessian.negative_count, c.hessian.max, c.posterior_min_eigenvalue);
    for (const char* n :
         {"ggn", "empirical_fisher", "mc_fisher", "kfac_expected", "kfac_sampled"}) {
      const auto& a = find(c, n).c;
      fmt::print(" | {:>6.3f} {:>6.3f}", a.relative_frobenius_error, a.diagonal_cosine);
    }
    fmt::print("\n");
  }
}

json checkpoint_json(const Checkpoint& c) {
  json j;
  j["iteration"] = c.iteration;
  j["stage"] = c.polished ? "map" : "adam";
  j["loss"] = c.loss;
  j["objective"] = c.objective;
  j["grad_norm"] = c.grad_norm;
  j["hessian"] = {{"min_eigenvalue", c.hessian.min},
                  {"max_eigenvalue", c.hessian.max},
                  {"negative_eigenvalues", c.hessian.negative_count},
                  {"psd", c.hessian.psd}};
  j["posterior_precision_min_eigenvalue"] = c.posterior_min_eigenvalue;
  for (const Approx& a : c.approx) {
    j["approximations"][a.name] = {
        {"relative_frobenius_error", a.c.relative_frobenius_error},
        {"diagonal_cosine", a.c.diagonal_cosine},
        {"min_eigenvalue", a.c.min_eigenvalue},
        {"negative_eigenvalues", a.c.negative_eigenvalues},
        {"top_eigenvalues",
         std::vector<double>(a.c.top_eigenvalues.data(),
                             a.c.top_eigenvalues.data() + a.c.top_eigenvalues.size())},
        {"relative_top_eigenvalue_error", a.c.relative_top_eigenvalue_error}};
  }
  return j;
}

// Did approximation `name` get closer to the Hessian over training? Compares the error at the
// start, at the end and at its best checkpoint, and counts how often it went down between
// consecutive checkpoints. "confirmed": closer at the end than at the start and no real relapse
// late in training (at the end within 25% or 0.02 of its best relF); "partly": closer at the end
// than at the start, but worse than its best checkpoint by more than both; "refuted": not closer
// at the end.
json verdict(const std::vector<Checkpoint>& cps, const std::string& name) {
  const double first = find(cps.front(), name).c.relative_frobenius_error;
  const double last = find(cps.back(), name).c.relative_frobenius_error;
  double best = first;
  std::string best_at = "it 0";
  int decreases = 0;
  for (std::size_t k = 0; k < cps.size(); ++k) {
    const double e = find(cps[k], name).c.relative_frobenius_error;
    if (e < best) {
      best = e;
      best_at = cps[k].polished ? "MAP" : "it " + std::to_string(cps[k].iteration);
    }
    if (k > 0 && e < find(cps[k - 1], name).c.relative_frobenius_error) ++decreases;
  }
  const bool relapsed = last > 1.25 * best && last - best > 0.02;
  const char* word = last >= first ? "refuted" : relapsed ? "partly" : "confirmed";
  return {{"approximation", name},
          {"error_at_start", first},
          {"error_at_end", last},
          {"best_error", best},
          {"best_at", best_at},
          {"decreases", decreases},
          {"intervals", static_cast<int>(cps.size()) - 1},
          {"better_at_end", last < first},
          {"claim", word}};
}

}  // namespace

int main(int argc, char** argv) {
  StudyOptions o;
  CLI::App app{
      "curvature_study: GGN, empirical Fisher and MC Fisher vs the exact Hessian during MAP "
      "training"};
  app.add_option("--seed", o.seed, "seed for data, initialisation and Monte-Carlo targets")
      ->capture_default_str();
  app.add_option("--iterations", o.iterations, "Adam iterations to the MAP")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--mc-samples", o.mc_samples,
                 "targets sampled per example for the MC Fisher and K-FAC")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--threads", o.threads,
                 "worker threads (0: all cores); the output is the same bits for any count")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  std::string json_path;
  app.add_option("--json", json_path, "also write the results as JSON to this file");
  CLI11_PARSE(app, argc, argv);

  try {
    // The study's problems without a gap and without held-out data (it measures curvature on
    // the training data only); each draws its data from its own seed, the weights from rng.
    namespace toy = ngvi::vi::problems;
    const toy::Regression1dGap regression = toy::make_regression_1d_gap(
        {.examples = 100, .test_examples = 0, .gap_width = 0.0, .noise_sd = 0.2, .seed = o.seed});
    const toy::TwoMoons moons = toy::make_two_moons(
        {.examples = 200, .test_examples = 0, .noise = 0.15, .seed = o.seed + 1});
    const auto& reg = regression.model;
    const auto& cls = moons.model;
    std::mt19937_64 rng(o.seed);
    VectorXd theta_reg, theta_cls;
    reg.init(theta_reg, rng);
    cls.init(theta_cls, rng);

    fmt::print(
        "curvature_study: seed {}, {} Adam iterations (step {} decayed to {}), prior precision "
        "δ = {}, MC samples S = {}\n",
        o.seed, o.iterations, o.learning_rate, o.final_learning_rate, o.prior_precision,
        o.mc_samples);
    fmt::print(
        "Curvature of the data term Σᵢ ℓᵢ(θ) at each checkpoint; relF = ‖A − H‖_F/‖H‖_F, cos = "
        "cosine of\n"
        "diag(A) and diag(H); H the exact Hessian, #neg its eigenvalues below −1e-10·max|λ|.\n");

    json out;
    out["seed"] = o.seed;
    out["iterations"] = o.iterations;
    out["prior_precision"] = o.prior_precision;
    out["learning_rate"] = o.learning_rate;
    out["final_learning_rate"] = o.final_learning_rate;
    out["mc_samples"] = o.mc_samples;

    struct Problem {
      std::string name, description;
      std::vector<Checkpoint> cps;
      Eigen::Index n, p;
    };
    std::vector<Problem> problems;
    problems.push_back({"regression", regression.description, train_and_measure(reg, theta_reg, o),
                        reg.num_examples(), reg.num_params()});
    problems.push_back({"classification", moons.description, train_and_measure(cls, theta_cls, o),
                        cls.num_examples(), cls.num_params()});

    json verdicts = json::array();
    for (const Problem& pr : problems) {
      print_table(fmt::format("{} (N = {}, P = {}): {}", pr.name, pr.n, pr.p, pr.description),
                  pr.cps);
      json pj;
      pj["name"] = pr.name;
      pj["description"] = pr.description;
      pj["num_examples"] = pr.n;
      pj["num_params"] = pr.p;
      for (const Checkpoint& c : pr.cps) pj["checkpoints"].push_back(checkpoint_json(c));
      for (const char* n : {"ggn", "empirical_fisher", "mc_fisher"}) {
        json v = verdict(pr.cps, n);
        v["problem"] = pr.name;
        pj["verdict"][n] = v;
        verdicts.push_back(v);
      }
      out["problems"].push_back(pj);
    }

    fmt::print(
        "\nClaim: the Gauss-Newton approximation becomes a better approximation to the Hessian "
        "as training goes on.\n");
    for (const json& v : verdicts)
      fmt::print(
          "  {:<15} {:<17} relF {:.3f} (it 0) -> {:.3f} (MAP); best {:.3f} ({}); went down in "
          "{}/{} intervals: {}\n",
          v["problem"].get<std::string>(), v["approximation"].get<std::string>(),
          v["error_at_start"].get<double>(), v["error_at_end"].get<double>(),
          v["best_error"].get<double>(), v["best_at"].get<std::string>(), v["decreases"].get<int>(),
          v["intervals"].get<int>(), v["claim"].get<std::string>());
    fmt::print(
        "  (confirmed: closer at the MAP than at the start, and within 25% or 0.02 of its best "
        "relF; partly: closer\n   at the MAP, but worse than its best checkpoint by more than "
        "that; "
        "refuted: not closer at the MAP.)\n");
    out["verdicts"] = verdicts;

    if (!json_path.empty()) {
      ngvi::io::write_file_atomically(json_path, out.dump(2) + "\n");
      fmt::print("\nwrote {}\n", json_path);
    }
  } catch (const std::exception& e) {
    std::cerr << "curvature_study: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
