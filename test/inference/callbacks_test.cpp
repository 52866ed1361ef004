// The in-memory fit callbacks: HeldOut adds its metrics to every history row, EarlyStopping stops
// after `patience` rows without improvement (on a metric whose sequence the test knows), the
// progress bar draws the final count when forced, and the history's CSV text carries every
// number exactly (parsed back to the same bits).
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>

#include <inference/callbacks.hpp>

#include <support/scripted_method.hpp>

BOOST_AUTO_TEST_SUITE(callbacks_test)

namespace vi = ngvi::vi;
using ngvi::test::quadratic_model;
using ngvi::test::ScriptedOptions;

BOOST_AUTO_TEST_CASE(held_out_metrics_reach_every_row_and_early_stopping_reads_them) {
  const auto model = quadratic_model();
  ScriptedOptions o;
  o.loop.minibatch = 0;
  o.loop.epochs = 50;
  o.loop.elbo_samples = 0;
  // A metric that improves for 4 rows and then stays flat: stop after 4 + patience rows.
  int rows = 0;
  vi::HeldOut held_out{[&rows](const auto& q) {
    ++rows;
    return std::vector<std::pair<std::string, double>>{{"score", rows <= 4 ? double(rows) : 4.0},
                                                       {"mean0", q.mean()(0)}};
  }};
  vi::EarlyStopping stop("score", true, 3);
  vi::Rng rng(2);
  const auto r = vi::fit(model, o, rng, held_out, stop);
  BOOST_TEST(r.status == vi::FitStatus::stopped_early);
  BOOST_TEST(r.counters.steps == 7);
  BOOST_TEST_REQUIRE(r.history.size() == 7u);
  for (const auto& row : r.history) BOOST_TEST(row.metrics.size() == 2u);
  BOOST_TEST(r.history.back().metric("mean0") == r.posterior.mean()(0));

  vi::EarlyStopping missing("no such metric");
  BOOST_CHECK_THROW(vi::fit(model, o, rng, missing), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(history_csv_round_trips_every_number) {
  const auto model = quadratic_model();
  ScriptedOptions o;
  o.loop.minibatch = 3;
  o.loop.epochs = 2;
  vi::Rng rng(4);
  std::ostringstream bar;
  const auto r = vi::fit(model, o, rng, vi::ProgressBar("test", &bar, true));
  BOOST_TEST(bar.str().find("8/8") != std::string::npos, bar.str());
  const std::string csv = vi::history_csv(r.history);
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  BOOST_TEST(line == "iteration,epoch,elbo,expected_nll,kl,train_nll,seconds");
  for (const vi::HistoryRow& row : r.history) {
    BOOST_TEST_REQUIRE(static_cast<bool>(std::getline(in, line)));
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    BOOST_TEST_REQUIRE(cells.size() == 7u);
    BOOST_TEST(std::stol(cells[0]) == row.iteration);
    BOOST_TEST(std::strtod(cells[2].c_str(), nullptr) == row.elbo);  // same bits
    BOOST_TEST(std::strtod(cells[5].c_str(), nullptr) == row.train_nll);
  }
  BOOST_TEST(vi::history_json(r.history).size() == r.history.size());
}

BOOST_AUTO_TEST_SUITE_END()
