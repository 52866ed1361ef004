// Shared pieces of the minibatch (ExampleIndices) tests of nn/.
//
// mixed_minibatch is the index list every idx-overload test uses: unsorted, with repeated
// indices, and — with a grain of 3 — one block of consecutive indices, so both ways a batched
// route reads rows (in place and gathered) are exercised. subset_model rebuilds a model on
// data.subset(idx), the independent reference for anything that does not draw random numbers:
// example k of the subset model is example idx[k] of the original. check_rejects_bad_indices
// asserts the errors every idx overload promises: std::invalid_argument for an empty idx and
// std::out_of_range for an index outside 0..N−1, each message naming the function.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <nn/dataset.hpp>
#include <nn/example_indices.hpp>
#include <nn/supervised.hpp>

#include <support/curvature_fixtures.hpp>

namespace ngvi::test {

// 10 entries drawn from 0..n−1 (n >= 12): unsorted, 2 and n−1 repeated, entries 3..5 consecutive.
inline std::vector<Eigen::Index> mixed_minibatch(Eigen::Index n) {
  return {n - 1, 2, 7, 4, 5, 6, 2, 0, n - 1, 9};
}

// The same network and likelihood on the examples idx only.
template <class Net, class Lik>
nn::Supervised<Net, Lik> subset_model(const nn::Supervised<Net, Lik>& m, nn::ExampleIndices idx) {
  return nn::Supervised<Net, Lik>(m.net(), m.likelihood(), m.data().subset(idx));
}
template <class Lik>
DenseModel<Lik> subset_model(const DenseModel<Lik>& m, nn::ExampleIndices idx) {
  return DenseModel<Lik>{m.sizes, m.lik, {m.d.X(idx, Eigen::all), m.d.Y(idx, Eigen::all)}};
}

// f(idx) must throw std::invalid_argument for an empty idx and std::out_of_range for the
// indices −1 and n, each time with a message containing `who`.
template <class F>
void check_rejects_bad_indices(F&& f, Eigen::Index n, const std::string& who) {
  const auto names = [&](const std::exception& e) {
    const bool ok = std::string(e.what()).find(who) != std::string::npos;
    BOOST_TEST_INFO("message: " << e.what());
    BOOST_TEST(ok);
    return ok;
  };
  const std::vector<Eigen::Index> empty, negative{0, -1}, too_large{n - 1, n};
  BOOST_CHECK_EXCEPTION(f(nn::ExampleIndices(empty)), std::invalid_argument, names);
  BOOST_CHECK_EXCEPTION(f(nn::ExampleIndices(negative)), std::out_of_range, names);
  BOOST_CHECK_EXCEPTION(f(nn::ExampleIndices(too_large)), std::out_of_range, names);
}

}  // namespace ngvi::test
