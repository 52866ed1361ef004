// The machinery behind fit_method (app/methods/fit_method.hpp): the loop options every method of
// the tool shares, the callback that hands the posterior to the epoch hook, run_fit, which calls
// vi::fit and turns its result into a FitOutcome, and fit_map_laplace, the Laplace
// approximation at the MAP.
//
// Included only by fit_method.cpp, which instantiates the methods: everything here is a template
// over the model and the method's options, and instantiating vi::fit is what costs compile time.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include <Eigen/Core>
#include <app/cli/exit_codes.hpp>
#include <app/methods/fit_method.hpp>
#include <fmt/format.h>
#include <io/checkpoint_file.hpp>

#include <inference/empirical_bayes.hpp>
#include <inference/evidence_hyperparameters.hpp>
#include <inference/fit.hpp>
#include <inference/laplace.hpp>
#include <inference/loop_options.hpp>
#include <inference/map.hpp>
#include <inference/minibatch.hpp>
#include <inference/subnetwork_laplace.hpp>

namespace ngvi::app::detail {

// The loop of every method: epochs and M from the settings (M capped at N, so that a small table
// still fits), no ELBO samples and one history row at the end (the tool's protocols score
// posteriors through the epoch hook instead; the row costs one full-data loss).
inline vi::LoopOptions loop_options(const FitRequest& request, Eigen::Index num_examples) {
  const MethodSettings& s = request.settings;
  vi::LoopOptions loop;
  loop.epochs = epochs_of(s);
  loop.minibatch = std::min(s.minibatch, num_examples);
  loop.history_every = std::numeric_limits<Eigen::Index>::max();
  loop.elbo_samples = 0;
  loop.threads = s.threads;
  loop.reducer = request.reducer;
  return loop;
}

// A fit-loop callback: at the end of each epoch listed in the request, hands the hook the current
// posterior, converted to AnyPosterior by `convert`.
template <class Convert>
struct EpochReporter {
  const FitRequest& request;
  Eigen::Index batches_per_epoch = 1;
  Convert convert;
  std::size_t next = 0;  // the first entry of request.report_epochs not yet reached

  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    if (!request.hook || ctx.iteration() % batches_per_epoch != 0) return false;
    const Eigen::Index epoch = ctx.iteration() / batches_per_epoch;
    const std::vector<Eigen::Index>& epochs = request.report_epochs;
    while (next < epochs.size() && epochs[next] < epoch) ++next;
    if (next < epochs.size() && epochs[next] == epoch) {
      request.hook(epoch, convert(ctx.posterior()));
      ++next;
    }
    return false;
  }
};

// The identity conversion of a posterior the tool's variant holds as it is.
struct AsIs {
  template <class Q>
  AnyPosterior operator()(const Q& q) const {
    return AnyPosterior(q);
  }
};

// The fingerprint of `model`'s data for a checkpoint (FitCheckpoint::data_fingerprint):
// io::data_fingerprint of the rows, or, when the sums go by data rows (`reducer` with
// row_blocks(): each process may hold only its rows), the shape of the whole set and a checksum
// of every row block's FNV-1a checksum (its rows' inputs then targets, row by row), exchanged
// through the reducer — the same on every process and for any number of them.
// Cost: a pass over the rows held, and with row blocks one exchange of 2K numbers.
template <class Model>
std::string fingerprint_of(const Model& model, const vi::BatchReducer* reducer) {
  const vi::RowBlocks* rows = reducer != nullptr ? reducer->row_blocks() : nullptr;
  if constexpr (requires { model.window(); }) {
    if (rows != nullptr) {
      const nn::Dataset& d = model.data();
      const Eigen::Index first = model.window().first, k = rows->count();
      const Eigen::VectorXd halves =
          reducer->sum_all(model.num_examples(), 2 * k, ad::ParallelOptions{.threads = 1},
                           [&](std::span<const Eigen::Index> examples, const ad::ParallelOptions&,
                               Eigen::VectorXd& acc) {
                             std::uint64_t h = 14695981039346656037ull;
                             auto add = [&](double v) {
                               unsigned char bytes[sizeof(double)];
                               std::memcpy(bytes, &v, sizeof(double));
                               for (const unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
                             };
                             for (const Eigen::Index i : examples) {
                               for (Eigen::Index c = 0; c < d.X.cols(); ++c) add(d.X(i - first, c));
                               for (Eigen::Index c = 0; c < d.Y.cols(); ++c) add(d.Y(i - first, c));
                             }
                             const Eigen::Index b = rows->block_of(examples.front());
                             acc(2 * b) = static_cast<double>(h >> 32);
                             acc(2 * b + 1) = static_cast<double>(h & 0xffffffffull);
                           });
      std::uint64_t h = 14695981039346656037ull;
      for (Eigen::Index j = 0; j < halves.size(); ++j)
        h = (h ^ static_cast<std::uint64_t>(halves(j))) * 1099511628211ull;
      return fmt::format("{}x{}+{} in {} row blocks, checksum {:016x}", model.num_examples(),
                         d.X.cols(), d.Y.cols(), k, h);
    }
  }
  return io::data_fingerprint(model.data());
}

// The fingerprint a run's checkpoints record: fingerprint_of when it writes checkpoints, else
// empty — except with sums by data rows, where every process takes part in forming it (an
// exchange), whether or not it is the one that writes.
template <class Model>
std::string checkpoint_fingerprint(const Model& model, const FitRequest& request) {
  const bool by_rows = request.reducer != nullptr && request.reducer->row_blocks() != nullptr;
  if (request.checkpoint.empty() && !by_rows) return std::string();
  std::string f = fingerprint_of(model, request.reducer.get());
  return request.checkpoint.empty() ? std::string() : f;
}

// Throws UsageError if `checkpoint` cannot continue a run of `options` on `model`: its
// minibatches were drawn the other way (stratified over row blocks or not), its data
// fingerprint (if it has one) is not this data set's, its order is for another number of
// examples, or its method state has another shape (a checkpoint of another network or data
// set). vi::resume finds the last two as well, but inside the run, where they would read as the
// method failing on the data (exit 1) rather than as bad input (exit 2). Cost: a pass over the
// data, constructing the method (its initial state) and restoring the checkpoint's state.
template <class Model, class Options>
void check_resume_fits(const Model& model, const Options& options,
                       const vi::FitCheckpoint& checkpoint) {
  const vi::RowBlocks* rows = options.loop.reducer ? options.loop.reducer->row_blocks() : nullptr;
  if (checkpoint.sampler_key.has_value() != (rows != nullptr))
    throw UsageError(std::string("the checkpoint to resume does not fit this run: ") +
                     (checkpoint.sampler_key
                          ? "its minibatches were drawn stratified over row blocks "
                            "(--divide-data), this run's are not"
                          : "its minibatches were drawn from a permutation of all rows, this "
                            "run's are stratified over row blocks (--divide-data)"));
  const std::string data = fingerprint_of(model, options.loop.reducer.get());
  if (!checkpoint.data_fingerprint.empty() && checkpoint.data_fingerprint != data)
    throw UsageError(
        "the checkpoint to resume is of another data set: its field "
        "'data_fingerprint' is '" +
        checkpoint.data_fingerprint + "', this data set's is '" + data + "'");
  vi::Rng scratch;
  typename Options::template method<Model> method(model, options, scratch);
  try {
    method.restore(checkpoint.state);
    if (rows != nullptr)
      vi::MinibatchSampler(*rows, options.loop.minibatch)
          .restore_stratified(*checkpoint.sampler_key, checkpoint.position);
    else
      vi::MinibatchSampler(model.num_examples(), options.loop.minibatch)
          .restore(checkpoint.order, checkpoint.position);
  } catch (const std::invalid_argument& e) {
    throw UsageError("the checkpoint to resume does not fit this network and data: " +
                     std::string(e.what()));
  }
}

// Runs vi::fit(model, options, rng) with the epoch hook; `convert` maps the method's posterior to
// AnyPosterior (laplace() for the Laplace method, the identity otherwise). Every failure of the
// run itself gives ok = false and the message: a failed result (a non-finite parameter), or an
// exception from a step, from building the posterior or from the Laplace approximation (a
// precision that is not positive definite, a Kronecker factor that stopped being one). The
// tool's options are checked before a fit starts (their ranges in the CLI), so an exception here
// is the method failing on this data, not bad usage; a failed run keeps its own message and its
// last posterior as it is (converting it, for laplace the curvature at a diverged MAP, would only
// fail again and hide why). A checkpoint to resume of another method than `options`, or that
// does not fit the model (check_resume_fits), throws UsageError before the run.
// `extra` are further fit-loop callbacks.
template <class Model, class Options, class Convert, class... Extra>
FitOutcome run_fit(const Model& model, const Options& options, const FitRequest& request,
                   vi::Rng& rng, Convert&& convert, Extra&... extra) {
  const Eigen::Index m = options.loop.minibatch > 0 ? options.loop.minibatch : model.num_examples();
  if (request.resume && request.resume->method != Options::name)
    throw UsageError("the checkpoint to resume is of method '" + request.resume->method +
                     "', not '" + Options::name + "'");
  if (request.resume && !request.resume->hyperparameters.empty())
    throw UsageError(
        "the checkpoint to resume is of a run that learned its hyperparameters (it holds δ and "
        "τ): resume it with the --hyperparameters it was run with");
  if (request.resume) check_resume_fits(model, options, *request.resume);
  const auto t0 = std::chrono::steady_clock::now();
  FitOutcome out;
  try {
    EpochReporter<Convert&> reporter{request, (model.num_examples() + m - 1) / m, convert};
    io::Checkpointer checkpointer{request.checkpoint, request.checkpoint_every,
                                  checkpoint_fingerprint(model, request)};
    auto result = request.resume ? vi::resume(model, options, *request.resume, reporter,
                                              checkpointer, extra...)
                                 : vi::fit(model, options, rng, reporter, checkpointer, extra...);
    out.ok = result.ok();
    out.message = result.message;
    out.posterior = out.ok ? convert(result.posterior) : AsIs{}(result.posterior);
  } catch (const std::exception& e) {
    out.ok = false;
    out.message = e.what();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// MAP by `options`, handing the hook (and the result) the full GGN Laplace approximation at the
// current MAP estimate, with the final one's evidence. The tool's Laplace method is Gaussian's or
// a classifier's only (ngvi uci refuses Student-t first): the Student-t output Hessian in its
// GGN is indefinite for large residuals, and the UCI evidence search and linearised predictive
// assume a Gaussian likelihood; a Student-t model throws std::invalid_argument. Cost: the MAP
// fit, and per reported epoch and at the end a GGN over all N examples and its Cholesky.
template <class Model>
FitOutcome fit_map_laplace(const Model& model, const vi::MapOptions& o, const FitRequest& request,
                           vi::Rng& rng) {
  if (model.likelihood().template holds<nn::StudentT>())
    throw std::invalid_argument(
        "ngvi::app::fit_method: method map_laplace needs a Gaussian likelihood, not student-t");
  // The full Laplace approximation with the GGN at the current MAP estimate (positive
  // semi-definite, unlike the exact Hessian of a ReLU network away from a minimum).
  vi::LaplaceOptions l;
  l.curvature = vi::LaplaceCurvature::ggn;
  l.prior_precision = o.prior_precision;
  l.prior = o.prior;
  l.threads = request.settings.threads;
  l.reducer = request.reducer;
  LaplaceEvidence last;
  bool laplace_failed = false;  // the MAP ran to the end, then the approximation failed
  FitOutcome out = run_fit(model, o, request, rng, [&](const vi::PointEstimate& q) {
    try {
      vi::Laplace<vi::FullGaussian> a = vi::laplace(model, q.mean(), l);
      last = {a.log_marginal_likelihood, a.log_likelihood, a.log_det_precision,
              q.mean().squaredNorm(),    a.gradient_norm,  q.dim()};
      return AnyPosterior(std::move(a.posterior));
    } catch (const std::exception&) {
      laplace_failed = true;
      throw;
    }
  });
  if (out.ok) out.evidence = last;
  // A failed MAP is reported as such (issue 22: it read as "Λ is not positive definite").
  if (!out.ok && !laplace_failed)
    out.message = "the MAP fit that Laplace starts from failed: " + out.message;
  return out;
}

// map_laplace with --hyperparameters evidence: MAP by Adam with the options `o` while the prior
// precision of each parameter block and (Gaussian likelihood) τ ascend the Laplace-GGN evidence
// (vi::fit_with_evidence, Immer et al. 2021): after every F = epochs/20 epochs past the first
// quarter, 20 Adam steps of size 0.1 on (log δ_b, log τ) — 15 updates of 21 P×P Cholesky
// factorisations where Immer et al.'s defaults (every epoch, 100 steps) would cost 100 times
// that. Then the full GGN Laplace approximation at the final θ* with the learned δ_b (one per
// parameter) and τ. The epoch hook sees the MAP estimate. Cost: the MAP fit, 15 GGNs over the N
// examples with 315 Cholesky factorisations, and one more GGN and Cholesky at the end.
template <class Model>
FitOutcome fit_evidence_laplace(const Model& model, const vi::MapOptions& o,
                                const FitRequest& request, vi::Rng& rng) {
  if (model.likelihood().template holds<nn::StudentT>())
    throw std::invalid_argument(
        "ngvi::app::fit_method: method map_laplace needs a Gaussian likelihood, not student-t");
  vi::EvidenceMapOptions e;
  e.loop = o.loop;
  e.prior_precision = o.prior_precision;
  e.learning_rate = o.learning_rate;
  e.adam = o.adam;
  e.initial = o.initial;
  e.frequency = std::max<Eigen::Index>(1, o.loop.epochs / 20);
  e.burn_in = o.loop.epochs / 4;
  e.hyper_steps = 20;
  vi::EvidenceFit learned;
  vi::detail::CaptureHyperparameters capture{&learned};
  FitOutcome out = run_fit(model, e, request, rng, AsIs{}, capture);
  if (!out.ok) {
    out.message = "the MAP fit with evidence updates failed: " + out.message;
    return out;
  }
  try {
    const vi::EvidenceHyperparameters& h = learned.hyperparameters;
    vi::LaplaceOptions l;
    l.curvature = vi::LaplaceCurvature::ggn;
    l.prior_precision = o.prior_precision;
    l.prior_precisions = vi::per_parameter_precisions(learned.blocks, h.prior_precisions);
    l.threads = request.settings.threads;
    l.reducer = request.reducer;
    const Eigen::VectorXd theta = mean_of(out.posterior);
    const Model at_tau = std::isnan(h.noise_precision)
                             ? model
                             : Model{model.net(), nn::GaussianFixedNoise(h.noise_precision),
                                     model.shared_data(), model.window()};
    vi::Laplace<vi::FullGaussian> a = vi::laplace(at_tau, theta, l);
    out.evidence = LaplaceEvidence{a.log_marginal_likelihood, a.log_likelihood, a.log_det_precision,
                                   theta.squaredNorm(),       a.gradient_norm,  theta.size()};
    LearnedHyperparameters r;
    for (const nn::Block& b : learned.blocks) {
      r.blocks.push_back(b.name);
      r.sizes.push_back(b.size());
    }
    r.prior_precisions = h.prior_precisions;
    r.noise_precision = h.noise_precision;
    r.log_marginal_likelihood = a.log_marginal_likelihood;
    out.hyperparameters = std::move(r);
    out.posterior = std::move(a.posterior);
  } catch (const std::exception& ex) {
    out.ok = false;
    out.message = ex.what();
  }
  return out;
}

// map_last_layer_laplace: MAP by `options`, handing the hook (and the result) the Laplace
// approximation over the last layer's weights and bias S at the current MAP estimate, the earlier
// layers fixed there (vi::last_layer_laplace, Kristiadi et al. 2020; GGN, prior N(0, δ⁻¹I) on
// θ_S), as a vi::SubnetworkGaussian over all of θ. With settings.hyperparameters = evidence, δ and
// (Gaussian likelihood) τ are then MacKay's fixed point of that approximation's evidence at the
// final θ* (vi::optimize_subnetwork_evidence; post hoc, as laplace-torch's optimisation of the
// marginal likelihood), the returned approximation is at them and the hook sees it at the fitted
// δ and τ. Gaussian or classification likelihoods only, as fit_map_laplace. Cost: the MAP fit, and
// per reported epoch and at the end N recordings with only S as variables (m reverse sweeps each)
// and a P_S×P_S Cholesky; the evidence adds a P_S×P_S Cholesky per MacKay iteration.
template <class Model>
FitOutcome fit_last_layer_laplace(const Model& model, const vi::MapOptions& o,
                                  const FitRequest& request, vi::Rng& rng) {
  if (model.likelihood().template holds<nn::StudentT>())
    throw std::invalid_argument(
        "ngvi::app::fit_method: method map_last_layer_laplace needs a Gaussian likelihood, not "
        "student-t");
  const bool learn = request.settings.hyperparameters == HyperparameterSource::evidence;
  vi::SubnetworkLaplaceOptions l;
  l.curvature = vi::LaplaceCurvature::ggn;
  l.prior_precision = o.prior_precision;
  l.threads = request.settings.threads;
  std::optional<vi::SubnetworkLaplace> last;
  bool laplace_failed = false;  // the MAP ran to the end, then the approximation failed
  FitOutcome out = run_fit(model, o, request, rng, [&](const vi::PointEstimate& q) {
    try {
      last = vi::last_layer_laplace(model, q.mean(), l);
      return AnyPosterior(vi::subnetwork_gaussian(*last));
    } catch (const std::exception&) {
      laplace_failed = true;
      throw;
    }
  });
  if (!out.ok) {
    if (!laplace_failed)
      out.message = "the MAP fit that Laplace starts from failed: " + out.message;
    return out;
  }
  try {
    if (learn) {
      const vi::SubnetworkEvidenceOptimum h = vi::optimize_subnetwork_evidence(*last);
      last = vi::at_hyperparameters(*last, h.prior_precision, h.noise_precision);
      LearnedHyperparameters r;
      r.blocks = {"last_layer"};
      r.sizes = {static_cast<Eigen::Index>(last->indices.size())};
      r.prior_precisions = Eigen::VectorXd::Constant(1, h.prior_precision);
      r.noise_precision = h.noise_precision;
      r.log_marginal_likelihood = h.log_marginal_likelihood;
      out.hyperparameters = std::move(r);
      out.posterior = vi::subnetwork_gaussian(*last);
    }
    const Eigen::VectorXd theta_s = last->posterior.mean();
    out.evidence = LaplaceEvidence{last->log_marginal_likelihood, last->log_likelihood,
                                   last->log_det_precision,       theta_s.squaredNorm(),
                                   last->gradient_norm,           theta_s.size()};
  } catch (const std::exception& ex) {
    out.ok = false;
    out.message = ex.what();
  }
  return out;
}

// A VI method with --hyperparameters evidence or noise: vi::fit_with_empirical_bayes (variational
// EM, inference/empirical_bayes.hpp) with the options `o`. After every F = epochs/20 epochs past
// the first quarter, as fit_evidence_laplace's updates: `evidence` sets δ_b = P_b/(‖μ_b‖² + tr Σ_b)
// per parameter block and τ = N·d/E_q[Σ‖yᵢ − fᵢ‖²] (16 draws from q); `noise` keeps δ and sets
// τ to the mean of q(τ) = Gam(6 + N·d/2, 6 + ½E_q[…]) (Zhang et al. 2018, Appendix C.1). The
// epoch hook sees q on the way. A checkpoint file would not hold δ and τ, so neither --checkpoint
// nor --resume is taken (UsageError). Cost: the method's fit, plus per update q's marginal
// variances and 16 full-data losses. Its checkpoints hold the learned δ and τ, the updates so
// far and the M-step's generator, and request.resume continues the run from one of them
// (vi::resume_with_empirical_bayes); a checkpoint of a run without them, or of another method,
// throws UsageError before the run.
template <class Model, class Options>
FitOutcome fit_empirical_bayes(const Model& model, const Options& o, const FitRequest& request,
                               vi::Rng& rng) {
  const HyperparameterSource source = request.settings.hyperparameters;
  if (request.resume) {
    if (request.resume->method != Options::name)
      throw UsageError("the checkpoint to resume is of method '" + request.resume->method +
                       "', not '" + Options::name + "'");
    if (request.resume->hyperparameters.empty())
      throw UsageError(std::string("the checkpoint to resume is of a run without "
                                   "--hyperparameters; --hyperparameters ") +
                       hyperparameters_setting_name(source) +
                       " resumes only its own checkpoints, which hold the learned δ and τ");
    check_resume_fits(model, o, *request.resume);
  }
  vi::EmpiricalBayesOptions eb;
  eb.frequency = std::max<Eigen::Index>(1, o.loop.epochs / 20);
  eb.burn_in = o.loop.epochs / 4;
  if (source == HyperparameterSource::noise) {
    eb.learn_prior_precisions = false;
    eb.noise_prior_shape = 6.0;
    eb.noise_prior_rate = 6.0;
  }
  if (request.resume) {
    try {
      vi::check_resume_with_empirical_bayes(model, o, eb, *request.resume);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("the checkpoint to resume does not fit this run: ") + e.what());
    }
  }
  const Eigen::Index m = o.loop.minibatch > 0 ? o.loop.minibatch : model.num_examples();
  const auto t0 = std::chrono::steady_clock::now();
  FitOutcome out;
  try {
    EpochReporter<AsIs> reporter{request, (model.num_examples() + m - 1) / m, AsIs{}};
    io::Checkpointer checkpointer{request.checkpoint, request.checkpoint_every,
                                  checkpoint_fingerprint(model, request)};
    auto r =
        request.resume
            ? vi::resume_with_empirical_bayes(model, o, eb, *request.resume, reporter, checkpointer)
            : vi::fit_with_empirical_bayes(model, o, eb, rng, reporter, checkpointer);
    out.ok = r.fit.ok();
    out.message = r.fit.message;
    out.posterior = AnyPosterior(std::move(r.fit.posterior));
    LearnedHyperparameters h;
    h.source = hyperparameters_setting_name(source);
    for (const nn::Block& b : r.blocks) {
      h.blocks.push_back(b.name);
      h.sizes.push_back(b.size());
    }
    h.prior_precisions = r.hyperparameters.prior_precisions;
    h.noise_precision = r.hyperparameters.noise_precision;
    h.log_marginal_likelihood = std::numeric_limits<double>::quiet_NaN();
    if (out.ok) out.hyperparameters = std::move(h);
  } catch (const std::exception& e) {
    out.ok = false;
    out.message = e.what();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace ngvi::app::detail
