// evidence_search (app/uci/evidence_search.hpp): EvidenceRunner searches the ratio r = δ/τ,
// each candidate one MAP fit and its GGN Laplace approximation (over all P parameters for
// map_laplace, the last layer's P_S for map_last_layer_laplace) whose evidence is maximised over
// the scale c in closed form, then fits an ensemble's further members at the chosen r and scores
// the linearised predictive on the test set. What it shares with the cross-validation search is
// app/uci/split_fits.hpp.
#include <chrono>
#include <cmath>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <app/methods/fit_method.hpp>
#include <app/methods/method_info.hpp>
#include <app/methods/predict.hpp>
#include <app/uci/evidence_search.hpp>
#include <app/uci/split_fits.hpp>

#include <inference/posterior/full_gaussian.hpp>
#include <inference/posterior/subnetwork_gaussian.hpp>
#include <nn/dataset.hpp>

namespace ngvi::app {
namespace {

using namespace uci;

// The Laplace posterior N(θ*, Λ⁻¹) with its precision scaled, N(θ*, (c·Λ)⁻¹): full, or over the
// last layer. Cost: a Cholesky of Λ (Λ_S).
AnyPosterior with_precision_scaled(const AnyPosterior& q, double c) {
  if (const auto* full = std::get_if<vi::FullGaussian>(&q))
    return vi::FullGaussian(full->mean(), c * full->precision());
  const auto& sub = std::get<vi::SubnetworkGaussian>(q);
  return vi::SubnetworkGaussian(
      sub.mean(), sub.indices(),
      vi::FullGaussian(sub.subnetwork().mean(), c * sub.subnetwork().precision()));
}

// map_laplace's type-II maximum-likelihood search over r = δ/τ on the whole training set
// (app/uci/uci_protocol.hpp).
class EvidenceRunner {
 public:
  EvidenceRunner(const UciProtocolOptions& o, const io::UciSplit& data, int split,
                 Eigen::Index hidden)
      : o_(o), data_(data), split_(split), hidden_(hidden) {}

  SplitResult run() {
    const auto t0 = std::chrono::steady_clock::now();
    SplitResult r;
    r.split = split_;
    tau_fit_ = o_.initial_noise_precision;
    const double r0 = o_.method.prior_precision / o_.initial_noise_precision;
    log_scale_search(
        -10, 6, [&](int k) { return evaluate(r0 * std::pow(10.0, 0.5 * k)); },
        [&] { return static_cast<int>(order_.size()) < o_.max_tuning_fits; });
    if (!best_) {
      r.ok = false;
      r.message = "every MAP + Laplace fit on the training set failed" +
                  (last_failure_.empty() ? std::string() : ": " + last_failure_);
    } else {
      const TuningFit& b = order_[best_index_];
      r.noise_precision = b.noise_precision;
      r.prior_precision = b.prior_precision;
      r.epochs = epochs_of(o_.method);
      r.validation_log_likelihood = not_scored;
      r.log_marginal_likelihood = b.log_marginal_likelihood;
      score_on_test_set(r);
    }
    r.tuning = order_;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

 private:
  // A MAP + Laplace fit, its evidence maximised over the scale (τ, δ) = (c, r·c), and the
  // Laplace posterior rescaled to that c.
  struct EvidenceFit {
    TuningFit fit;                  // (c*, r·c*) and the evidence there (−∞: failed)
    std::optional<AnyPosterior> q;  // N(θ*, (c*·(G + rI))⁻¹); empty if the fit failed
    std::string message;            // why it failed; empty otherwise
  };

  // The MAP + Laplace fit at ratio r and τ (δ = r·τ) from the start of stream `fit_number`, and
  // its evidence maximised over the scale c in closed form (app/uci/uci_protocol.hpp).
  EvidenceFit fit_at(double ratio, double tau, int fit_number) const {
    const double delta = ratio * tau;
    const NetworkModel model =
        network_on(nn::DatasetStandardizer::fit(data_.train).transform(data_.train), hidden_, tau);
    FitRequest request;
    request.settings = o_.method;
    request.settings.prior_precision = delta;
    vi::Rng rng = stream(o_.seed, split_, fit_number, 0);
    FitOutcome out = fit_method(model, request, rng);
    EvidenceFit r{{tau, delta, epochs_of(o_.method), not_scored, lowest_score}, {}, {}};
    if (!out.ok || !out.evidence) {
      r.message = out.message;
      return r;
    }
    const LaplaceEvidence& e = *out.evidence;
    const auto n = static_cast<double>(model.num_examples());
    const auto p = static_cast<double>(e.parameters);
    const double log_2pi = std::log(2.0 * std::numbers::pi);
    // log p(D|θ*) = N/2·log(τ/2π) − τ/2·SSE at the fitted τ gives the sum of squared residuals.
    const double sse = (2.0 / tau) * (0.5 * n * (std::log(tau) - log_2pi) - e.log_likelihood);
    const double c = n / (sse + ratio * e.squared_norm);
    // log det(c·(G + rI)) = log det(τ·(G + rI)) + P·log(c/τ).
    const double log_det = e.log_det_precision + p * std::log(c / tau);
    const double evidence = 0.5 * n * (std::log(c) - log_2pi) - 0.5 * c * sse -
                            0.5 * ratio * c * e.squared_norm + 0.5 * p * std::log(ratio * c) -
                            0.5 * log_det;
    r.fit.noise_precision = c;
    r.fit.prior_precision = ratio * c;
    r.fit.log_marginal_likelihood = finite_or_lowest(evidence);
    if (!std::isfinite(r.fit.log_marginal_likelihood)) {
      r.message = "the Laplace evidence is not finite";
      return r;
    }
    // The same θ*, its precision τ·(G + rI) rescaled to c·(G + rI).
    r.q = with_precision_scaled(out.posterior, c / tau);
    return r;
  }

  // The search's fit at ratio r (at τ = the best c* so far). Returns its evidence (−∞ on
  // failure).
  double evaluate(double ratio) {
    EvidenceFit f = fit_at(ratio, tau_fit_, static_cast<int>(order_.size()) + 1);
    order_.push_back(f.fit);
    if (!f.q) {
      last_failure_ = f.message;
      return lowest_score;
    }
    if (!best_ || f.fit.log_marginal_likelihood > order_[best_index_].log_marginal_likelihood) {
      best_index_ = order_.size() - 1;
      best_ = std::move(f.q);
      tau_fit_ = f.fit.noise_precision;
    }
    return f.fit.log_marginal_likelihood;
  }

  // The linearised predictive of the best search fit (member 0) and, for an ensemble, of K − 1
  // more fits at its ratio r and τ, each at its own evidence-optimal scale
  // (app/uci/uci_protocol.hpp).
  void score_on_test_set(SplitResult& r) const {
    PredictOptions po;
    po.samples = o_.test_samples;
    po.linearised = true;
    const double ratio = r.prior_precision / r.noise_precision;
    const auto fit_member = [&](int m) {
      if (m == 0)
        return MemberFit{AnyPosterior(*best_), Noise{order_[best_index_].noise_precision}, {}};
      const EvidenceFit f = fit_at(ratio, r.noise_precision, member_fit(m));
      if (!f.q) return MemberFit{std::nullopt, Noise{f.fit.noise_precision}, f.message};
      return MemberFit{AnyPosterior(*f.q), Noise{f.fit.noise_precision}, {}};
    };
    score_ensemble(o_, data_, split_, hidden_, po, fit_member, r);
  }

  const UciProtocolOptions& o_;
  const io::UciSplit& data_;
  int split_;
  Eigen::Index hidden_;
  double tau_fit_ = 0.0;  // τ of the next MAP fit: the best c* so far (τ₀ at first)
  std::vector<TuningFit> order_;
  std::optional<AnyPosterior> best_;  // the rescaled Laplace posterior of the best fit
  std::size_t best_index_ = 0;
  std::string last_failure_;
};

}  // namespace

SplitResult evidence_gradient_fit(const UciProtocolOptions& o, const io::UciSplit& data, int split,
                                  Eigen::Index hidden) {
  const auto t0 = std::chrono::steady_clock::now();
  SplitResult r;
  r.split = split;
  r.epochs = epochs_of(o.method);
  r.validation_log_likelihood = not_scored;
  const auto fit_member = [&](int m) {
    const NetworkModel model =
        network_on(nn::DatasetStandardizer::fit(data.train).transform(data.train), hidden,
                   o.initial_noise_precision);
    FitRequest request;
    request.settings = o.method;
    vi::Rng rng = stream(o.seed, split, member_fit(m), 0);
    const FitOutcome out = fit_method(model, request, rng);
    if (!out.ok || !out.hyperparameters)
      return MemberFit{std::nullopt, Noise{o.initial_noise_precision}, out.message};
    const LearnedHyperparameters& h = *out.hyperparameters;
    if (m == 0) {
      r.noise_precision = h.noise_precision;
      r.log_marginal_likelihood = h.log_marginal_likelihood;
      r.blocks = h.blocks;
      double weighted_log = 0.0, count = 0.0;
      for (std::size_t b = 0; b < h.blocks.size(); ++b) {
        const double delta = h.prior_precisions(static_cast<Eigen::Index>(b));
        r.block_prior_precisions.push_back(delta);
        weighted_log += static_cast<double>(h.sizes[b]) * std::log(delta);
        count += static_cast<double>(h.sizes[b]);
      }
      r.prior_precision = std::exp(weighted_log / count);
    }
    return MemberFit{out.posterior, Noise{h.noise_precision}, {}};
  };
  PredictOptions po;
  po.samples = o.test_samples;
  po.linearised = tool_method(o.method.method).laplace;
  score_ensemble(o, data, split, hidden, po, fit_member, r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

SplitResult evidence_search(const UciProtocolOptions& o, const io::UciSplit& data, int split,
                            Eigen::Index hidden) {
  return EvidenceRunner(o, data, split, hidden).run();
}

}  // namespace ngvi::app
