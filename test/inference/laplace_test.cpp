// The Laplace approximation against the conjugate linear-Gaussian model, where it is exact: the
// log marginal likelihood against the exact evidence log N(y; 0, τ⁻¹I + δ⁻¹ΦΦᵀ) (an LLT of the
// N×N data-space covariance here, a different route from the parameter-space formula of the
// library), the posterior against the closed form for the exact Hessian, the GGN and K-FAC (all
// exact for one linear layer with one output), the diagonal version against its own formula,
// evidence-based selection of δ and of (δ, τ) against the argmax of the exact evidence on the
// grid, the non-positive-definite error naming the smallest eigenvalue (or that it is not finite)
// with advice true for the curvature, and bad input. Threads and the prior precision as an
// option: method_contract_test.cpp.
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/laplace.hpp>
#include <nn/model_concept.hpp>

#include <support/conjugate_linear.hpp>
#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(laplace_test)

namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace tol = ngvi::test::vi_tolerances;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using ngvi::ad::verify::compare;
using ngvi::test::check_error_mentions;
using ngvi::test::ConjugateLinear;

namespace {

ConjugateLinear problem(double tau = 4.0, double delta = 1.0) {
  return ngvi::test::make_conjugate_linear(40, 3, tau, delta, 17);
}

vi::LaplaceOptions with(vi::LaplaceCurvature c, double delta) {
  vi::LaplaceOptions o;
  o.curvature = c;
  o.prior_precision = delta;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(exact_for_the_conjugate_model) {
  const ConjugateLinear c = problem();
  const auto model = c.model();
  const VectorXd mu = c.mean();
  const double exact = c.log_evidence();
  for (const auto curvature : {vi::LaplaceCurvature::exact_hessian, vi::LaplaceCurvature::ggn,
                               vi::LaplaceCurvature::kfac}) {
    const std::string name = vi::to_string(curvature);
    const vi::Laplace<vi::FullGaussian> la = vi::laplace(model, mu, with(curvature, c.delta));
    NGVI_CHECK_REPORT(compare(la.log_marginal_likelihood, exact, tol::closed_form,
                              name + ": Laplace evidence vs exact evidence"));
    NGVI_CHECK_REPORT(compare(la.posterior.precision(), c.precision(), tol::closed_form,
                              name + ": Λ vs τΦᵀΦ + δI"));
    NGVI_CHECK_REPORT(compare(la.posterior.mean(), mu, tol::closed_form, name + ": mean"));
    NGVI_CHECK_REPORT(compare(la.gradient_norm, 0.0, tol::closed_form, name + ": stationary at μ"));
    NGVI_CHECK_REPORT(compare(la.log_likelihood + la.log_prior,
                              -model.total_loss(mu) +
                                  2.0 * std::log(c.delta / (2.0 * std::numbers::pi)) -
                                  0.5 * c.delta * mu.squaredNorm(),
                              tol::closed_form, name + ": log joint at θ*"));
  }
}

BOOST_AUTO_TEST_CASE(gradient_norm_away_from_the_map) {
  const ConjugateLinear c = problem();
  const VectorXd mu = c.mean();
  const VectorXd theta = mu + VectorXd::LinSpaced(4, -0.1, 0.2);
  const auto la = vi::laplace(c.model(), theta, with(vi::LaplaceCurvature::ggn, c.delta));
  // The MAP objective's gradient is Λ(θ − μ) for the quadratic log joint.
  NGVI_CHECK_REPORT(compare(la.gradient_norm, (c.precision() * (theta - mu)).norm(),
                            tol::closed_form, "‖∇‖ = ‖Λ(θ − μ)‖"));
}

BOOST_AUTO_TEST_CASE(diagonal_keeps_the_diagonal) {
  const ConjugateLinear c = problem();
  const auto model = c.model();
  const VectorXd mu = c.mean();
  const VectorXd d = c.precision().diagonal();
  const double ref = -model.total_loss(mu) - 0.5 * c.delta * mu.squaredNorm() +
                     2.0 * std::log(c.delta) - 0.5 * d.array().log().sum();
  for (const auto curvature : {vi::LaplaceCurvature::exact_hessian, vi::LaplaceCurvature::ggn,
                               vi::LaplaceCurvature::kfac}) {
    const std::string name = vi::to_string(curvature);
    const auto la = vi::diagonal_laplace(model, mu, with(curvature, c.delta));
    NGVI_CHECK_REPORT(compare(la.posterior.precision(), d, tol::closed_form, name + ": diag Λ"));
    NGVI_CHECK_REPORT(
        compare(la.log_marginal_likelihood, ref, tol::closed_form, name + ": diagonal evidence"));
  }
}

BOOST_AUTO_TEST_CASE(evidence_selects_the_exact_maximiser) {
  const std::vector<double> deltas = {0.01, 0.1, 0.3, 1.0, 3.0, 10.0, 100.0};
  const std::vector<double> taus = {0.5, 1.0, 4.0, 16.0};
  // Refit at each grid point: θ* = the closed-form MAP of (δ, τ).
  auto laplace_evidence = [&](double delta, double tau) {
    ConjugateLinear c = problem();
    c.delta = delta;
    c.tau = tau;
    return vi::laplace(c.model(), c.mean(), with(vi::LaplaceCurvature::ggn, delta))
        .log_marginal_likelihood;
  };
  auto exact_evidence = [&](double delta, double tau) {
    ConjugateLinear c = problem();
    c.delta = delta;
    c.tau = tau;
    return c.log_evidence();
  };
  const vi::EvidenceSelection s =
      vi::select_by_evidence(deltas, [&](double delta) { return laplace_evidence(delta, 4.0); });
  double best = -1e300, arg = 0.0;
  for (const double delta : deltas)
    if (exact_evidence(delta, 4.0) > best) best = exact_evidence(delta, 4.0), arg = delta;
  BOOST_TEST(s.best.prior_precision == arg);
  NGVI_CHECK_REPORT(
      compare(s.best.log_marginal_likelihood, best, tol::closed_form, "best evidence"));
  BOOST_TEST(s.grid.size() == deltas.size());
  // Both precisions: the grid's exact maximiser, and the grid in δ-outer order.
  const vi::EvidenceSelection both = vi::select_by_evidence(deltas, taus, laplace_evidence);
  best = -1e300;
  double arg_d = 0.0, arg_t = 0.0;
  for (const double delta : deltas)
    for (const double tau : taus)
      if (exact_evidence(delta, tau) > best)
        best = exact_evidence(delta, tau), arg_d = delta, arg_t = tau;
  BOOST_TEST(both.best.prior_precision == arg_d);
  BOOST_TEST(both.best.noise_precision == arg_t);
  BOOST_TEST(both.grid.size() == deltas.size() * taus.size());
  BOOST_TEST(both.grid[1].prior_precision == deltas[0]);
  BOOST_TEST(both.grid[1].noise_precision == taus[1]);
  // The search is not trivial: the maximiser is inside the grid.
  BOOST_TEST(arg_d != deltas.front());
  BOOST_TEST(arg_d != deltas.back());
}

BOOST_AUTO_TEST_CASE(indefinite_hessian_is_a_clear_error) {
  // ℓ(θ) = −2θ₀² + θ₁² (one example): H = diag(−4, 2), Λ = H + I has smallest eigenvalue −3.
  const auto model = nn::make_model(
      [](const auto& th, Eigen::Index) {
        using T = typename std::decay_t<decltype(th)>::Scalar;
        return T(-2.0 * th(0) * th(0) + th(1) * th(1));
      },
      1, 2);
  const VectorXd theta = VectorXd::Zero(2);
  check_error_mentions(
      [&] { (void)vi::laplace(model, theta, with(vi::LaplaceCurvature::exact_hessian, 1.0)); },
      "smallest eigenvalue is -3.0");
  check_error_mentions(
      [&] {
        (void)vi::diagonal_laplace(model, theta, with(vi::LaplaceCurvature::exact_hessian, 1.0));
      },
      "Λ = -3.000000 at theta(0, 0) (θ index 0)");
  check_error_mentions(
      [&] { (void)vi::laplace(model, theta, with(vi::LaplaceCurvature::ggn, 1.0)); },
      "use LaplaceCurvature::exact_hessian");
  check_error_mentions(
      [&] { (void)vi::diagonal_laplace(model, theta, with(vi::LaplaceCurvature::kfac, 1.0)); },
      "needs the dense layers");
  // δ large enough makes it positive definite: log det Λ = log(1) + log(7) for δ = 5.
  const auto la = vi::laplace(model, theta, with(vi::LaplaceCurvature::exact_hessian, 5.0));
  NGVI_CHECK_REPORT(compare(la.log_det_precision, std::log(7.0), tol::closed_form, "log det Λ"));
}

BOOST_AUTO_TEST_CASE(overflowing_ggn_is_named_not_finite_with_true_advice) {
  // Inputs of 1e200: the GGN τΦᵀΦ overflows to ∞ (1e400), so Λ is not finite. The message must
  // say so (not print NaN's "-nan" as the smallest eigenvalue) and must not advise the GGN, which
  // H already is (issue 22: a diverged MAP gave both).
  const ConjugateLinear c = problem();
  const auto model = c.model_over(MatrixXd::Constant(4, 3, 1e200), MatrixXd::Zero(4, 1));
  const VectorXd theta = VectorXd::Zero(4);
  for (const bool diagonal : {false, true}) {
    try {
      if (diagonal)
        (void)vi::diagonal_laplace(model, theta, with(vi::LaplaceCurvature::ggn, 1.0));
      else
        (void)vi::laplace(model, theta, with(vi::LaplaceCurvature::ggn, 1.0));
      BOOST_ERROR("no exception for a non-finite GGN");
    } catch (const std::domain_error& e) {
      const std::string m = e.what();
      BOOST_TEST(m.find("not finite") != std::string::npos, m);
      BOOST_TEST(m.find("nan") == std::string::npos, m);
      BOOST_TEST(m.find("use LaplaceCurvature::ggn") == std::string::npos, m);
      BOOST_TEST(
          m.find("H = ggn is positive semi-definite in exact arithmetic") != std::string::npos, m);
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_input_is_a_clear_error) {
  const ConjugateLinear c = problem();
  const auto model = c.model();
  check_error_mentions([&] { (void)vi::laplace(model, VectorXd::Zero(3)); }, "theta has 3 entries");
  VectorXd nan = VectorXd::Zero(4);
  nan(2) = std::nan("");
  check_error_mentions([&] { (void)vi::laplace(model, nan); }, "theta is not finite");
  check_error_mentions(
      [&] { (void)vi::diagonal_laplace(model, c.mean(), with(vi::LaplaceCurvature::ggn, 0.0)); },
      "prior_precision must be positive");
  const auto empty = c.model_over(MatrixXd(0, 3), MatrixXd(0, 1));
  check_error_mentions([&] { (void)vi::laplace(empty, c.mean()); }, "no examples");
  check_error_mentions([&] { (void)vi::select_by_evidence({}, [](double) { return 0.0; }); },
                       "grid of prior precisions δ is empty");
  check_error_mentions(
      [&] {
        (void)vi::select_by_evidence({1.0, -1.0}, [](double) { return 0.0; });
      },
      "-1.000000 in the grid is not positive");
  check_error_mentions(
      [&] { (void)vi::select_by_evidence({1.0}, [](double) { return std::nan(""); }); }, "is NaN");
}

BOOST_AUTO_TEST_SUITE_END()
