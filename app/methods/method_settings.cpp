// The command-line choices of app/methods/method_settings.hpp and the defaults it falls back on.
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/cli/number_checks.hpp>
#include <app/methods/method_info.hpp>
#include <app/methods/method_settings.hpp>
#include <fmt/format.h>

namespace ngvi::app {

namespace {
// The command-line spellings of the library's choices, in the order --help lists them.
constexpr std::pair<const char*, vi::VonRemedy> von_remedies[] = {
    {"clip", vi::VonRemedy::clip_eigenvalues},
    {"ggn", vi::VonRemedy::ggn_fallback},
    {"damp", vi::VonRemedy::damp_step},
    {"add-damping", vi::VonRemedy::add_damping},
    {"reject", vi::VonRemedy::reject_step}};
constexpr std::pair<const char*, vi::VognCurvature> vogn_curvatures[] = {
    {"empirical-fisher", vi::VognCurvature::empirical_fisher},
    {"ggn", vi::VognCurvature::ggn},
    {"mc-fisher", vi::VognCurvature::mc_fisher}};
constexpr std::pair<const char*, HyperparameterSource> hyperparameter_sources[] = {
    {"settings", HyperparameterSource::settings},
    {"evidence", HyperparameterSource::evidence},
    {"noise", HyperparameterSource::noise}};

template <class E, std::size_t K>
const char* spelling(const std::pair<const char*, E> (&choices)[K], E e) {
  for (const auto& [name, value] : choices)
    if (value == e) return name;
  return "unknown";
}

// Adds `flag` to `cmd` with `choices` (case-insensitive), storing into `target` and showing its
// current value as the default.
template <class E, std::size_t K>
void add_choice_option(CLI::App& cmd, const std::string& flag, E& target,
                       const std::pair<const char*, E> (&choices)[K], const std::string& help) {
  std::map<std::string, E> names;
  std::string type;
  for (const auto& [name, value] : choices) {
    names[name] = value;
    type += std::string(type.empty() ? "" : "|") + name;
  }
  cmd.add_option(flag, target, help)
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case).description(""))
      ->type_name(type)
      ->default_str(spelling(choices, target));
}

template <class Target>
CLI::Option* add_method_option_to(CLI::App& cmd, Target& target, const std::string& help) {
  std::string aliases;
  for (const MethodInfo& m : tool_methods())
    if (!m.alias.empty())
      aliases += fmt::format("{}{} for {}", aliases.empty() ? "" : ", ", m.alias, m.name);
  return cmd
      .add_option(
          "--method", target,
          help + ": " + tool_method_names() + " (older spellings still accepted: " + aliases + ")")
      ->check([](const std::string& name) {
        try {
          tool_method(name);
          return std::string();
        } catch (const UsageError& e) {
          return std::string(e.what());
        }
      });
}

// The tool's methods grouped by `value`, in the table's order: "von 40; vogn, ivon 200".
std::string defaults_text(const std::function<std::string(const MethodInfo&)>& value) {
  std::vector<std::pair<std::string, std::string>> groups;  // (value, names)
  for (const MethodInfo& m : tool_methods()) {
    const std::string v = value(m);
    auto g = groups.begin();
    while (g != groups.end() && g->first != v) ++g;
    if (g == groups.end())
      groups.emplace_back(v, m.name);
    else
      g->second += ", " + m.name;
  }
  std::string text;
  for (const auto& [v, names] : groups)
    text += fmt::format("{}{} {}", text.empty() ? "" : "; ", names, v);
  return text;
}
}  // namespace

CLI::Option* add_method_option(CLI::App& cmd, std::string& target, const std::string& help) {
  return add_method_option_to(cmd, target, help);
}

CLI::Option* add_method_option(CLI::App& cmd, std::vector<std::string>& target,
                               const std::string& help) {
  return add_method_option_to(cmd, target, help);
}

std::string default_epochs_text() {
  return defaults_text([](const MethodInfo& m) { return fmt::format("{}", m.epochs); });
}

std::string default_learning_rate_text() {
  return defaults_text([](const MethodInfo& m) { return fmt::format("{:g}", m.learning_rate); });
}

const char* von_remedy_setting_name(vi::VonRemedy r) { return spelling(von_remedies, r); }

const char* vogn_curvature_setting_name(vi::VognCurvature c) {
  return spelling(vogn_curvatures, c);
}

const char* hyperparameters_setting_name(HyperparameterSource h) {
  return spelling(hyperparameter_sources, h);
}

void check_hyperparameter_source(const std::string& method, HyperparameterSource source) {
  const MethodInfo& m = tool_method(method);
  if (source == HyperparameterSource::settings) return;
  if (m.name == "map")
    throw UsageError(std::string("--hyperparameters ") + hyperparameters_setting_name(source) +
                     " is not available for map (a point estimate has no evidence); use "
                     "map_laplace");
  if (source == HyperparameterSource::noise && m.laplace)
    throw UsageError("--hyperparameters noise is for the VI methods, not " + m.name +
                     " (use --hyperparameters evidence)");
}

void add_hyperparameters_option(CLI::App& cmd, MethodSettings& s, const std::string& help) {
  add_choice_option(cmd, "--hyperparameters", s.hyperparameters, hyperparameter_sources,
                    "where the prior and noise precisions come from: settings (" + help +
                        "), evidence (learned during the one fit: map_laplace by the gradient of "
                        "the Laplace evidence, Immer et al. 2021 -- a prior precision per "
                        "parameter block and the noise precision; map_last_layer_laplace: "
                        "MacKay's fixed point of its evidence after the fit; the VI methods by "
                        "variational EM), or noise (VI methods: the noise precision alone, with "
                        "a Gamma(6, 6) prior, as Zhang et al. 2018's protocol)");
}

void add_von_remedy_option(CLI::App& cmd, MethodSettings& s) {
  add_choice_option(cmd, "--von-remedy", s.von_remedy, von_remedies,
                    "von: what a step does whose exact Hessian would make the precision "
                    "indefinite: clip (clip the Hessian's eigenvalues at 0 on every step, one "
                    "tridiagonalisation a step), ggn (use that step's Gauss-Newton matrix; no "
                    "eigendecomposition, but less stable), damp (halve the precision step until "
                    "positive definite), add-damping (add a multiple of I), reject (skip the "
                    "step); every firing is counted");
}

void add_vogn_curvature_option(CLI::App& cmd, MethodSettings& s) {
  add_choice_option(
      cmd, "--vogn-curvature", s.vogn_curvature, vogn_curvatures,
      "vogn and slang: the per-example curvature it averages: empirical-fisher (squared "
      "gradients of the observed targets, the VOGN of Khan et al. 2018), ggn (the "
      "Gauss-Newton diagonal: its steps do not shrink as 1/tau at a large noise "
      "precision tau), mc-fisher (squared gradients for targets drawn from the "
      "model, one per example)");
}

void add_step_options(CLI::App& cmd, MethodSettings& s, const std::string& minibatch_help) {
  cmd.add_option("--minibatch", s.minibatch, minibatch_help)
      ->check(integer_in<Eigen::Index>(1, std::numeric_limits<Eigen::Index>::max()))
      ->capture_default_str();
  cmd.add_option("--learning-rate", s.learning_rate,
                 "step size of the mean; default: 0 = the method's own (" +
                     default_learning_rate_text() + ")")
      ->check(nonnegative_finite())
      ->capture_default_str();
  cmd.add_option("--learning-rate-drop", s.learning_rate_drop,
                 "multiply the mean's step size by this factor for the last part of the epochs "
                 "(from --learning-rate-drop-at on; Zhang et al. 2018's UCI protocol: 0.1 for "
                 "the second half); 1: no drop")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--learning-rate-drop-at", s.learning_rate_drop_at,
                 "the fraction of the epochs after which --learning-rate-drop applies")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  add_von_remedy_option(cmd, s);
  add_vogn_curvature_option(cmd, s);
  cmd.add_option("--slang-rank", s.slang_rank,
                 "slang: L, the rank of the low-rank part UU^T of its precision UU^T + diag(d), "
                 "0 (diagonal VOGN) to P; it uses --vogn-curvature's curvature")
      ->check(integer_in<Eigen::Index>(0, std::numeric_limits<Eigen::Index>::max()))
      ->capture_default_str();
  cmd.add_option("--kfac-beta", s.kfac_beta,
                 "noisy_kfac: the moving-average weight of its Kronecker factors per step "
                 "(Zhang et al. 2018's beta~; their UCI protocol: 0.001); 0: the default, 0.01")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}

Eigen::Index epochs_of(const MethodSettings& s) {
  return s.epochs > 0 ? s.epochs : tool_method(s.method).epochs;
}

double learning_rate_of(const MethodSettings& s) {
  return s.learning_rate > 0.0 ? s.learning_rate : tool_method(s.method).learning_rate;
}

vi::Schedule learning_rate_schedule(const MethodSettings& s, Eigen::Index batches_per_epoch) {
  vi::Schedule r{learning_rate_of(s)};
  if (s.learning_rate_drop != 1.0) {
    const auto epoch = static_cast<Eigen::Index>(
        std::floor(s.learning_rate_drop_at * static_cast<double>(epochs_of(s))));
    r.drop_at = epoch * batches_per_epoch + 1;
    r.drop_factor = s.learning_rate_drop;
  }
  return r;
}

}  // namespace ngvi::app
