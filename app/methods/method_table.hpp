// The method table: every method the tool runs, one row each, read by `ngvi fit`, `ngvi uci` and
// `ngvi study`.
//
// A row is a library method's options struct (inference/*.hpp) with
//   info   its name, label, colour, description and the command line's defaults (MethodInfo,
//          app/methods/method_info.hpp); the name is the options' Options::name, or extends it
//          for a row that runs the method with other settings (the study's variants);
//   tool   how `ngvi fit` and `ngvi uci` set it: called with the options already holding the
//          tool's loop (epochs, minibatch, threads), δ and step size of the mean
//          (MethodSettings, app/methods/method_settings.hpp), it sets the rest;
//   study  how `ngvi study` sets it: called with the options holding the problem's loop and δ,
//          and the problem (study::ProblemSetup, app/study/problem_setup.hpp; generic here, so
//          that this header does not include the study's), it sets the rest.
// A command that has no mapping (NotRun) does not run the row. Adding a method is its library
// header and a row here: fit_method (app/methods/fit_method.cpp) and the study's suite
// (app/study/method_suite.cpp) run every row by these mappings, and the commands' names, help,
// labels and colours come from its info. (A method whose posterior is of a family the tool does
// not hold yet needs that family in AnyPosterior too, app/methods/any_posterior.hpp.) The common
// part of both mappings relies on the library's convention for options structs: `loop`,
// `prior_precision`, and the mean's step size as `mean_rate` or `learning_rate`.
//
// The order of the rows is the order of --help, of the study's tables and of results.json, and
// each row's colour is the same in every plot. The tool and the study set some methods differently,
// each for its reason (given in the row): a user of `ngvi fit` gets the settings tuned on Boston,
// the study shows the library's defaults.
//
// Included by the files that instantiate the methods (method_table.cpp, fit_method.cpp,
// app/study/method_suite.cpp); every other file of the tool reads the table through
// method_info.hpp.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <app/methods/method_info.hpp>
#include <app/methods/method_settings.hpp>

#include <inference/bayes_by_backprop.hpp>
#include <inference/ivon.hpp>
#include <inference/map.hpp>
#include <inference/noisy_adam.hpp>
#include <inference/noisy_kfac.hpp>
#include <inference/schedule.hpp>
#include <inference/slang.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>

namespace ngvi::app {

// The mapping of a command that does not run the row.
struct NotRun {};

template <class Options, class Tool, class Study>
struct MethodRow {
  using options_type = Options;
  using tool_type = Tool;
  using study_type = Study;
  MethodInfo info;
  Tool tool;
  Study study;
};

// A row of the table; info.in_tool and info.in_study say which mappings it has.
template <class Options, class Tool = NotRun, class Study = NotRun>
MethodRow<Options, Tool, Study> method_row(MethodInfo info, Tool tool = {}, Study study = {}) {
  info.in_tool = !std::is_same_v<Tool, NotRun>;
  info.in_study = !std::is_same_v<Study, NotRun>;
  return {std::move(info), tool, study};
}

// The study's VON and VOGN: α = β = its natural step with its decay (the pure natural-gradient
// rule) and S Monte-Carlo samples, from the problem's StepSizes.
inline constexpr auto study_natural_rates = [](auto& o, const auto& s) {
  o.mean_rate = vi::Schedule{s.steps.natural, s.steps.natural_decay};
  o.precision_rate = vi::Schedule{s.steps.natural, s.steps.natural_decay};
  o.mc_samples = s.steps.natural_mc_samples;
};

// The study's SLANG of rank L, with the GGN as the study's full-covariance VOGN and its diagonal
// VOGN (GGN) use it: the rungs between them of the covariance ladder diagonal → K-FAC → low rank
// → full, on the problems of at least 4L parameters.
inline auto slang_study_row(Eigen::Index rank, const char* color) {
  const std::string l = std::to_string(rank);
  return method_row<vi::SlangOptions>(
      {.name = std::string(vi::SlangOptions::name) + "_rank_" + l,
       .label = "SLANG (L = " + l + ")",
       .color = color,
       .what = "SLANG (Mishkin et al. 2018) with the GGN and a precision UUᵀ + diag(d) of rank "
               "L = " +
               l + ", on the problems of at least 4L parameters.",
       .min_parameters = 4 * rank},
      NotRun{}, [rank](auto& o, const auto& s) {
        study_natural_rates(o, s);
        o.curvature = vi::VognCurvature::ggn;
        o.rank = rank;
      });
}

// The tool's defaults (epochs, step size) are where each method's validation log-likelihood on
// Boston's inner split stopped improving, and the PyTorch reference's tuned step sizes.
inline const auto& method_rows() {
  static const auto rows = std::tuple{
      method_row<vi::VognOptions>(
          {.name = vi::VognOptions::name,
           .label = "VOGN",
           .color = "#ffbb78",
           .what = "Variational online Gauss-Newton, diagonal (Khan et al. 2018), with the "
                   "curvature --vogn-curvature names (the empirical Fisher by default).",
           .epochs = 200,
           .learning_rate = 0.01},  // the PyTorch reference's tuned α
          [](vi::VognOptions& o, const MethodSettings& s) {
            // β = 0.01: the PyTorch reference's tuned curvature rate; s₀ = 1 as in its VOGN.
            o.precision_rate = {0.01};
            o.curvature = s.vogn_curvature;
          }),
      method_row<vi::VonOptions>(
          {.name = vi::VonOptions::name,
           .label = "VON (full)",
           .color = "#1f77b4",
           .what = "Variational online Newton: natural-gradient VI with a full-covariance "
                   "Gaussian and the exact minibatch Hessian at a sample θ ~ q (Khan et al. "
                   "2018); negative Hessian eigenvalues are clipped at 0 so the precision stays "
                   "positive definite.",
           .epochs = 40,
           .learning_rate = 0.1,  // the PyTorch reference's tuned α for VON
           .full_covariance = true},
          [](vi::VonOptions& o, const MethodSettings& s) {
            o.precision_rate = {0.01};  // the reference's tuned (α, β) = (0.1, 0.01)
            o.remedy = s.von_remedy;
          },
          study_natural_rates),
      method_row<vi::DiagonalVonOptions>(
          {.name = vi::DiagonalVonOptions::name,
           .label = "VON (diagonal)",
           .color = "#aec7e8",
           .what = "VON on the mean-field family: the same update with the Hessian's diagonal."},
          NotRun{}, study_natural_rates),
      method_row<vi::FullVognOptions>(
          {.name = std::string(vi::FullVognOptions::name) + "_ggn",
           .label = "VOGN full (GGN)",
           .color = "#ff7f0e",
           .what = "Variational online Gauss-Newton with a full covariance and the generalized "
                   "Gauss-Newton matrix JᵀH_LJ in place of the Hessian (Khan et al. 2018; "
                   "Martens 2020).",
           .full_covariance = true},
          NotRun{},
          [](auto& o, const auto& s) {
            study_natural_rates(o, s);
            o.curvature = vi::VognCurvature::ggn;
          }),
      method_row<vi::VognOptions>({.name = std::string(vi::VognOptions::name) + "_ggn",
                                   .label = "VOGN (GGN)",
                                   .color = "#d62728",
                                   .what = "Diagonal VOGN with the GGN's diagonal."},
                                  NotRun{},
                                  [](auto& o, const auto& s) {
                                    study_natural_rates(o, s);
                                    o.curvature = vi::VognCurvature::ggn;
                                  }),
      method_row<vi::VognOptions>(
          {.name = std::string(vi::VognOptions::name) + "_empirical_fisher",
           .label = "VOGN (emp. Fisher)",
           .color = "#ff9896",
           .what = "Diagonal VOGN with the empirical Fisher: squared per-example gradients of "
                   "the observed targets (the original VOGN, Khan et al. 2018)."},
          NotRun{},
          [](auto& o, const auto& s) {
            study_natural_rates(o, s);
            o.curvature = vi::VognCurvature::empirical_fisher;
          }),
      method_row<vi::VognOptions>(
          {.name = std::string(vi::VognOptions::name) + "_mc_fisher",
           .label = "VOGN (MC Fisher)",
           .color = "#9467bd",
           .what = "Diagonal VOGN with the Monte-Carlo true Fisher: squared per-example "
                   "gradients for targets sampled from the model (Zhang et al. 2018)."},
          NotRun{},
          [](auto& o, const auto& s) {
            study_natural_rates(o, s);
            o.curvature = vi::VognCurvature::mc_fisher;
          }),
      method_row<vi::SlangOptions>(
          {.name = vi::SlangOptions::name,
           .label = "SLANG",
           .color = "#c49c94",
           .what = "Stochastic low-rank approximate natural gradient (Mishkin et al. 2018): "
                   "VOGN whose precision is UUᵀ + diag(d), U of rank --slang-rank, updated "
                   "through a randomized eigendecomposition of the minibatch's curvature.",
           // VOGN's: SLANG with L = 0 is diagonal VOGN, and its defaults were not tuned apart.
           .epochs = 200,
           .learning_rate = 0.01},
          [](vi::SlangOptions& o, const MethodSettings& s) {
            o.precision_rate = {0.01};  // VOGN's tuned β
            o.curvature = s.vogn_curvature;
            o.rank = s.slang_rank;
          }),
      slang_study_row(1, "#c5b0d5"),
      slang_study_row(8, "#dbdb8d"),
      slang_study_row(32, "#9edae5"),
      method_row<vi::IvonOptions>(
          {.name = vi::IvonOptions::name,
           .label = "IVON",
           .color = "#2ca02c",
           .what = "Improved variational online Newton (Shen et al. 2024): diagonal, a Hessian "
                   "estimate from the reparameterisation trick (ĝ·ε/σ), no per-example "
                   "gradients; the package's defaults β₂ = 0.99999 and h₀ = 1.",
           .epochs = 200,
           .learning_rate = 0.05},
          [](vi::IvonOptions& o, const MethodSettings&) {
            // β₂ = 0.999: a few hundred epochs of a small data set are too few steps for the
            // paper's 0.99999 to forget h₀ (inference/ivon.hpp).
            o.beta2 = 0.999;
          },
          // The package's β₂ and h₀: the study shows what they do.
          [](auto& o, const auto& s) { o.learning_rate = vi::Schedule{s.steps.ivon}; }),
      method_row<vi::IvonOptions>(
          {.name = std::string(vi::IvonOptions::name) + "_short_memory",
           .label = "IVON (β₂ = 0.999)",
           .color = "#bcbd22",
           .what = "IVON with β₂ = 0.999 (its header's advice for runs of a few thousand "
                   "steps), so that h forgets h₀ within about 10³ steps; everything else as "
                   "above."},
          NotRun{},
          [](auto& o, const auto& s) {
            o.learning_rate = vi::Schedule{s.steps.ivon};
            o.beta2 = 0.999;  // the header's advice for short runs: h forgets h₀ in ~10³ steps
          }),
      method_row<vi::NoisyAdamOptions>(
          {.name = vi::NoisyAdamOptions::name,
           .label = "noisy Adam",
           .color = "#8c564b",
           .what = "Noisy natural gradient with Adam's diagonal Fisher (Zhang et al. 2018, "
                   "Algorithm 1).",
           .epochs = 800,
           .learning_rate = 0.01,
           .alias = "noisy-adam"},
          [](vi::NoisyAdamOptions& o, const MethodSettings&) {
            // f₀ = 1, not Algorithm 1's (and Adam's) 0. With f₀ = 0 the first weights are drawn
            // at the prior's spread (sd 1/√δ) and f after step k is only (1 − β₂ᵏ) of a Fisher
            // that does not grow with the residuals, so the first steps α·m̃/√(f + γ) are
            // ~√τ·residual/√(1 − β₂) ≈ 10 per weight on 13-50-1 Boston at δ = 1: the mean blew
            // up by iteration 7 on every split (as it does in an independent NumPy
            // transcription of Algorithm 1). f₀ = 1 starts q at sd 1/√(N(1 + γ)) ≈ 0.05, VOGN's
            // s₀ = 1 start in the PyTorch reference, and is forgotten after a few thousand steps
            // (β₂ = 0.999); the fixed point does not depend on it.
            o.fisher_init = 1.0;
          },
          [](auto& o, const auto& s) { o.learning_rate = vi::Schedule{s.steps.noisy_adam}; }),
      method_row<vi::NoisyKfacOptions>(
          {.name = vi::NoisyKfacOptions::name,
           .label = "noisy K-FAC",
           .color = "#e377c2",
           .what = "Noisy natural gradient with a matrix-variate Gaussian per layer whose "
                   "precision is K-FAC's Kronecker factors (Zhang et al. 2018, Algorithm 2).",
           .epochs = 200,
           .learning_rate = 0.01,
           .alias = "noisy-kfac",
           .whole_data = true},  // its step forms the Kronecker factors in one process
          [](vi::NoisyKfacOptions& o, const MethodSettings& s) {
            if (s.kfac_beta > 0.0) o.beta = s.kfac_beta;
          },
          [](auto& o, const auto& s) {
            o.learning_rate = vi::Schedule{s.steps.kfac};
            o.beta = s.steps.kfac_beta;
          }),
      method_row<vi::BayesByBackpropOptions>(
          {.name = vi::BayesByBackpropOptions::name,
           .label = "Bayes-by-backprop",
           .color = "#17becf",
           .what = "Reparameterisation-gradient VI on (μ, ρ), σ = softplus(ρ), with Adam "
                   "(Blundell et al. 2015): the non-natural-gradient baseline.",
           .epochs = 800,
           .learning_rate = 0.01,
           .alias = "bbb"},
          [](vi::BayesByBackpropOptions&, const MethodSettings&) {},
          [](auto& o, const auto& s) { o.learning_rate = vi::Schedule{s.steps.adam}; }),
      method_row<vi::MapOptions>(
          {.name = vi::MapOptions::name,
           .label = "MAP",
           .color = "#c7c7c7",
           .what = "The MAP estimate by Adam: a point mass, scored by its plug-in predictive.",
           // MAP by Adam at a constant step keeps improving the fit of energy and yacht.
           .epochs = 1000,
           .learning_rate = 0.01},
          [](vi::MapOptions&, const MethodSettings&) {}),
      method_row<vi::MapOptions>(
          {.name = std::string(vi::MapOptions::name) + "_laplace",
           .label = "MAP + Laplace",
           .color = "#7f7f7f",
           .what = "The MAP by Adam, then the Laplace approximation N(θ*, (GGN + δI)⁻¹) with its "
                   "evidence and the linearised (GLM) predictive (Immer et al. 2021). Its "
                   "history rows are the MAP's (a point mass: the ELBO is −∞ and not drawn).",
           // Its evidence wants a converged MAP: yacht's test RMSE 0.66 at 2000, 0.77 at 1000.
           .epochs = 2000,
           .learning_rate = 0.01,
           .alias = "laplace",
           .laplace = true},
          [](vi::MapOptions&, const MethodSettings&) {},
          [](auto& o, const auto& s) {
            o.loop.elbo_samples = 0;  // a point mass: every draw is θ*
            o.learning_rate = vi::Schedule{s.steps.adam};
          }),
      method_row<vi::MapOptions>(
          {.name = std::string(vi::MapOptions::name) + "_last_layer_laplace",
           .label = "last-layer Laplace",
           .color = "#393b79",
           .what = "The MAP by Adam, then the Laplace approximation over the last layer only, "
                   "N(θ*_S, (GGN_SS + δI)⁻¹) with the earlier layers fixed at θ* (Kristiadi et "
                   "al. 2020), its evidence and the linearised (GLM) predictive.",
           // map_laplace's: the same MAP fit.
           .epochs = 2000,
           .learning_rate = 0.01,
           .laplace = true,
           .last_layer = true,
           .whole_data = true},  // the last layer's GGN and evidence over all rows at once
          [](vi::MapOptions&, const MethodSettings&) {},
          [](auto& o, const auto& s) {  // map_laplace's, for the same θ*
            o.loop.elbo_samples = 0;
            o.learning_rate = vi::Schedule{s.steps.adam};
          }),
  };
  return rows;
}

// Calls f(row) for every row, in the table's order.
template <class F>
void for_each_method_row(F&& f) {
  std::apply([&](const auto&... row) { (f(row), ...); }, method_rows());
}

// The options of `row` as `ngvi study` sets them on the problem `s` (a study::ProblemSetup): the
// problem's loop and prior δ, then the row's study mapping.
template <class Row, class Setup>
typename Row::options_type study_options(const Row& row, const Setup& s) {
  typename Row::options_type o;
  o.loop = s.loop;
  o.prior_precision = s.prior_precision;
  row.study(o, s);
  return o;
}

// The options of the study row called `name` as study_options(row, s) sets them. Throws
// std::invalid_argument if no study row of that name has options of type Options.
template <class Options, class Setup>
Options study_options(std::string_view name, const Setup& s) {
  std::optional<Options> found;
  for_each_method_row([&](const auto& row) {
    using Row = std::decay_t<decltype(row)>;
    if constexpr (std::is_same_v<typename Row::options_type, Options> &&
                  !std::is_same_v<typename Row::study_type, NotRun>)
      if (!found && row.info.name == name) found = study_options(row, s);
  });
  if (!found)
    throw std::invalid_argument("ngvi::app::study_options: no study row '" + std::string(name) +
                                "' with these options");
  return *found;
}

}  // namespace ngvi::app
