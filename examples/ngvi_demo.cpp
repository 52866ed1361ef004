// ngvi_demo: the main job — exact gradients and Hessians of built-in models, each verified.
//
// For every built-in problem it computes the value, the gradient (reverse mode), a
// Hessian-vector product and the full Hessian (forward-over-reverse), then verifies them by
// the library's own checks: AD against finite differences, AD against AD (hvp against
// Hessian·v, dual-sweep gradient against the plain one, symmetry of the raw Hessian columns)
// and, where one exists, against the closed form. It prints one table, optionally writes the
// report as JSON (atomically), and exits non-zero if any check fails.
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <Eigen/Eigenvalues>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <autodiff/autodiff.hpp>
#include <autodiff/verify/verify.hpp>
#include <nn/io/atomic_write.hpp>

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
namespace ad = ngvi::ad;
namespace verify = ngvi::ad::verify;

template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// ---- the built-in problems --------------------------------------------------------------------

// Rosenbrock in n dimensions, written as a scalar loop.
struct Rosenbrock {
  template <class T>
  T operator()(const Vec<T>& x) const {
    T f = 0.0;
    for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
      const T a = x(i + 1) - x(i) * x(i);
      const T b = 1.0 - x(i);
      f += 100.0 * a * a + b * b;
    }
    return f;
  }
  static VectorXd gradient(const VectorXd& x) {
    VectorXd g = VectorXd::Zero(x.size());
    for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
      const double a = x(i + 1) - x(i) * x(i);
      g(i) += -400.0 * a * x(i) - 2.0 * (1.0 - x(i));
      g(i + 1) += 200.0 * a;
    }
    return g;
  }
  static MatrixXd hessian(const VectorXd& x) {
    MatrixXd H = MatrixXd::Zero(x.size(), x.size());
    for (Eigen::Index i = 0; i + 1 < x.size(); ++i) {
      H(i, i) += 1200.0 * x(i) * x(i) - 400.0 * x(i + 1) + 2.0;
      H(i, i + 1) += -400.0 * x(i);
      H(i + 1, i) += -400.0 * x(i);
      H(i + 1, i + 1) += 200.0;
    }
    return H;
  }
};

// Logistic regression NLL Σ log(1 + exp(zᵢ)) − yᵢzᵢ, z = Xw + b, with fused matrix nodes.
struct Logistic {
  MatrixXd X;
  VectorXd y;
  template <class T>
  T operator()(const Vec<T>& theta) const {
    const Eigen::Index d = X.cols();
    const Vec<T> w = theta.head(d);
    const Vec<T> z = ad::add_colwise(ad::matmul(X, w), Vec<T>::Constant(X.rows(), theta(d)));
    return T(ad::sum(ad::log1p_exp(z)) - ad::dot(y, z));
  }
  VectorXd gradient(const VectorXd& theta) const {
    const Eigen::Index d = X.cols();
    const VectorXd z = (X * theta.head(d)).array() + theta(d);
    const VectorXd r = (1.0 / (1.0 + (-z.array()).exp())).matrix() - y;
    VectorXd g(d + 1);
    g.head(d) = X.transpose() * r;
    g(d) = r.sum();
    return g;
  }
  MatrixXd hessian(const VectorXd& theta) const {
    const Eigen::Index d = X.cols();
    MatrixXd Xb(X.rows(), d + 1);
    Xb << X, VectorXd::Ones(X.rows());
    const VectorXd z = Xb * theta;
    const VectorXd p = 1.0 / (1.0 + (-z.array()).exp());
    const VectorXd w = p.array() * (1.0 - p.array());
    return Xb.transpose() * w.asDiagonal() * Xb;
  }
};

// One-hidden-layer tanh MLP, Gaussian NLL ½Σ(y − f(x))², θ = [W1 (H×D, row-major) | b1 | w2 | b2].
struct Mlp {
  MatrixXd X;
  VectorXd y;
  Eigen::Index H;
  template <class T>
  T operator()(const Vec<T>& theta) const {
    const Eigen::Index D = X.cols();
    const Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> W1(
        theta.data(), H, D);
    const Mat<T> A = ad::add_rowwise(ad::matmul(X, W1.transpose()), theta.segment(H * D, H).transpose());
    const Mat<T> Z = ad::tanh(A);
    const Vec<T> f = ad::matmul(Z, theta.segment(H * D + H, H));
    const Vec<T> r = ad::cwise_difference(y, ad::add_colwise(f, Vec<T>::Constant(f.size(), theta(H * D + 2 * H))));
    return T(0.5 * ad::squared_norm(r));
  }
};

// A function of many elementary and special functions, written with scalar expressions.
struct Special {
  template <class T>
  T operator()(const Vec<T>& x) const {
    using std::atan2;
    using std::erf;
    using std::exp;
    using std::hypot;
    using std::lgamma;
    using std::log;
    using std::sqrt;
    using ad::digamma;
    T f = 0.0;
    const Eigen::Index n = x.size();
    for (Eigen::Index i = 0; i < n; ++i) {
      const T& a = x(i);
      const T& b = x((i + 1) % n);
      f += lgamma(a * a + 1.5) + digamma(exp(a) + 0.5) + erf(a * b) + atan2(a, 1.0 + b * b);
      f += hypot(a, b + 2.0) + sqrt(1.0 + a * a) * ad::logistic(b) + ad::log_sum_exp(a, b, T(0.3 * a));
    }
    return f;
  }
};

// ---- running and reporting -------------------------------------------------------------------

struct Outcome {
  std::string problem;
  std::string description;
  Eigen::Index n = 0;
  double value = 0.0;
  double grad_norm = 0.0;
  double hess_min_eig = 0.0, hess_max_eig = 0.0;
  double grad_us = 0.0, hvp_us = 0.0, hess_us = 0.0, eval_us = 0.0;
  std::vector<verify::CheckReport> checks;
  bool passed() const {
    for (const auto& c : checks)
      if (!c.passed) return false;
    return true;
  }
};

template <class F>
double time_us(F&& f) {
  using clock = std::chrono::steady_clock;
  int reps = 1;
  for (;;) {
    const auto t0 = clock::now();
    for (int r = 0; r < reps; ++r) f();
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s > 0.02 || reps >= (1 << 20)) return 1e6 * s / reps;
    reps *= 4;
  }
}

template <class Problem>
Outcome run(const std::string& name, const std::string& description, const Problem& p, const VectorXd& x,
            std::mt19937_64& rng, const std::function<VectorXd(const VectorXd&)>& grad_closed,
            const std::function<MatrixXd(const VectorXd&)>& hess_closed) {
  auto f = [&p](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::Scalar;
    return p(Vec<T>(v));
  };
  Outcome o;
  o.problem = name;
  o.description = description;
  o.n = x.size();
  VectorXd g;
  o.value = ad::value_and_gradient(f, x, g);
  o.grad_norm = g.norm();
  std::normal_distribution<double> normal;
  VectorXd v(x.size());
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = normal(rng);
  const MatrixXd H = ad::hessian(f, x);
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(H, Eigen::EigenvaluesOnly);
  o.hess_min_eig = eig.eigenvalues().minCoeff();
  o.hess_max_eig = eig.eigenvalues().maxCoeff();

  o.eval_us = time_us([&] { volatile double s = p(x); (void)s; });
  o.grad_us = time_us([&] { VectorXd gg; ad::value_and_gradient(f, x, gg); });
  o.hvp_us = time_us([&] { VectorXd hv = ad::hvp(f, x, v); });
  o.hess_us = time_us([&] { MatrixXd HH = ad::hessian(f, x); });

  o.checks.push_back(verify::check_gradient(f, x));
  o.checks.push_back(verify::check_hvp(f, x, v));
  o.checks.push_back(verify::check_hessian(f, x));
  if (grad_closed)
    o.checks.push_back(verify::compare(g, grad_closed(x), verify::tolerances::closed_form,
                                       "AD gradient vs closed form"));
  if (hess_closed)
    o.checks.push_back(verify::compare(H, hess_closed(x), verify::tolerances::closed_form,
                                       "AD Hessian vs closed form"));
  return o;
}

nlohmann::json to_json(const Outcome& o) {
  nlohmann::json j;
  j["problem"] = o.problem;
  j["description"] = o.description;
  j["n"] = o.n;
  j["value"] = o.value;
  j["gradient_norm"] = o.grad_norm;
  j["hessian_eigenvalues"] = {{"min", o.hess_min_eig}, {"max", o.hess_max_eig}};
  j["microseconds"] = {{"evaluate", o.eval_us}, {"gradient", o.grad_us}, {"hvp", o.hvp_us}, {"hessian", o.hess_us}};
  j["passed"] = o.passed();
  for (const auto& c : o.checks) {
    const auto parts = c.parts.empty() ? std::vector<verify::CheckReport>{c} : c.parts;
    for (const auto& p : parts) {
      j["checks"].push_back({{"what", p.what},
                             {"passed", p.passed},
                             {"max_abs_err", p.max_abs_err},
                             {"max_rel_err", p.max_rel_err},
                             {"worst_row", p.worst_row},
                             {"worst_col", p.worst_col},
                             {"computed", p.computed_at_worst},
                             {"reference", p.reference_at_worst},
                             {"tolerance", {{"rel", p.tol.rel}, {"abs", p.tol.abs}}}});
    }
  }
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ngvi_demo: exact gradients, Hessian-vector products and Hessians of built-in "
               "models, each verified against finite differences, another AD route and closed "
               "forms"};
  std::string json_path;
  std::uint64_t seed = 42;
  std::vector<std::string> only;
  bool verbose = false;
  app.add_option("--json", json_path, "write the report as JSON to this file (atomically)");
  app.add_option("--seed", seed, "seed of the random data and directions")->capture_default_str();
  app.add_option("--problem", only, "run only these problems")
      ->check(CLI::IsMember({"rosenbrock", "logistic", "mlp", "special"}));
  app.add_flag("-v,--verbose", verbose, "print every comparison, not only the summary");
  CLI11_PARSE(app, argc, argv);

  try {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> normal;
    auto randn = [&](Eigen::Index r, Eigen::Index c) {
      MatrixXd m(r, c);
      for (Eigen::Index i = 0; i < m.size(); ++i) m(i) = normal(rng);
      return m;
    };
    auto wanted = [&](const std::string& n) {
      return only.empty() || std::find(only.begin(), only.end(), n) != only.end();
    };

    std::vector<Outcome> outcomes;
    if (wanted("rosenbrock")) {
      const VectorXd x = VectorXd::LinSpaced(10, -1.2, 1.0);
      outcomes.push_back(run("rosenbrock", "Rosenbrock, 10 variables, scalar loop", Rosenbrock{}, x, rng,
                             Rosenbrock::gradient, Rosenbrock::hessian));
    }
    if (wanted("logistic")) {
      Logistic p{randn(569, 30), VectorXd(569)};
      const VectorXd w_true = 0.5 * randn(30, 1);
      std::uniform_real_distribution<double> unif;
      for (Eigen::Index i = 0; i < 569; ++i)
        p.y(i) = unif(rng) < 1.0 / (1.0 + std::exp(-(p.X.row(i).dot(w_true) + 0.2))) ? 1.0 : 0.0;
      const VectorXd theta = 0.1 * randn(31, 1);
      outcomes.push_back(run("logistic", "logistic regression, d = 30, N = 569, fused nodes", p, theta, rng,
                             [&](const VectorXd& t) { return p.gradient(t); },
                             [&](const VectorXd& t) { return p.hessian(t); }));
    }
    if (wanted("mlp")) {
      Mlp p{randn(100, 13), VectorXd(100), 10};
      for (Eigen::Index i = 0; i < 100; ++i) p.y(i) = std::tanh(p.X.row(i).sum() / 4.0) + 0.1 * normal(rng);
      VectorXd theta = randn(151, 1) / std::sqrt(13.0);
      outcomes.push_back(run("mlp", "13-10-1 tanh MLP, Gaussian NLL, N = 100, fused nodes", p, theta, rng,
                             nullptr, nullptr));
    }
    if (wanted("special")) {
      const VectorXd x = 0.8 * randn(6, 1);
      outcomes.push_back(run("special", "lgamma, digamma, erf, atan2, hypot, logistic, log_sum_exp", Special{},
                             x, rng, nullptr, nullptr));
    }

    bool all_passed = true;
    fmt::print("{:<11} {:>4} {:>14} {:>11} {:>23} {:>9} {:>9} {:>9} {:>9}  {}\n", "problem", "n",
               "value", "|gradient|", "Hessian eigenvalues", "f us", "grad us", "hvp us", "hess us",
               "checks");
    for (const Outcome& o : outcomes) {
      std::size_t n_parts = 0, n_passed = 0;
      for (const auto& c : o.checks) {
        const auto& parts = c.parts.empty() ? std::vector<verify::CheckReport>{c} : c.parts;
        for (const auto& p : parts) {
          ++n_parts;
          n_passed += p.passed ? 1 : 0;
        }
      }
      fmt::print("{:<11} {:>4} {:>14.6g} {:>11.4g} [{:>10.3g}, {:>10.3g}] {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f}  {}/{} passed\n",
                 o.problem, o.n, o.value, o.grad_norm, o.hess_min_eig, o.hess_max_eig, o.eval_us,
                 o.grad_us, o.hvp_us, o.hess_us, n_passed, n_parts);
      all_passed = all_passed && o.passed();
    }
    fmt::print("\nVerification ({}):\n", all_passed ? "all checks passed" : "SOME CHECKS FAILED");
    for (const Outcome& o : outcomes) {
      fmt::print("- {} ({}):\n", o.problem, o.description);
      for (const auto& c : o.checks) {
        if (verbose || !c.passed) {
          fmt::print("    {}\n", c.to_string());
        } else {
          fmt::print("    [passed] {} (max rel err {:.2g})\n", c.what, c.max_rel_err);
        }
      }
    }
    if (!json_path.empty()) {
      nlohmann::json j;
      j["seed"] = seed;
      j["all_passed"] = all_passed;
      for (const Outcome& o : outcomes) j["problems"].push_back(to_json(o));
      ngvi::nn::write_file_atomically(json_path, j.dump(2) + "\n");
      fmt::print("\nreport written to {}\n", json_path);
    }
    return all_passed ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ngvi_demo: error: {}\n", e.what());
    return 2;
  }
}
