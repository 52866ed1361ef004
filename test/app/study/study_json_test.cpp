// results.json of `ngvi study --quick` (app/study/study_json.cpp) against independent references.
//
// CTest runs the study first (fixture app/cli/study_quick, test/app/CMakeLists.txt) and passes the
// file as NGVI_STUDY_RESULTS; without it the cases are skipped. The references are computed here,
// not read from the file: the conjugate problem's posterior from its data (Λ = τΦᵀΦ + δI,
// μ = Λ⁻¹τΦᵀy, solved with Eigen), and facts of the models (for a model linear in θ the GGN is the
// Hessian, and for one dense layer with one output K-FAC's expected-Fisher block is too).
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <autodiff/verify/compare.hpp>

#include <support/check_report.hpp>
#include <support/posterior_checks.hpp>
#include <support/study_tolerances.hpp>

namespace {

using nlohmann::json;
namespace tol = ngvi::test::vi_tolerances;
namespace study_tol = ngvi::test::study_tolerances;
namespace verify = ngvi::ad::verify;

struct ResultsGiven {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    return std::getenv("NGVI_STUDY_RESULTS") != nullptr;
  }
};

json results() {
  std::ifstream in(std::getenv("NGVI_STUDY_RESULTS"));
  BOOST_TEST_REQUIRE(static_cast<bool>(in), "cannot open NGVI_STUDY_RESULTS");
  return json::parse(in);
}

const json& problem(const json& r, const std::string& name) {
  for (const json& p : r["problems"])
    if (p["name"] == name) return p;
  BOOST_FAIL("results.json has no problem " + name);
  return r;
}

const json& method(const json& p, const std::string& name) {
  for (const json& m : p["methods"])
    if (m["name"] == name) return m;
  BOOST_FAIL("problem " + p["name"].get<std::string>() + " has no method " + name);
  return p;
}

Eigen::VectorXd vec(const json& j) {
  const std::vector<double> v = j.get<std::vector<double>>();
  return Eigen::Map<const Eigen::VectorXd>(v.data(), static_cast<Eigen::Index>(v.size()));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(study_json_test, *boost::unit_test::precondition(ResultsGiven{}))

BOOST_AUTO_TEST_CASE(every_problem_has_every_method_with_a_history) {
  const json r = results();
  BOOST_TEST(r["tool"] == "ngvi study");
  BOOST_TEST(r["problems"].size() == 5u);
  const std::set<std::string> all = {"von",        "von_diagonal",          "vogn_full_ggn",
                                     "vogn_ggn",   "vogn_empirical_fisher", "vogn_mc_fisher",
                                     "ivon",       "ivon_short_memory",     "noisy_adam",
                                     "noisy_kfac", "bayes_by_backprop",     "map_laplace"};
  for (const json& p : r["problems"]) {
    std::set<std::string> seen;
    for (const json& m : p["methods"]) {
      seen.insert(m["name"].get<std::string>());
      BOOST_TEST(m["status"] != "failed", p["name"] << "/" << m["name"] << ": " << m["message"]);
      BOOST_TEST(!m["history"].empty());
      BOOST_TEST(m["final"]["test_log_likelihood"].is_number(), p["name"] << "/" << m["name"]);
    }
    BOOST_TEST((seen == all), p["name"] << " lacks a method");
    BOOST_TEST(!p["curvature_study"].is_null(), p["name"]);
  }
}

// VON (full) and full VOGN with the GGN reach Λ = τΦᵀΦ + δI, μ = Λ⁻¹τΦᵀy; diagonal VON and
// diagonal VOGN with the GGN reach the mean-field optimum (the same μ, sd 1/√Λⱼⱼ).
BOOST_AUTO_TEST_CASE(conjugate_posterior_matches_the_closed_form) {
  const json r = results();
  const json& p = problem(r, "bayesian_linear_regression");
  const json& data = p["data"];
  const Eigen::Index n = static_cast<Eigen::Index>(data["design"].size());
  const Eigen::Index d = static_cast<Eigen::Index>(data["design"][0].size());
  Eigen::MatrixXd phi(n, d);
  for (Eigen::Index i = 0; i < n; ++i)
    phi.row(i) = vec(data["design"][static_cast<std::size_t>(i)]).transpose();
  const Eigen::VectorXd y = vec(data["targets"]);
  const double tau = data["noise_precision"], delta = p["prior_precision"];
  Eigen::MatrixXd lambda = tau * phi.transpose() * phi;
  lambda.diagonal().array() += delta;
  const Eigen::LLT<Eigen::MatrixXd> llt(lambda);
  const Eigen::VectorXd mu = llt.solve(tau * phi.transpose() * y);
  const Eigen::VectorXd sd = llt.solve(Eigen::MatrixXd::Identity(d, d)).diagonal().cwiseSqrt();
  const Eigen::VectorXd mf_sd = lambda.diagonal().cwiseInverse().cwiseSqrt();
  for (const auto& [name, expected_sd] :
       {std::pair{"von", sd}, std::pair{"vogn_full_ggn", sd}, std::pair{"von_diagonal", mf_sd},
        std::pair{"vogn_ggn", mf_sd}}) {
    const json& m = method(p, name);
    NGVI_CHECK_REPORT(verify::compare(vec(m["posterior"]["mean"]), mu, tol::iterative,
                                      std::string(name) + " mean vs closed form"));
    NGVI_CHECK_REPORT(verify::compare(vec(m["posterior"]["sd"]), expected_sd, tol::iterative,
                                      std::string(name) + " sd vs closed form"));
  }
  // MAP + Laplace with the GGN: the MAP of a Gaussian-linear model is μ, its GGN is τΦᵀΦ.
  NGVI_CHECK_REPORT(verify::compare(vec(method(p, "map_laplace")["posterior"]["sd"]), sd,
                                    tol::iterative, "Laplace sd vs closed form"));
}

// For the linear model the GGN and the one-layer K-FAC block are the Hessian at every θ; for the
// networks they are not (the verdicts say how far).
BOOST_AUTO_TEST_CASE(curvature_study_is_exact_where_the_approximations_are) {
  const json r = results();
  for (const json& pt : problem(r, "bayesian_linear_regression")["curvature_study"]["points"]) {
    BOOST_TEST(pt["relative_error"]["ggn"].get<double>() <= tol::closed_form.rel);
    BOOST_TEST(pt["relative_error"]["kfac"].get<double>() <= tol::closed_form.rel);
  }
  for (const char* name : {"regression_1d_gap", "two_moons"}) {
    const json& pts = problem(r, name)["curvature_study"]["points"];
    BOOST_TEST(pts.size() >= 2u);
    BOOST_TEST(pts.back()["relative_error"]["empirical_fisher"].get<double>() >
               tol::closed_form.rel);
  }
}

// The 2-D logistic regression's full-covariance Gaussian VI fits sit near the quadrature posterior
// (it is only mildly skewed): means within a fraction of a posterior sd, sds within a quarter.
BOOST_AUTO_TEST_CASE(logistic_regression_near_the_quadrature_posterior) {
  const json r = results();
  const json& p = problem(r, "logistic_regression_2d");
  const Eigen::VectorXd mean = vec(p["reference"]["mean"]), sd = vec(p["reference"]["sd"]);
  for (const char* name : {"von", "vogn_full_ggn"}) {
    const json& m = method(p, name);
    const Eigen::VectorXd z = (vec(m["posterior"]["mean"]) - mean).cwiseQuotient(sd);
    BOOST_TEST(z.cwiseAbs().maxCoeff() < study_tol::gaussian_vs_exact_posterior.abs,
               name << ": mean off by " << z.transpose() << " sd");
    const Eigen::VectorXd ratio = vec(m["posterior"]["sd"]).cwiseQuotient(sd);
    BOOST_TEST((ratio.array() - 1.0).abs().maxCoeff() < study_tol::gaussian_vs_exact_posterior.rel,
               name << ": sd ratio " << ratio.transpose());
  }
}

BOOST_AUTO_TEST_SUITE_END()
