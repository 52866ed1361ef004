// Tests of autodiff/eigen/reverse_scratch.hpp: buffers are aligned to Arena::array_alignment
// (the property the reverse steps rely on), reused without reallocation once large enough,
// distinct per slot and per thread.
#include <cstdint>
#include <thread>

#include <boost/test/unit_test.hpp>

#include <autodiff/core/dual.hpp>
#include <autodiff/eigen/reverse_scratch.hpp>

BOOST_AUTO_TEST_SUITE(reverse_scratch_test)
namespace {
namespace ad = ngvi::ad;
bool aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % ad::Arena::array_alignment == 0;
}
}  // namespace

BOOST_AUTO_TEST_CASE(aligned_reused_and_distinct_per_slot) {
  double* a = ad::detail::reverse_scratch<double>(0, 100);
  double* b = ad::detail::reverse_scratch<double>(1, 100);
  BOOST_TEST(aligned(a));
  BOOST_TEST(aligned(b));
  BOOST_TEST((a != b));
  a[99] = 1.5;
  b[99] = 2.5;
  BOOST_TEST(ad::detail::reverse_scratch<double>(0, 50) == a);  // smaller: same memory, kept
  BOOST_TEST(a[99] == 1.5);
  double* grown = ad::detail::reverse_scratch<double>(0, 100000);
  BOOST_TEST(aligned(grown));
  grown[99999] = 3.0;  // the whole request is usable (ASan checks the bounds)
  BOOST_TEST(ad::detail::reverse_scratch<double>(0, 1000) == grown);
  using D = ad::Dual<double, 8>;
  BOOST_TEST(aligned(ad::detail::reverse_scratch<D>(2, 33)));
}

BOOST_AUTO_TEST_CASE(each_thread_has_its_own_buffers) {
  double* mine = ad::detail::reverse_scratch<double>(0, 64);
  double* theirs = nullptr;
  std::thread([&] { theirs = ad::detail::reverse_scratch<double>(0, 64); }).join();
  BOOST_TEST((mine != theirs));
}

BOOST_AUTO_TEST_SUITE_END()
