// fit(model, options, rng, callbacks...): the one loop every method in ngvi::vi runs in.
//
// ensmallen-shaped: the options type names its method, the method does one step at a time, and
// everything around the steps is here, written once:
//   for each epoch: shuffle (MinibatchSampler; stratified over the row blocks when the reducer
//   sums by data rows, batch_reducer.hpp), and for each minibatch B:
//     method.step(B)                — one update of q (VON, VOGN, IVON, ... each in its header)
//     check μ and the precision are finite, else stop with the last good q (status `failed`,
//       the message naming the iteration and the parameter block); a step that throws
//       StepFailure (step_failure.hpp) stops the same way, with the step's message
//     every history_every iterations: a HistoryRow (ELBO by Monte Carlo on a separate random
//       stream, so that recording history never changes the training draws); a row whose
//       losses are not finite, or whose training loss has run away from its start and its best
//       (LoopOptions::divergence, loop_options.hpp), stops the run as diverged with the q of
//       the last good row
//     callbacks (optional hooks, resolved at compile time): on_begin, on_history (may add
//       held-out metrics to the row), on_iteration (returns true to stop), on_end.
// resume(model, options, checkpoint, callbacks...) continues a run from a FitCheckpoint bitwise
// identically to the uninterrupted run.
//
// A method is a class constructed as Method(model, options, rng) with the members checked by
// require_method<M>() below; its options struct names it with
// `template <class Model> using method = ...;` and the family of q it fits with
// `using posterior_type = ...;` (the method's own posterior_type), gives
// `static constexpr const char* name`, and has `LoopOptions loop` and `double prior_precision`
// (δ of the prior N(0, δ⁻¹I)), optionally `double kl_weight` (λ, default 1) and
// `std::optional<GaussianPrior> prior` (gaussian_prior.hpp: when set, the prior N(μ₀, Λ₀⁻¹) in
// place of N(0, δ⁻¹I), e.g. an earlier fit's posterior; the history's KL is then to it, and an
// isotropic one is run as prior_precision = δ, bit for bit). The options live in
// a header of their own where a program may call a compiled fit (von_options.hpp, ...;
// fit_declaration.hpp).
#pragma once

#include <chrono>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <inference/checkpoint.hpp>
#include <inference/elbo.hpp>
#include <inference/fit_declaration.hpp>
#include <inference/fit_result.hpp>
#include <inference/loop_options.hpp>
#include <inference/minibatch.hpp>
#include <inference/option_checks.hpp>
#include <inference/random.hpp>
#include <inference/step_failure.hpp>
#include <nn/model_concept.hpp>

namespace ngvi::vi {

// What one step sees.
struct StepInput {
  std::span<const Eigen::Index> batch;    // the minibatch, indices into the model's examples
  Eigen::Index iteration = 0;             // 1-based
  Eigen::Index num_examples = 0;          // N
  ad::ParallelOptions parallel{};         // for the per-example work
  const BatchReducer* reducer = nullptr;  // how to sum over the batch (loop_options.hpp)
};

// Where a method's state first stopped being finite: index into θ and which quantity.
struct NonFinite {
  Eigen::Index index = 0;
  std::string quantity;  // "mean", "precision", ...
};

// The index of the first non-finite entry of v, if any. Cost: O(size).
template <class Derived>
std::optional<Eigen::Index> first_non_finite_entry(const Eigen::DenseBase<Derived>& v) {
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (!std::isfinite(v.derived().coeff(i))) return i;
  return std::nullopt;
}

template <class M>
constexpr bool require_method() {
  static_assert(
      requires { typename M::posterior_type; },
      "ngvi::vi: a method needs `using posterior_type = ...;` (the family of q it fits)");
  static_assert(
      requires(M & m, const StepInput& in, Rng& rng, Counters& c) { m.step(in, rng, c); },
      "ngvi::vi: a method needs `void step(const StepInput&, Rng&, Counters&)`, one update of q");
  static_assert(
      requires(const M& m) {
        { m.posterior() } -> std::convertible_to<typename M::posterior_type>;
      },
      "ngvi::vi: a method needs `posterior_type posterior() const`, the current q");
  static_assert(
      requires(const M& m) {
        { m.state() } -> std::convertible_to<NamedArrays>;
      },
      "ngvi::vi: a method needs `NamedArrays state() const` (everything a checkpoint must "
      "restore)");
  static_assert(
      requires(M & m, const NamedArrays& s) { m.restore(s); },
      "ngvi::vi: a method needs `void restore(const NamedArrays&)`, the inverse of state()");
  static_assert(
      requires(const M& m) {
        { m.first_non_finite() } -> std::same_as<std::optional<NonFinite>>;
      },
      "ngvi::vi: a method needs `std::optional<NonFinite> first_non_finite() const`");
  return true;
}

template <class Options>
constexpr bool require_method_options() {
  static_assert(
      requires(const Options& o) {
        { o.loop } -> std::convertible_to<LoopOptions>;
      },
      "ngvi::vi: method options need a `LoopOptions loop` member");
  static_assert(
      requires(const Options& o) {
        { o.prior_precision } -> std::convertible_to<double>;
      },
      "ngvi::vi: method options need `double prior_precision` (δ of the prior N(0, δ⁻¹I))");
  static_assert(
      requires {
        { Options::name } -> std::convertible_to<const char*>;
      },
      "ngvi::vi: method options need `static constexpr const char* name`");
  static_assert(
      requires { typename Options::posterior_type; },
      "ngvi::vi: method options need `using posterior_type = ...;` (the family of q their method "
      "fits, fit's result type)");
  return true;
}

// λ of the options, 1 if they have no kl_weight.
template <class Options>
double kl_weight_of(const Options& o) {
  if constexpr (requires {
                  { o.kl_weight } -> std::convertible_to<double>;
                })
    return o.kl_weight;
  else
    return 1.0;
}

// The options a method runs with: a `prior` checked against the model's P parameters, and an
// isotropic one folded into prior_precision (so that GaussianPrior::isotropic(δ) runs the code of
// prior_precision = δ, bit for bit). Throws std::invalid_argument naming `who` for a prior of
// another dimension. Cost: a copy of the options.
template <class Options>
Options with_prior_resolved(const Options& given, Eigen::Index p, const std::string& who) {
  Options o = given;
  if constexpr (requires { o.prior->isotropic_precision(); }) {
    if (o.prior) {
      o.prior->check_dim(p, who);
      if (const std::optional<double> delta = o.prior->isotropic_precision()) {
        o.prior_precision = *delta;
        o.prior.reset();
      }
    }
  }
  return o;
}

// KL(q ‖ p₀) of a history row: to the options' `prior` when one is set, else to N(0, δ⁻¹I).
template <class Options, class Q>
double history_kl(const Options& o, const Q& q) {
  if constexpr (requires { o.prior->kl(q); })
    if (o.prior) return o.prior->kl(q);
  return q.kl_to_prior(o.prior_precision);
}

// The ELBO estimate of a history row: KL to the options' `prior` when one is set, else to
// N(0, δ⁻¹I). Cost: that of estimate_elbo.
template <class Model, class Options, class Q>
ElboEstimate history_elbo(const Model& model, const Options& o, const Q& q, double kl_weight,
                          Rng& rng) {
  if constexpr (requires { o.prior->kl(q); })
    if (o.prior) return estimate_elbo(model, q, *o.prior, kl_weight, o.loop.elbo_samples, rng);
  return estimate_elbo(model, q, o.prior_precision, kl_weight, o.loop.elbo_samples, rng);
}

// A starting mean: the model's own initialisation if it has one (Supervised draws the network's
// weights), else zeros. Cost: that of model.init, or O(P).
template <class Model>
Eigen::VectorXd initial_mean(const Model& model, Rng& rng) {
  Eigen::VectorXd theta;
  if constexpr (requires { model.init(theta, rng); })
    model.init(theta, rng);
  else
    theta = Eigen::VectorXd::Zero(model.num_params());
  return theta;
}

// "dense0.weight[3, 1] (θ index 12)" if the model names its blocks, else "θ index 12".
template <class Model>
std::string describe_parameter(const Model& model, Eigen::Index p) {
  if constexpr (requires { model.layout().describe(p); })
    return model.layout().describe(p) + " (θ index " + std::to_string(p) + ")";
  else
    return "θ index " + std::to_string(p);
}

// The state of the divergence rule (DivergenceRule, loop_options.hpp) along a run: the start's
// per-example training loss ℓ₀, the best ℓ* so far and how many rows in a row have exploded.
// A resumed run rebuilds it by replaying the checkpoint's history rows through see().
struct DivergenceWatch {
  DivergenceRule rule;
  double start = 0.0;
  double best = 0.0;
  Eigen::Index exploded_in_a_row = 0;

  DivergenceWatch(const DivergenceRule& r, double start_loss)
      : rule(r), start(start_loss), best(start_loss) {}
  // Takes a history row's per-example loss; returns whether it exploded.
  bool see(double loss) {
    const bool exploded = rule.exploded(loss, start, best);
    exploded_in_a_row = exploded ? exploded_in_a_row + 1 : 0;
    if (!exploded && loss < best) best = loss;
    return exploded;
  }
};

// A number for a message: 6 significant digits ("1.4e+14", "0.523").
inline std::string message_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// Σᵢ ℓᵢ(θₛ) over all N examples for each θₛ of `thetas`, summed as a step sums its minibatch
// (sum_over_batch, batch_reducer.hpp) through `reducer`. Cost: one batched forward pass over the
// N examples per θₛ (N example_loss calls for a model without batch_loss), plus the reducer's
// exchange of |thetas| numbers per block.
template <class Model>
Eigen::VectorXd reduced_total_nlls(const Model& model, const std::vector<Eigen::VectorXd>& thetas,
                                   const BatchReducer& reducer,
                                   const ad::ParallelOptions& parallel) {
  const AddContributions add = [&](std::span<const Eigen::Index> examples,
                                   const ad::ParallelOptions&, Eigen::VectorXd& acc) {
    for (std::size_t s = 0; s < thetas.size(); ++s) {
      const auto k = static_cast<Eigen::Index>(s);
      if constexpr (requires {
                      { model.batch_loss(thetas[s], examples) } -> std::convertible_to<double>;
                    }) {
        acc(k) += model.batch_loss(thetas[s], examples);
      } else {
        for (const Eigen::Index i : examples) acc(k) += model.example_loss(thetas[s], i);
      }
    }
  };
  return reducer.sum_all(model.num_examples(), static_cast<Eigen::Index>(thetas.size()), parallel,
                         add);
}

// Σᵢ ℓᵢ(θ) over all N examples: through `reducer` when there is one (reduced_total_nlls), so
// that a loss that throws on one MPI rank stops every rank together instead of leaving the
// others waiting; total_nll otherwise. Cost: as reduced_total_nlls for one θ.
template <class Model>
double reduced_total_nll(const Model& model, const Eigen::VectorXd& theta,
                         const BatchReducer* reducer, const ad::ParallelOptions& parallel) {
  if (reducer == nullptr) return total_nll(model, theta);
  return reduced_total_nlls(model, {theta}, *reducer, parallel)(0);
}

// A history row's ELBO estimate and Σᵢ ℓᵢ at q's mean. With a reducer by data rows (a process
// may hold only its rows) both data terms go through it, in one sum: E_q[Σᵢ ℓᵢ] as the average
// over the S draws θₛ ~ q (from `rng`, as estimate_elbo draws them) and the loss at the mean;
// otherwise history_elbo and total_nll. Cost: S + 1 full-data losses.
template <class Model, class Options, class Q>
std::pair<ElboEstimate, double> history_losses(const Model& model, const Options& o, const Q& q,
                                               double kl_weight, Rng& rng) {
  const BatchReducer* reducer = o.loop.reducer.get();
  if (reducer == nullptr || reducer->row_blocks() == nullptr)
    return {history_elbo(model, o, q, kl_weight, rng), total_nll(model, q.mean())};
  const int samples = o.loop.elbo_samples;
  std::vector<Eigen::VectorXd> thetas;
  for (int s = 0; s < samples; ++s) thetas.push_back(q.sample(rng));
  thetas.push_back(q.mean());
  const Eigen::VectorXd l =
      reduced_total_nlls(model, thetas, *reducer, ad::parallel_options(o.loop));
  ElboEstimate e;
  for (int s = 0; s < samples; ++s) e.expected_nll += l(s);
  e.expected_nll = samples == 0 ? l(samples) : e.expected_nll / samples;
  e.kl = history_kl(o, q);
  e.elbo = -e.expected_nll - kl_weight * e.kl;
  return {e, l(samples)};
}

// What callbacks see: the loop's position, the method, the history so far.
template <class Model, class Method>
class LoopContext {
 public:
  using posterior_type = typename Method::posterior_type;

  const Model& model() const { return model_; }
  const Method& method() const { return method_; }
  // The current q. Cost: that of method().posterior() (a Cholesky for full covariance).
  posterior_type posterior() const { return method_.posterior(); }
  Eigen::Index iteration() const { return iteration_; }
  Eigen::Index epoch() const { return epoch_; }
  Eigen::Index total_iterations() const { return total_; }
  double prior_precision() const { return prior_precision_; }
  double kl_weight() const { return kl_weight_; }
  const std::vector<HistoryRow>& history() const { return history_; }
  const Counters& counters() const { return counters_; }
  // Everything needed to resume from here. Cost: a copy of the method state and the history.
  FitCheckpoint checkpoint() const {
    FitCheckpoint c;
    c.method = method_name_;
    c.iteration = iteration_;
    c.epoch = epoch_;
    c.order = sampler_.order();
    c.position = sampler_.position();
    if (sampler_.stratified()) c.sampler_key = sampler_.key();
    c.rng = save_rng(rng_);
    c.eval_rng = save_rng(eval_rng_);
    c.state = method_.state();
    c.history = history_;
    c.counters = counters_;
    c.start_train_nll = start_train_nll_;
    if (addition_ != nullptr) {
      c.hyperparameters = *addition_->hyperparameters;
      c.hyperparameter_rng = *addition_->rng;
    }
    return c;
  }

 private:
  template <class M, class O, class... C>
  friend auto run_fit_loop(const M&, const O&, Rng&, Rng&, const FitCheckpoint*, C&&...);

  LoopContext(const Model& model, Method& method, MinibatchSampler& sampler, Rng& rng,
              Rng& eval_rng, std::string method_name, double delta, double lambda)
      : model_(model),
        method_(method),
        sampler_(sampler),
        rng_(rng),
        eval_rng_(eval_rng),
        method_name_(std::move(method_name)),
        prior_precision_(delta),
        kl_weight_(lambda) {}

  const Model& model_;
  Method& method_;
  MinibatchSampler& sampler_;
  Rng& rng_;
  Rng& eval_rng_;
  std::string method_name_;
  double prior_precision_;
  double kl_weight_;
  Eigen::Index iteration_ = 0;
  Eigen::Index epoch_ = 0;
  Eigen::Index total_ = 0;
  double start_train_nll_ = 0.0;  // Σᵢ ℓᵢ at the initial mean (the divergence rule's start)
  std::vector<HistoryRow> history_;
  Counters counters_;
  const CheckpointAddition* addition_ = nullptr;  // a callback's state for checkpoints, if any
};

template <class Model, class Options, class... Callbacks>
auto run_fit_loop(const Model& model, const Options& given, Rng& rng, Rng& eval_rng,
                  const FitCheckpoint* from, Callbacks&&... callbacks) {
  using Method = typename Options::template method<Model>;
  static_assert(require_method<Method>());
  using Q = typename Method::posterior_type;
  static_assert(std::same_as<Q, typename Options::posterior_type>,
                "ngvi::vi: a method's posterior_type must be its options' posterior_type");
  const std::string who = std::string("ngvi::vi::fit(") + Options::name + ")";
  const Options options = with_prior_resolved(given, model.num_params(), who);
  const LoopOptions& loop = options.loop;
  loop.validate(who);
  detail::check_positive_finite(who, "prior_precision", options.prior_precision);
  const Eigen::Index n = model.num_examples();
  if (n <= 0) throw std::invalid_argument(who + ": the model has no examples");
  if (loop.minibatch > n)
    throw std::invalid_argument(who + ": minibatch size " + std::to_string(loop.minibatch) +
                                " exceeds the number of examples N = " + std::to_string(n) +
                                " (use 0 for full batch)");

  Rng scratch;  // a resumed method's initial draws are overwritten by the checkpoint's state
  const RowBlocks* by_rows = loop.reducer ? loop.reducer->row_blocks() : nullptr;
  if (by_rows != nullptr && by_rows->rows() != n)
    throw std::invalid_argument(who + ": the reducer's row blocks cover " +
                                std::to_string(by_rows->rows()) +
                                " examples, but the model has N = " + std::to_string(n));
  Method method(model, options, from ? scratch : rng);
  MinibatchSampler sampler = by_rows != nullptr ? MinibatchSampler(*by_rows, loop.minibatch)
                                                : MinibatchSampler(n, loop.minibatch);
  LoopContext<Model, Method> ctx(model, method, sampler, rng, eval_rng, Options::name,
                                 options.prior_precision, kl_weight_of(options));
  ctx.total_ = loop.total_iterations(who, sampler.batches_per_epoch());
  const auto start_nll = [&] {
    return reduced_total_nll(model, method.posterior().mean(), loop.reducer.get(),
                             ad::parallel_options(loop));
  };
  if (!from) ctx.start_train_nll_ = start_nll();
  if (from) {
    if (from->method != Options::name)
      throw std::invalid_argument(who + ": the checkpoint is of method '" + from->method + "'");
    method.restore(from->state);
    if (sampler.stratified() != from->sampler_key.has_value())
      throw std::invalid_argument(
          who + ": the checkpoint's minibatches were drawn " +
          (from->sampler_key ? "stratified over row blocks" : "from a permutation of all rows") +
          ", this run's reducer " +
          (sampler.stratified() ? "sums by data rows" : "does not sum by data rows"));
    if (from->sampler_key)
      sampler.restore_stratified(*from->sampler_key, from->position);
    else
      sampler.restore(from->order, from->position);
    ctx.iteration_ = from->iteration;
    ctx.epoch_ = from->epoch;
    ctx.history_ = from->history;
    ctx.counters_ = from->counters;
    // A checkpoint without the start's loss (written before it was saved) starts the rule at
    // its first history row, or here.
    if (!std::isnan(from->start_train_nll))
      ctx.start_train_nll_ = from->start_train_nll;
    else if (!from->history.empty())
      ctx.start_train_nll_ = from->history.front().train_nll;
    else
      ctx.start_train_nll_ = start_nll();
  }
  const double per_example = 1.0 / static_cast<double>(n);
  DivergenceWatch watch(loop.divergence, ctx.start_train_nll_ * per_example);
  for (const HistoryRow& row : ctx.history_) watch.see(row.train_nll * per_example);

  auto each = [&](auto&& f) { (f(callbacks), ...); };
  each([&](auto& cb) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(cb)>, CheckpointAddition>)
      ctx.addition_ = &cb;
  });
  each([&](auto& cb) {
    if constexpr (requires { cb.on_begin(ctx); }) cb.on_begin(ctx);
  });

  FitResult<Q> result{};
  const StepInput base{{}, 0, n, ad::parallel_options(loop), loop.reducer.get()};
  // The state at the last good history row (finite losses, not exploded), to return if the fit
  // diverges with finite parameters: one copy of the state per history row.
  NamedArrays last_good_row = method.state();
  Eigen::Index last_good_row_iteration = ctx.iteration_;
  while (ctx.iteration_ < ctx.total_) {
    const auto t0 = std::chrono::steady_clock::now();
    if (sampler.epoch_finished()) ++ctx.epoch_;
    StepInput in = base;
    in.batch = sampler.next(rng);
    in.iteration = ++ctx.iteration_;
    NamedArrays last_good = method.state();
    try {
      method.step(in, rng, ctx.counters_);
    } catch (const StepFailure& e) {
      method.restore(last_good);
      result.status = FitStatus::failed;
      result.message = std::string(e.what()) +
                       "; the posterior is the last good one, from iteration " +
                       std::to_string(ctx.iteration_ - 1);
      break;
    }
    ++ctx.counters_.steps;
    ctx.counters_.seconds_total +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (const std::optional<NonFinite> bad = method.first_non_finite()) {
      method.restore(last_good);
      result.status = FitStatus::failed;
      result.message =
          who + ": at iteration " + std::to_string(ctx.iteration_) + " the " + bad->quantity +
          " of " + describe_parameter(model, bad->index) +
          " became non-finite (a step size too large for this problem?); the posterior is the "
          "last finite one, from iteration " +
          std::to_string(ctx.iteration_ - 1);
      break;
    }
    const bool last = ctx.iteration_ == ctx.total_;
    const bool row_due = loop.history_every > 0 ? ctx.iteration_ % loop.history_every == 0
                                                : sampler.epoch_finished();
    if (row_due || last) {
      const Q q = method.posterior();
      const auto [e, train_nll] = history_losses(model, options, q, ctx.kl_weight_, eval_rng);
      HistoryRow row;
      row.iteration = ctx.iteration_;
      row.epoch = ctx.epoch_;
      row.elbo = e.elbo;
      row.expected_nll = e.expected_nll;
      row.kl = e.kl;
      row.train_nll = train_nll;
      row.seconds = ctx.counters_.seconds_total;
      // The expected loss overflowed although every parameter is finite. (A point estimate's
      // KL, and so its ELBO, is infinite by definition: only the expected NLL counts.)
      const bool nll_overflow = !std::isfinite(row.train_nll);
      if (nll_overflow || !std::isfinite(row.expected_nll)) {
        method.restore(last_good_row);
        result.status = FitStatus::failed;
        result.message =
            who + ": the fit diverged: at iteration " + std::to_string(ctx.iteration_) + " the " +
            (nll_overflow ? "training loss at the posterior mean"
                          : "expected training loss (ELBO estimate)") +
            " is not finite although every parameter is (a step size too large for this "
            "problem?); the posterior is the one of iteration " +
            std::to_string(last_good_row_iteration) + ", the last good history row";
        break;
      }
      const double loss = row.train_nll * per_example, best = watch.best;
      if (watch.see(loss) &&
          (watch.exploded_in_a_row >= loop.divergence.patience || ctx.iteration_ == ctx.total_)) {
        method.restore(last_good_row);
        result.status = FitStatus::failed;
        result.message =
            who + ": the fit diverged: at iteration " + std::to_string(ctx.iteration_) +
            " the training loss at the posterior mean is " + message_number(loss) +
            " per example, more than " + message_number(loop.divergence.factor) +
            " times its scale above its best, " + message_number(best) + " (at the start " +
            message_number(watch.start) + "), on " + std::to_string(watch.exploded_in_a_row) +
            " consecutive history row" + (watch.exploded_in_a_row == 1 ? "" : "s") +
            (watch.exploded_in_a_row < loop.divergence.patience ? " ending the run" : "") +
            " (loop.divergence; a step size too large for this problem?); the posterior is the "
            "one of iteration " +
            std::to_string(last_good_row_iteration) + ", the last good history row";
        break;
      }
      if (watch.exploded_in_a_row == 0) {
        last_good_row = method.state();
        last_good_row_iteration = ctx.iteration_;
      }
      each([&](auto& cb) {
        if constexpr (requires { cb.on_history(row, ctx); }) cb.on_history(row, ctx);
      });
      ctx.history_.push_back(std::move(row));
    }
    bool stop = false;
    each([&](auto& cb) {
      if constexpr (requires {
                      { cb.on_iteration(ctx) } -> std::convertible_to<bool>;
                    })
        stop = cb.on_iteration(ctx) || stop;
    });
    if (stop) {
      result.status = FitStatus::stopped_early;
      result.message =
          who + ": stopped by a callback at iteration " + std::to_string(ctx.iteration_);
      break;
    }
  }
  result.posterior = method.posterior();
  result.history = ctx.history_;
  result.counters = ctx.counters_;
  each([&](auto& cb) {
    if constexpr (requires { cb.on_end(ctx, result); }) cb.on_end(ctx, result);
  });
  return result;
}

// Fits q to model by the method the options name, drawing from rng (advanced as the run draws).
// Throws std::invalid_argument for bad options or data (naming the field); a numerical failure
// is reported in the result instead (see fit_result.hpp). Cost: the method's step times the
// iterations, plus (elbo_samples + 1) full-data losses per history row.
template <class Model, class Options, class... Callbacks>
fit_result_t<Model, Options> fit(const Model& model, const Options& options, Rng& rng,
                                 Callbacks&&... callbacks) {
  static_assert(nn::require_separable_model<Model>());
  static_assert(require_method_options<Options>());
  Rng eval_rng(rng());  // the history's own stream, split off once
  return run_fit_loop(model, options, rng, eval_rng, nullptr,
                      std::forward<Callbacks>(callbacks)...);
}

// Continues the run saved in `checkpoint` with the same options (epochs may be raised to run
// longer). The result is bitwise that of the uninterrupted run. Throws std::invalid_argument if
// the checkpoint is of another method or does not fit the model.
template <class Model, class Options, class... Callbacks>
fit_result_t<Model, Options> resume(const Model& model, const Options& options,
                                    const FitCheckpoint& checkpoint, Callbacks&&... callbacks) {
  static_assert(nn::require_separable_model<Model>());
  static_assert(require_method_options<Options>());
  Rng rng = load_rng(checkpoint.rng);
  Rng eval_rng = load_rng(checkpoint.eval_rng);
  return run_fit_loop(model, options, rng, eval_rng, &checkpoint,
                      std::forward<Callbacks>(callbacks)...);
}

}  // namespace ngvi::vi
