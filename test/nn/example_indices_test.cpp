// Tests of nn/example_indices.hpp: the validation every minibatch overload runs (error types
// and messages), all_examples, is_consecutive, and example_rows — a view into the matrix for a
// consecutive run (checked by address), a gather equal to Eigen's indexed view otherwise.
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <autodiff/verify/compare.hpp>
#include <autodiff/verify/tolerances.hpp>
#include <nn/example_indices.hpp>

#include <support/check_report.hpp>
#include <support/minibatch.hpp>

BOOST_AUTO_TEST_SUITE(example_indices_test)

using namespace ngvi;
namespace tol = ngvi::ad::verify::tolerances;
using ngvi::ad::verify::compare;

BOOST_AUTO_TEST_CASE(validation_names_function_position_and_value) {
  const std::vector<Eigen::Index> ok = {3, 0, 3, 4};
  BOOST_CHECK_NO_THROW(nn::check_example_indices(ok, 5, "ggn"));
  test::check_rejects_bad_indices(
      [](nn::ExampleIndices idx) { nn::check_example_indices(idx, 5, "ggn"); }, 5, "ngvi::nn::ggn");
  const std::vector<Eigen::Index> bad = {0, 1, 7};
  try {
    nn::check_example_indices(bad, 5, "mc_fisher");
    BOOST_FAIL("index 7 of 5 examples was accepted");
  } catch (const std::out_of_range& e) {
    BOOST_TEST(std::string(e.what()) ==
               "ngvi::nn::mc_fisher: idx[2] = 7 is outside 0..4 (the model has 5 examples)");
  }
}

BOOST_AUTO_TEST_CASE(all_examples_and_consecutive_runs) {
  BOOST_TEST(nn::all_examples(4) == (std::vector<Eigen::Index>{0, 1, 2, 3}));
  BOOST_TEST(nn::all_examples(0).empty());
  const std::vector<Eigen::Index> run = {5, 6, 7}, gap = {5, 6, 8}, repeat = {5, 5}, one = {9};
  BOOST_TEST(nn::is_consecutive(run));
  BOOST_TEST(!nn::is_consecutive(gap));
  BOOST_TEST(!nn::is_consecutive(repeat));
  BOOST_TEST(nn::is_consecutive(one));
}

BOOST_AUTO_TEST_CASE(example_rows_views_or_gathers) {
  Eigen::MatrixXd M(12, 3);
  for (Eigen::Index k = 0; k < M.size(); ++k) M(k) = static_cast<double>(k * k % 17) - 8.0;
  Eigen::MatrixXd buffer;
  const std::vector<Eigen::Index> run = {4, 5, 6};
  const Eigen::Ref<const Eigen::MatrixXd> view = nn::example_rows(M, run, buffer);
  BOOST_TEST(view.data() == &M(4, 0));  // in place, no copy
  BOOST_TEST(buffer.size() == 0);
  NGVI_CHECK_REPORT(compare(Eigen::MatrixXd(view), Eigen::MatrixXd(M.middleRows(4, 3)), tol::exact,
                            "run of rows"));
  const std::vector<Eigen::Index> mixed = test::mixed_minibatch(12);
  const Eigen::Ref<const Eigen::MatrixXd> gathered = nn::example_rows(M, mixed, buffer);
  BOOST_TEST(gathered.data() == buffer.data());
  Eigen::MatrixXd ref(static_cast<Eigen::Index>(mixed.size()), 3);
  for (std::size_t k = 0; k < mixed.size(); ++k)
    ref.row(static_cast<Eigen::Index>(k)) = M.row(mixed[k]);
  NGVI_CHECK_REPORT(
      compare(Eigen::MatrixXd(gathered), ref, tol::exact, "gathered rows, row by row"));
}

BOOST_AUTO_TEST_SUITE_END()
