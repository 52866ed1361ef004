// Reference results (from the analytic implementation) that every library
// is compared against.
// [ngvi] Copied unchanged from the peer AD harness (../shared/peers/ad/common/reference.hpp) so
// that ngvi is measured against the same reference as peers/ad/results.md.
#pragma once

#include "analytic.hpp"
#include "bench_common.hpp"

namespace adb {

struct Refs {
  double w1_f = 0;
  std::vector<double> w1_grad;
  std::vector<double> w2_grad;
  std::vector<double> w3_hvp;
  std::vector<double> w4_hess;  // P x P, column-major (symmetric anyway)
  std::vector<double> w5_G;     // N x P row-major per-example gradients
  std::vector<double> w5_diag;  // P, mean of squared per-example gradients
  std::vector<double> w6_grad;
  std::vector<double> w6_hess;  // 31 x 31
};

inline Refs make_refs(const AllData& a) {
  Refs r;
  {
    analytic::Chain c;
    r.w1_grad.resize(a.w1.x.size());
    r.w1_f = c.value_grad(a.w1.x.data(), int(a.w1.x.size()), r.w1_grad.data());
  }
  {
    analytic::Mlp m(a.mlp);
    const int P = a.mlp.P(), N = a.mlp.N;
    r.w2_grad.resize(P);
    m.value_grad(a.mlp.theta.data(), r.w2_grad.data());
    r.w3_hvp.resize(P);
    m.hvp(a.mlp.theta.data(), a.mlp.v.data(), r.w3_hvp.data());
    r.w5_G.resize(std::size_t(N) * P);
    m.per_example(a.mlp.theta.data(), 0, N, r.w5_G.data());
    sq_mean_rows(r.w5_G, N, P, r.w5_diag);
  }
  {
    analytic::Mlp m(a.hes);
    Eigen::MatrixXd H;
    Eigen::VectorXd g;
    m.hessian(a.hes.theta.data(), H, g);
    r.w4_hess.assign(H.data(), H.data() + H.size());
  }
  {
    analytic::LogReg l(a.lr);
    r.w6_grad.resize(a.lr.P());
    l.value_grad(a.lr.theta.data(), r.w6_grad.data());
    Eigen::MatrixXd H;
    Eigen::VectorXd g;
    l.hessian(a.lr.theta.data(), H, g);
    r.w6_hess.assign(H.data(), H.data() + H.size());
  }
  return r;
}

// W5 error: worst of (per-example matrix, squared-mean vector)
inline double w5_err(const Refs& r, const std::vector<double>& G, const std::vector<double>& diag) {
  return std::max(rel_err(G, r.w5_G), rel_err(diag, r.w5_diag));
}

}  // namespace adb
