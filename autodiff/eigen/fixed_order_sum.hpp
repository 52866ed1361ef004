// fixed_order_sum: a sum whose rounding depends only on the number of terms.
//
// Eigen's sum() over a mapped array peels scalar terms until the address is aligned and then
// adds packets, so the order of the additions — and the last bits of the result — follow the
// address of the data. Fused nodes sum adjoints that sit wherever the tape put them, so they
// use this instead: eight interleaved partial sums (lane l adds terms l, l + 8, l + 16, ... in
// order), combined by a fixed tree. Each lane's additions stay in order, so the compiler may
// run the lanes as one AVX-512, two AVX or four SSE vector additions with the same result.
#pragma once

#include <Eigen/Core>

namespace ngvi::ad::detail {

// Σ x[i] for i < n. Cost: n additions, vectorisable.
template <class Real>
Real fixed_order_sum(const Real* x, Eigen::Index n) {
  constexpr int lanes = 8;
  Real acc[lanes];
  for (Real& a : acc) a = Real(0.0);
  Eigen::Index i = 0;
  for (; i + lanes <= n; i += lanes)
    for (int l = 0; l < lanes; ++l) acc[l] += x[i + l];
  for (int l = 0; i + l < n; ++l) acc[l] += x[i + l];
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

}  // namespace ngvi::ad::detail
