// FactoredPrecision's finiteness check and factorisation against the entrywise definition: every
// kind of non-finite entry (+∞, −∞, NaN), anywhere, in the full and the diagonal family, is found
// by all_finite as by std::isfinite entry by entry; finite entries of every sign and size pass
// (−0 and the largest doubles included, whose products with 0 are ±0); and factorize refuses a
// precision with one non-finite entry (Eigen's LLT alone would report success on a NaN).
#include <cmath>
#include <limits>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include <inference/posterior/factored_precision.hpp>

BOOST_AUTO_TEST_SUITE(factored_precision_test)

namespace vi = ngvi::vi;
using Full = vi::FactoredPrecision<vi::Covariance::full>;
using Diagonal = vi::FactoredPrecision<vi::Covariance::diagonal>;

namespace {

bool entrywise_finite(const Eigen::MatrixXd& m) {
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      if (!std::isfinite(m(i, j))) return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(all_finite_agrees_with_the_entrywise_test) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double big = std::numeric_limits<double>::max();
  Eigen::MatrixXd m(7, 7);
  for (Eigen::Index j = 0; j < 7; ++j)
    for (Eigen::Index i = 0; i < 7; ++i) m(i, j) = (i + j) % 3 == 0 ? -big : 0.5 * (i - j);
  m(2, 2) = -0.0;
  BOOST_TEST(Full::all_finite(m));
  BOOST_TEST(Diagonal::all_finite(m.col(0)));
  for (const double bad : {inf, -inf, std::numeric_limits<double>::quiet_NaN()})
    for (const Eigen::Index at : {0, 24, 48}) {
      Eigen::MatrixXd b = m;
      b(at % 7, at / 7) = bad;
      BOOST_TEST(Full::all_finite(b) == entrywise_finite(b), "entry " << at << " = " << bad);
      BOOST_TEST(!Full::all_finite(b));
      Eigen::VectorXd d = b.col(at / 7);
      BOOST_TEST(!Diagonal::all_finite(d), "diagonal, entry " << at % 7 << " = " << bad);
    }
}

BOOST_AUTO_TEST_CASE(factorize_refuses_a_precision_with_a_non_finite_entry) {
  Eigen::MatrixXd lambda = Eigen::MatrixXd::Identity(4, 4) * 2.0;
  Full f;
  BOOST_TEST(f.factorize(lambda));
  lambda(3, 1) = std::numeric_limits<double>::quiet_NaN();  // the lower triangle, which LLT reads
  BOOST_TEST(!f.factorize(lambda));
  Diagonal d;
  BOOST_TEST(d.factorize(Eigen::VectorXd::Constant(3, 2.0)));
  BOOST_TEST(!d.factorize(Eigen::VectorXd::Constant(3, std::numeric_limits<double>::infinity())));
}

BOOST_AUTO_TEST_SUITE_END()
