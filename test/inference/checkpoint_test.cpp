// FitCheckpoint's text form: a checkpoint reads back as itself, and decode() refuses a file
// whose fields do not hold together, naming the field: an order that is not a permutation
// (issue 22: all zeros was accepted, and every later minibatch was example 0), a position past
// the order, negative counts, a state array whose numbers do not fill its shape; the state of a run
// around the loop (empirical Bayes) reads back and is checked the same way.
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <inference/checkpoint.hpp>

#include <support/posterior_checks.hpp>

BOOST_AUTO_TEST_SUITE(checkpoint_test)

namespace vi = ngvi::vi;
using ngvi::test::check_error_mentions;

namespace {

// A checkpoint of 4 examples at position 2, with one 2×1 state array.
vi::FitCheckpoint four_examples() {
  vi::FitCheckpoint c;
  c.method = "map";
  c.iteration = 3;
  c.epoch = 2;
  c.order = {2, 0, 3, 1};
  c.position = 2;
  c.rng = vi::save_rng(vi::Rng(3));
  c.eval_rng = c.rng;
  c.state = {{"theta", Eigen::MatrixXd::Constant(2, 1, 0.5)}};
  c.data_fingerprint = "4 rows";
  return c;
}

// The text of four_examples() with `edit` applied to its JSON.
template <class Edit>
std::string edited(Edit&& edit) {
  nlohmann::json j = nlohmann::json::parse(four_examples().encode());
  edit(j);
  return j.dump();
}

}  // namespace

BOOST_AUTO_TEST_CASE(reads_back_as_itself) {
  const vi::FitCheckpoint c = four_examples();
  const vi::FitCheckpoint back = vi::FitCheckpoint::decode(c.encode());
  BOOST_TEST(back.order == c.order);
  BOOST_TEST(back.position == c.position);
  BOOST_TEST(back.iteration == c.iteration);
  BOOST_TEST(back.data_fingerprint == c.data_fingerprint);
  BOOST_TEST_REQUIRE(back.state.size() == 1u);
  BOOST_TEST((back.state[0].second.array() == 0.5).all());
}

// A sampler stratified over row blocks keeps no order: its key reads back, an order beside it or
// a key that is not a 64-bit count is refused by name.
BOOST_AUTO_TEST_CASE(a_stratified_samplers_key_reads_back_and_is_checked) {
  vi::FitCheckpoint c = four_examples();
  c.order.clear();
  c.position = 5;
  c.sampler_key = 0xfedcba9876543210ULL;
  const vi::FitCheckpoint back = vi::FitCheckpoint::decode(c.encode());
  BOOST_TEST(back.sampler_key.value_or(0) == 0xfedcba9876543210ULL);
  BOOST_TEST(back.position == 5);
  BOOST_TEST(!vi::FitCheckpoint::decode(four_examples().encode()).sampler_key.has_value());
  check_error_mentions(
      [] { vi::FitCheckpoint::decode(edited([](nlohmann::json& j) { j["sampler_key"] = "7"; })); },
      "holds 4 entries, but a stratified sampler (sampler_key) has none");
  for (const nlohmann::json& bad : {nlohmann::json(7), nlohmann::json("-1"),
                                    nlohmann::json("18446744073709551616"), nlohmann::json("")})
    check_error_mentions(
        [&] {
          vi::FitCheckpoint::decode(edited([&](nlohmann::json& j) {
            j["order"] = nlohmann::json::array();
            j["sampler_key"] = bad;
          }));
        },
        "sampler_key");
}

BOOST_AUTO_TEST_CASE(an_order_that_is_not_a_permutation_is_refused) {
  check_error_mentions(
      [] {
        (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["order"] = {0, 0, 0, 0}; }));
      },
      "field \"order\" is not a permutation of 0..3: entry 1 is 0, which an earlier entry holds");
  check_error_mentions(
      [] {
        (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["order"] = {2, 0, 4, 1}; }));
      },
      "field \"order\" is not a permutation of 0..3: entry 2 is 4");
  check_error_mentions(
      [] {
        (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["order"] = {2, -1, 3, 1}; }));
      },
      "entry 1 is -1");
  // A number that is not an integer, far out of range (converting it would be undefined; the
  // fuzzer of test/fuzz found it), and a string.
  check_error_mentions(
      [] {
        (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["order"] = {2, 1e300, 3, 1}; }));
      },
      "field \"order\" entry 1 is 1e+300, not an integer");
  check_error_mentions(
      [] {
        (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["order"] = {2, "0", 3, 1}; }));
      },
      "entry 1 is \"0\", not an integer");
}

// The version is compared as JSON, not converted: 1e300 (out of int's range) and "1" are
// unsupported versions, 1.0 is version 1.
BOOST_AUTO_TEST_CASE(a_version_of_another_type_or_range_is_refused) {
  check_error_mentions(
      [] { (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["version"] = 1e300; })); },
      "unsupported checkpoint version 1e+300");
  check_error_mentions(
      [] { (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["version"] = "1"; })); },
      "unsupported checkpoint version \"1\"");
  BOOST_TEST(vi::FitCheckpoint::decode(edited([](auto& j) { j["version"] = 1.0; })).order.size() ==
             4u);
}

BOOST_AUTO_TEST_CASE(every_field_is_checked_and_named) {
  check_error_mentions(
      [] { (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["position"] = 5; })); },
      "field \"position\" is 5, beyond the 4 entries of the order");
  check_error_mentions(
      [] { (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["iteration"] = -1; })); },
      "field \"iteration\" is -1, not an integer >= 0");
  check_error_mentions(
      [] { (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["epoch"] = 1.5; })); },
      "field \"epoch\" is 1.5, not an integer >= 0");
  check_error_mentions(
      [] { (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["state"][0]["rows"] = 3; })); },
      "field \"state.theta.data\" has 2 numbers for rows = 3 and cols = 1");
  check_error_mentions(
      [] { (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["state"][0]["cols"] = -2; })); },
      "field \"state.theta.cols\" is -2");
  check_error_mentions(
      [] {
        (void)vi::FitCheckpoint::decode(
            edited([](auto& j) { j["state"][0]["rows"] = 4611686018427387904LL; }));
      },
      "field \"state.theta.data\" has 2 numbers for rows = 4611686018427387904 and cols = 1");
  check_error_mentions(
      [] { (void)vi::FitCheckpoint::decode(edited([](auto& j) { j["counters"]["steps"] = -3; })); },
      "field \"counters.steps\" is -3");
}

// The state of a run around the loop (empirical Bayes's δ, τ and generator) reads back as itself,
// a plain checkpoint has none, and its arrays are checked as the method's are.
BOOST_AUTO_TEST_CASE(hyperparameters_read_back_and_are_checked) {
  BOOST_TEST(vi::FitCheckpoint::decode(four_examples().encode()).hyperparameters.empty());
  vi::FitCheckpoint c = four_examples();
  c.hyperparameters = {{"prior_precisions", Eigen::MatrixXd::Constant(3, 1, 0.25)},
                       {"update_epochs", Eigen::MatrixXd::Constant(1, 1, 15.0)}};
  c.hyperparameter_rng = vi::save_rng(vi::Rng(5));
  const vi::FitCheckpoint back = vi::FitCheckpoint::decode(c.encode());
  BOOST_TEST_REQUIRE(back.hyperparameters.size() == 2u);
  BOOST_TEST(back.hyperparameters[0].first == "prior_precisions");
  BOOST_TEST((back.hyperparameters[0].second.array() == 0.25).all());
  BOOST_TEST(back.hyperparameters[0].second.rows() == 3);
  BOOST_TEST(back.hyperparameters[1].second(0, 0) == 15.0);
  BOOST_TEST(back.hyperparameter_rng == c.hyperparameter_rng);
  nlohmann::json j = nlohmann::json::parse(c.encode());
  j["hyperparameters"]["arrays"][0]["rows"] = 2;
  check_error_mentions(
      [&] { (void)vi::FitCheckpoint::decode(j.dump()); },
      "field \"hyperparameters.prior_precisions.data\" has 3 numbers for rows = 2");
  j["hyperparameters"]["arrays"] = nlohmann::json::array();
  check_error_mentions([&] { (void)vi::FitCheckpoint::decode(j.dump()); },
                       "field \"hyperparameters.arrays\" is empty");
  j.erase("hyperparameters");
  j["hyperparameters"] = {{"arrays", nlohmann::json::array()}};
  check_error_mentions([&] { (void)vi::FitCheckpoint::decode(j.dump()); }, "malformed checkpoint");
}

BOOST_AUTO_TEST_SUITE_END()
