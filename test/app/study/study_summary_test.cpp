// The report's summary numbers (app/study/study_summary.hpp) on hand-built runs whose paired
// differences, means and 95 % t-intervals are worked out here by hand, with Student-t quantiles
// from the closed form of two degrees of freedom (F(t) = ½ + t / (2√(2 + t²)), so t₀.₉₇₅,₂ =
// 0.95·√(2 / (1 − 0.95²))) and a table (t₀.₉₇₅,₃ = 3.182446305284263): seeds whose fits are
// not healthy or whose HMC reference did not converge left out and named, the verdict words,
// "the same on every seed" with its reason, and the remedy counts.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <app/study/study_summary.hpp>
#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(study_summary_test)

namespace study = ngvi::app::study;

namespace {

const double t_975_2 = 0.95 * std::sqrt(2.0 / (1.0 - 0.95 * 0.95));
constexpr double t_975_3 = 3.182446305284263;

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

study::MethodRecord method(const std::string& name, double test_ll, double elbo = -10.0) {
  study::MethodRecord m;
  m.name = name;
  m.status = "finished";
  m.test_log_likelihood = test_ll;
  m.elbo = elbo;
  m.steps = 100;
  return m;
}

// Four seeds (7–10) of a problem with the four VON and VOGN variants; HMC references on every
// seed, the one of seed 9 not converged; diagonal VON poor on seed 8.
study::ProblemSeeds network_problem() {
  const double von[] = {-1.0, -0.8, -1.1, -0.9}, vogn_full[] = {-1.3, -1.0, -1.2, -1.25};
  const double von_diag[] = {-1.0, -5.0, -1.2, -0.9}, vogn_diag[] = {-0.9, -1.0, -1.0, -1.0};
  const double von_hmc[] = {-0.5, -0.4, -0.6, -0.45}, vogn_hmc[] = {-0.3, -0.25, 0.0, -0.35};
  const std::int64_t fired[] = {100, 100, 100, 60};
  study::ProblemSeeds ps;
  for (int k = 0; k < 4; ++k) {
    study::ProblemRecord r;
    r.name = "net";
    r.title = "A network";
    r.elbo_method = "monte_carlo";
    r.hmc = study::HmcReference{};
    r.hmc->converged = k != 2;
    r.hmc->max_rhat = k != 2 ? 1.005 : 1.05;
    r.methods = {method("von", von[k]), method("vogn_full_ggn", vogn_full[k]),
                 method("von_diagonal", von_diag[k]), method("vogn_ggn", vogn_diag[k])};
    r.methods[0].hmc_scores = study::HmcScores{von_hmc[k], 0.0, 0.0};
    r.methods[1].hmc_scores = study::HmcScores{vogn_hmc[k], 0.0, 0.0};
    r.methods[0].remedies["clip"] = fired[k];
    if (k == 1) {
      r.methods[2].health = "poor";
      r.methods[2].health_reason = "below the no-skill predictive";
    }
    ps.seeds.push_back(7 + static_cast<std::uint64_t>(k));
    ps.runs.push_back(std::move(r));
  }
  return ps;
}

}  // namespace

BOOST_AUTO_TEST_CASE(paired_test_log_likelihood_over_healthy_seeds) {
  const study::ProblemSeeds ps = network_problem();
  // Full: VON − VOGN = 0.3, 0.2, 0.1, 0.35; mean 0.2375, Σ(d − d̄)² = 0.036875.
  const study::PairedDifference full = study::paired_difference(
      ps, "von", "vogn_full_ggn", study::SummaryStatistic::test_log_likelihood);
  const double sd = std::sqrt(0.036875 / 3.0), half = t_975_3 * sd / 2.0;
  BOOST_TEST(full.seeds == (std::vector<std::uint64_t>{7, 8, 9, 10}),
             boost::test_tools::per_element());
  BOOST_TEST(full.left_out.empty());
  BOOST_TEST(near(full.interval.mean, 0.2375));
  BOOST_TEST(near(full.interval.sd, sd));
  BOOST_TEST(near(full.interval.low, 0.2375 - half));
  BOOST_TEST(near(full.interval.high, 0.2375 + half));
  BOOST_TEST(full.a_ahead == 4);
  BOOST_TEST(!full.same);
  BOOST_TEST(full.verdict() == "VON higher");
  const std::string text = study::describe(full);
  BOOST_TEST(text.find("full VON − full VOGN (GGN), test log-likelihood (nats per test example): "
                       "mean +0.2") == 0u);
  BOOST_TEST(text.find(", 95% t-interval [0.0611, 0.414] over 4 seeds, VON ahead on 4 of 4 — VON "
                       "higher.") != std::string::npos);
  // Diagonal: seed 8 left out (diagonal VON poor); −0.1, −0.2, 0.1: mean −0.2/3,
  // Σ(d − d̄)² = 0.14/3.
  const study::PairedDifference diag = study::paired_difference(
      ps, "von_diagonal", "vogn_ggn", study::SummaryStatistic::test_log_likelihood);
  const double sd_d = std::sqrt(0.14 / 3.0 / 2.0), half_d = t_975_2 * sd_d / std::sqrt(3.0);
  BOOST_TEST(diag.seeds == (std::vector<std::uint64_t>{7, 9, 10}),
             boost::test_tools::per_element());
  BOOST_TEST(diag.left_out == (std::vector<std::string>{"seed 8 (VON (diagonal) poor)"}),
             boost::test_tools::per_element());
  BOOST_TEST(near(diag.interval.mean, -0.2 / 3.0));
  BOOST_TEST(near(diag.interval.low, -0.2 / 3.0 - half_d));
  BOOST_TEST(near(diag.interval.high, -0.2 / 3.0 + half_d));
  BOOST_TEST(diag.a_ahead == 1);
  BOOST_TEST(diag.verdict() == "no difference the seeds can resolve");
  BOOST_TEST(study::describe(diag).find("VON ahead on 1 of 3 — no difference the seeds can "
                                        "resolve; left out: seed 8 (VON (diagonal) poor).") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(hmc_score_only_on_converged_references) {
  const study::ProblemSeeds ps = network_problem();
  // Seed 9's reference is not converged: −0.2, −0.15, −0.1; mean −0.15, sd 0.05.
  const study::PairedDifference d = study::paired_difference(
      ps, "von", "vogn_full_ggn", study::SummaryStatistic::hmc_sd_log_ratio);
  const double half = t_975_2 * 0.05 / std::sqrt(3.0);
  BOOST_TEST(d.seeds == (std::vector<std::uint64_t>{7, 8, 10}), boost::test_tools::per_element());
  BOOST_TEST(d.left_out == (std::vector<std::string>{"seed 9 (HMC not converged)"}),
             boost::test_tools::per_element());
  BOOST_TEST(near(d.interval.mean, -0.15));
  BOOST_TEST(near(d.interval.sd, 0.05));
  BOOST_TEST(near(d.interval.high, -0.15 + half));
  BOOST_TEST(d.interval.high < 0.0);
  BOOST_TEST(d.verdict() == "VOGN higher");
  // The diagonal methods have no HMC scores here: every seed is left out, nothing compared.
  const study::PairedDifference none = study::paired_difference(
      ps, "von_diagonal", "vogn_ggn", study::SummaryStatistic::hmc_sd_log_ratio);
  BOOST_TEST(none.seeds.empty());
  BOOST_TEST(none.left_out.size() == 4u);
  BOOST_TEST(none.verdict() == "not compared");
  BOOST_CHECK_THROW(
      study::paired_difference(ps, "von", "ivon", study::SummaryStatistic::test_log_likelihood),
      std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(comparisons_the_problem_allows) {
  // Monte-Carlo ELBO, HMC references: test log-likelihood and HMC score for each pair.
  const std::vector<study::PairedDifference> c = study::von_vogn_comparisons(network_problem());
  BOOST_TEST_REQUIRE(c.size() == 4u);
  BOOST_TEST((c[0].a == "von" && c[0].statistic == study::SummaryStatistic::test_log_likelihood));
  BOOST_TEST((c[1].a == "von" && c[1].statistic == study::SummaryStatistic::hmc_sd_log_ratio));
  BOOST_TEST((c[2].a == "von_diagonal" && c[2].b == "vogn_ggn"));
  // An exact ELBO and no HMC; VON and VOGN equal on every seed, the GGN the Hessian.
  study::ProblemSeeds linear;
  for (int k = 0; k < 2; ++k) {
    study::ProblemRecord r;
    r.name = "linear";
    r.elbo_method = "exact";
    const double ll = -0.8 - 0.1 * k, elbo = -31.6 + k;
    r.methods = {method("von", ll, elbo), method("vogn_full_ggn", ll, elbo)};
    linear.seeds.push_back(static_cast<std::uint64_t>(k + 1));
    linear.runs.push_back(std::move(r));
  }
  const std::vector<study::PairedDifference> e = study::von_vogn_comparisons(linear);
  BOOST_TEST_REQUIRE(e.size() == 2u);
  BOOST_TEST((e[1].statistic == study::SummaryStatistic::elbo));
  for (const study::PairedDifference& d : e) {
    BOOST_TEST(d.same);
    BOOST_TEST(d.verdict() == "the same on every seed");
  }
  // Why: the GGN equals the Hessian along the MAP run, or only its diagonal does.
  study::MethodRecord map = method("map_laplace", -1.0);
  map.approximations.push_back(
      {10, 0.0, 1.0, 0, {1e-16, 0.5, 0.5, 0.5}, {1.0, 0.9, 0.9, 0.9}, {}, {}, false});
  linear.runs[0].methods.push_back(map);
  BOOST_TEST(study::why_the_same(linear.base(), false).find("the GGN is this model's Hessian") ==
             0u);
  linear.runs[0].methods.back().approximations[0].relative_error[0] = 0.1;
  BOOST_TEST(study::why_the_same(linear.base(), false).empty());
  BOOST_TEST(study::why_the_same(linear.base(), true).find("the Hessian's diagonal is the GGN's") ==
             0u);
  linear.runs[0].methods.back().approximations[0].diagonal_cosine[0] = 0.99;
  BOOST_TEST(study::why_the_same(linear.base(), true).empty());
}

BOOST_AUTO_TEST_CASE(remedy_counts_over_seeds) {
  const study::ProblemSeeds ps = network_problem();
  // VON's remedy fired on 100, 100, 100 and 60 of 100 steps.
  const study::RemedyUse u = study::remedy_use(ps, "von");
  BOOST_TEST(u.fired == 360);
  BOOST_TEST(u.steps == 400);
  BOOST_TEST(u.seeds_every == 3);
  BOOST_TEST(u.seeds == 4);
  BOOST_TEST(u.remedies == (std::vector<std::string>{"clip"}), boost::test_tools::per_element());
  BOOST_TEST(study::describe(u) ==
             "VON (full) 360 of 400 steps over 4 seeds (90.0%; every step on 3 of 4 seeds)");
  BOOST_TEST(study::describe(study::remedy_use(ps, "von_diagonal")) ==
             "VON (diagonal) never, in 400 steps over 4 seeds");
  BOOST_CHECK_THROW(study::remedy_use(ps, "ivon"), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
