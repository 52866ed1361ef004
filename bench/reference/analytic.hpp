// Hand-derived analytic derivatives with Eigen: the "physical limit"
// reference for every workload, and the ground truth for rel_err.
// Each struct keeps its workspaces so repeated calls do not allocate.
// [ngvi] Copied unchanged from the peer AD harness (../shared/peers/ad/common/analytic.hpp) so that
// ngvi is measured against the same reference as peers/ad/results.md.
#pragma once

#include <cmath>
#include <vector>

#include <Eigen/Dense>

#include "bench_common.hpp"

namespace adb {
namespace analytic {

using Eigen::ArrayXd;
using Eigen::Dynamic;
using Eigen::Map;
using Eigen::MatrixXd;
using Eigen::RowVectorXd;
using Eigen::VectorXd;
using RowMat = Eigen::Matrix<double, Dynamic, Dynamic, Eigen::RowMajor>;

// Vectorised tanh for double. Eigen 3.4 evaluates tanh of double arrays with
// scalar std::tanh (~15 ns/element here, 6-7x slower than this), which made
// the transcendental calls, not the linear algebra, 90 % of the MLP reference.
// |x| >= 0.125: 1 - 2/(exp(2x)+1) (Eigen's exp is vectorised);
// |x| <  0.125: odd Taylor series to x^17 (avoids the cancellation above).
// Max relative error vs std::tanh on [-20, 20]: 1.7e-15.
struct VecTanh {
  Eigen::ArrayXXd x2, p, e;
  template <class In, class Out>
  void operator()(const In& x, Out& out) {
    x2 = x * x;
    p = x2 * (-1382.0 / 155925.0 +
              x2 * (21844.0 / 6081075.0 +
                    x2 * (-929569.0 / 638512875.0 + x2 * (6404582.0 / 10854718875.0))));
    p = x * (1.0 + x2 * (-1.0 / 3.0 +
                         x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0 + x2 * (62.0 / 2835.0 + p)))));
    e = 1.0 - 2.0 / ((2.0 * x).exp() + 1.0);
    out = (x.abs() < 0.125).select(p, e);
  }
};

// sin and cos of double arrays. Eigen 3.4 calls scalar libm for these
// (1.7 ms of the 2.1 ms W1 reference); glibc's libmvec has AVX2 versions
// (max rel. error 4e-16 here), used when available.
#if defined(__AVX2__) && defined(__GLIBC__) && !defined(ADB_NO_LIBMVEC)
}  // namespace analytic
}  // namespace adb
#include <immintrin.h>
extern "C" __m256d _ZGVdN4v_sin(__m256d);
extern "C" __m256d _ZGVdN4v_cos(__m256d);
namespace adb {
namespace analytic {
inline void sin_cos(const double* x, int m, double* s, double* c) {
  int i = 0;
  for (; i + 4 <= m; i += 4) {
    const __m256d v = _mm256_loadu_pd(x + i);
    _mm256_storeu_pd(s + i, _ZGVdN4v_sin(v));
    _mm256_storeu_pd(c + i, _ZGVdN4v_cos(v));
  }
  for (; i < m; ++i) {
    s[i] = std::sin(x[i]);
    c[i] = std::cos(x[i]);
  }
}
#define ADB_HAVE_LIBMVEC 1
#else
inline void sin_cos(const double* x, int m, double* s, double* c) {
  Map<ArrayXd>(s, m) = Map<const ArrayXd>(x, m).sin();
  Map<ArrayXd>(c, m) = Map<const ArrayXd>(x, m).cos();
}
#endif

// ------------------------------------------------------------------ W1
struct Chain {
  ArrayXd t, e, s, sa, ca;
  // returns f, writes gradient (length n)
  double value_grad(const double* xp, int n, double* gp) {
    Map<const ArrayXd> x(xp, n);
    const int m = n - 1;
    t = x.head(m) * x.tail(m);
    e = t.exp();
    sa.resize(m);
    ca.resize(m);
    sin_cos(xp, m, sa.data(), ca.data());
    const double f = (1.0 + e).log().sum() + sa.square().sum();
    s = e / (1.0 + e);
    Map<ArrayXd> g(gp, n);
    g(m) = 0.0;
    g.head(m) = s * x.tail(m) + 2.0 * sa * ca;
    g.tail(m) += s * x.head(m);
    return f;
  }
};

// ------------------------------------------------------------------ MLP
struct Mlp {
  const MlpData& d;
  Map<const RowMat> X;    // N x D
  Map<const VectorXd> y;  // N
  MatrixXd A, Z, S, dA;   // H x N
  MatrixXd Ad, Zd, dAd;   // tangents (HVP)
  RowVectorXd r, rd;      // 1 x N
  VecTanh vtanh;

  explicit Mlp(const MlpData& dd) : d(dd), X(dd.X.data(), dd.N, dd.D), y(dd.y.data(), dd.N) {}

  // forward pass for examples [n0, n0+cnt): fills A, Z, S, r (cols 0..cnt-1)
  double forward(const double* th, int n0, int cnt) {
    const int H = d.H, D = d.D;
    Map<const RowMat> W1(th + d.oW1(), H, D);
    Map<const VectorXd> b1(th + d.ob1(), H), w2(th + d.ow2(), H);
    const double b2 = th[d.ob2()];
    A.resize(H, cnt);
    A.noalias() = W1 * X.middleRows(n0, cnt).transpose();
    A.colwise() += b1;
    Z.resize(H, cnt);
    auto Za = Z.array();
    vtanh(A.array(), Za);
    S = 1.0 - Z.array().square();
    r.noalias() = w2.transpose() * Z;
    r.array() += b2 - y.segment(n0, cnt).transpose().array();  // r = f - y
    return 0.5 * r.squaredNorm();
  }

  // W2: value + gradient (length P)
  double value_grad(const double* th, double* g) {
    const int H = d.H, D = d.D, N = d.N;
    const double loss = forward(th, 0, N);
    Map<const VectorXd> w2(th + d.ow2(), H);
    Map<RowMat> gW1(g + d.oW1(), H, D);
    Map<VectorXd> gb1(g + d.ob1(), H), gw2(g + d.ow2(), H);
    gw2.noalias() = Z * r.transpose();
    g[d.ob2()] = r.sum();
    dA.noalias() = w2 * r;
    dA.array() *= S.array();
    gW1.noalias() = dA * X;
    gb1 = dA.rowwise().sum();
    return loss;
  }

  // W3: Hessian-vector product (Pearlmutter R-op written out by hand)
  void hvp(const double* th, const double* v, double* hv) {
    const int H = d.H, D = d.D, N = d.N;
    forward(th, 0, N);
    Map<const VectorXd> w2(th + d.ow2(), H);
    Map<const RowMat> V1(v + d.oW1(), H, D);
    Map<const VectorXd> vb1(v + d.ob1(), H), vw2(v + d.ow2(), H);
    const double vb2 = v[d.ob2()];
    Ad.noalias() = V1 * X.transpose();
    Ad.colwise() += vb1;
    Zd = S.array() * Ad.array();
    rd.noalias() = vw2.transpose() * Z;
    rd.noalias() += w2.transpose() * Zd;
    rd.array() += vb2;
    Map<RowMat> hW1(hv + d.oW1(), H, D);
    Map<VectorXd> hb1(hv + d.ob1(), H), hw2(hv + d.ow2(), H);
    hw2.noalias() = Zd * r.transpose();
    hw2.noalias() += Z * rd.transpose();
    hv[d.ob2()] = rd.sum();
    // dZ = w2 r^T ; dZd = vw2 r^T + w2 rd^T ; dA_d = dZd .* S + dZ .* (-2 Z .* Zd)
    dAd.noalias() = vw2 * r;
    dAd.noalias() += w2 * rd;
    dAd.array() *= S.array();
    dA.noalias() = w2 * r;
    dAd.array() -= 2.0 * dA.array() * Z.array() * Zd.array();
    hW1.noalias() = dAd * X;
    hb1 = dAd.rowwise().sum();
  }

  // W4: full Hessian (P x P, column-major into Hout) = J^T J + sum_n r_n d2f_n
  MatrixXd J, U, B;
  void hessian(const double* th, MatrixXd& Hout, VectorXd& grad) {
    const int H = d.H, D = d.D, N = d.N, P = d.P();
    forward(th, 0, N);
    Map<const VectorXd> w2(th + d.ow2(), H);
    // Jacobian of predictions, N x P
    J.resize(N, P);
    for (int h = 0; h < H; ++h) {
      // dW1(h,:) = w2_h s_hn x_n ; db1_h = w2_h s_hn
      const ArrayXd c = w2(h) * S.row(h).transpose().array();
      J.block(0, h * D, N, D) = (X.array().colwise() * c).matrix();
      J.col(d.ob1() + h) = c.matrix();
      J.col(d.ow2() + h) = Z.row(h).transpose();
    }
    J.col(d.ob2()).setOnes();
    grad.noalias() = J.transpose() * r.transpose();
    Hout.resize(P, P);
    Hout.setZero();
    Hout.selfadjointView<Eigen::Lower>().rankUpdate(J.transpose());
    Hout.triangularView<Eigen::StrictlyUpper>() = Hout.transpose();
    // second-order term, block structure per hidden unit
    U.resize(N, D + 1);
    U.leftCols(D) = X;
    U.col(D).setOnes();
    for (int h = 0; h < H; ++h) {
      // theta_h = (W1(h,:), b1_h): sum_n r_n w2_h s'_hn u u^T, s' = -2 z s
      const ArrayXd c = r.transpose().array() * (-2.0 * w2(h)) * Z.row(h).transpose().array() *
                        S.row(h).transpose().array();
      B = U.array().colwise() * c;
      const MatrixXd blk = U.transpose() * B;  // (D+1) x (D+1)
      // cross theta_h / w2_h: sum_n r_n s_hn u_n
      const VectorXd cr =
          U.transpose() * (r.transpose().array() * S.row(h).transpose().array()).matrix();
      const int wi = d.ow2() + h;
      for (int a = 0; a <= D; ++a) {
        const int ia = (a < D) ? h * D + a : d.ob1() + h;
        for (int b = 0; b <= D; ++b) {
          const int ib = (b < D) ? h * D + b : d.ob1() + h;
          Hout(ia, ib) += blk(a, b);
        }
        Hout(ia, wi) += cr(a);
        Hout(wi, ia) += cr(a);
      }
    }
  }

  // W5: per-example gradients for examples [n0, n0+cnt) into rows of G
  // (G is N x P row-major, std::vector)
  void per_example(const double* th, int n0, int cnt, double* G) {
    const int H = d.H, D = d.D, P = d.P();
    forward(th, n0, cnt);
    Map<const VectorXd> w2(th + d.ow2(), H);
    dA.noalias() = w2 * r;
    dA.array() *= S.array();
    for (int k = 0; k < cnt; ++k) {
      const int n = n0 + k;
      double* g = G + std::size_t(n) * P;
      Map<RowMat> gW1(g + d.oW1(), H, D);
      gW1.noalias() = dA.col(k) * X.row(n);
      Map<VectorXd>(g + d.ob1(), H) = dA.col(k);
      Map<VectorXd>(g + d.ow2(), H) = r(k) * Z.col(k);
      g[d.ob2()] = r(k);
    }
  }
};

// ------------------------------------------------------------------ logistic
struct LogReg {
  const LrData& d;
  Map<const RowMat> X;
  Map<const VectorXd> y;
  VectorXd z, p, c;
  MatrixXd B;
  explicit LogReg(const LrData& dd) : d(dd), X(dd.X.data(), dd.N, dd.D), y(dd.y.data(), dd.N) {}

  double value_grad(const double* th, double* g) {
    const int D = d.D;
    Map<const VectorXd> w(th, D);
    z.noalias() = X * w;
    z.array() += th[D];
    const ArrayXd e = z.array().exp();
    const double loss = (1.0 + e).log().sum() - y.dot(z);
    p = (e / (1.0 + e)).matrix() - y;  // residual p - y
    Map<VectorXd>(g, D).noalias() = X.transpose() * p;
    g[D] = p.sum();
    return loss;
  }

  void hessian(const double* th, MatrixXd& Hout, VectorXd& grad) {
    const int D = d.D;
    grad.resize(D + 1);
    value_grad(th, grad.data());
    const ArrayXd s = (z.array().exp() / (1.0 + z.array().exp()));
    c = (s * (1.0 - s)).matrix();
    B = X.array().colwise() * c.array();
    Hout.resize(D + 1, D + 1);
    Hout.topLeftCorner(D, D).noalias() = X.transpose() * B;
    const VectorXd hb = B.colwise().sum().transpose();
    Hout.col(D).head(D) = hb;
    Hout.row(D).head(D) = hb.transpose();
    Hout(D, D) = c.sum();
  }
};

}  // namespace analytic
}  // namespace adb
