// fixed_order_sum: a sum whose rounding depends only on the number of terms; add_column_sums,
// the reverse step of a vector added to every row of a matrix, made of it.
//
// Eigen's sum() over a mapped array peels scalar terms until the address is aligned and then
// adds packets, so the order of the additions — and the last bits of the result — follow the
// address of the data. Fused nodes sum adjoints that sit wherever the tape put them, so they
// use this instead: eight interleaved partial sums (lane l adds terms l, l + 8, l + 16, ... in
// order), combined by a fixed tree. Each lane's additions stay in order, so the compiler may
// run the lanes as one AVX-512, two AVX or four SSE vector additions with the same result.
#pragma once

#include <cstddef>

#include <Eigen/Core>

#include <autodiff/eigen/operand.hpp>
#include <autodiff/eigen/reverse_scratch.hpp>

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

// v's adjoints += the column sums of the rows×cols matrix g (one per entry of v), each in
// fixed_order_sum's order: the reverse step of a vector added to every row (add_rowwise,
// affine). Cost: one pass over g; nothing when v is inactive.
template <class Real>
void add_column_sums(const MatrixOperand<Real>& v, Real* adj, const Real* g, Eigen::Index rows,
                     Eigen::Index cols) {
  if (!v.active) return;
  Real* s = reverse_scratch<Real>(0, static_cast<std::size_t>(cols));
  for (Eigen::Index j = 0; j < cols; ++j) s[j] = fixed_order_sum(g + j * rows, rows);
  v.add_values(adj, s);
}

}  // namespace ngvi::ad::detail
