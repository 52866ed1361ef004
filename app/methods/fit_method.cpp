// fit_method (app/methods/fit_method.hpp): the method table's row that the settings name, set by
// its `tool` mapping and run through vi::fit.
#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <app/methods/method_runner.hpp>
#include <app/methods/method_table.hpp>

namespace ngvi::app {

FitOutcome fit_method(const NetworkModel& model, const FitRequest& request, vi::Rng& rng) {
  const MethodSettings& s = request.settings;
  const MethodInfo& method = tool_method(s.method);
  const std::string& name = method.name;
  if (s.hyperparameters != HyperparameterSource::settings && request.prior)
    throw UsageError("--hyperparameters " +
                     std::string(hyperparameters_setting_name(s.hyperparameters)) +
                     " learns the prior N(0, diag δ_b) and τ of the data; it does not take a "
                     "--prior");
  check_hyperparameter_source(name, s.hyperparameters);
  if (method.last_layer && request.prior)
    throw UsageError(
        "map_last_layer_laplace takes the isotropic prior N(0, 1/δ) only, not a --prior");
  std::optional<FitOutcome> out;
  for_each_method_row([&](const auto& row) {
    using Row = std::decay_t<decltype(row)>;
    using Options = typename Row::options_type;
    if constexpr (!std::is_same_v<typename Row::tool_type, NotRun>) {
      if (out || row.info.name != name) return;
      Options o;
      o.loop = detail::loop_options(request, model.num_examples());
      o.prior_precision = s.prior_precision;
      const Eigen::Index m = std::max<Eigen::Index>(1, o.loop.minibatch);
      const Eigen::Index batches = (model.num_examples() + m - 1) / m;
      if constexpr (requires { o.mean_rate; })
        o.mean_rate = learning_rate_schedule(s, batches);
      else
        o.learning_rate = learning_rate_schedule(s, batches);
      row.tool(o, s);
      o.prior = request.prior;
      if constexpr (std::is_same_v<Options, vi::MapOptions>) {
        if (row.info.last_layer)
          out = detail::fit_last_layer_laplace(model, o, request, rng);
        else if (row.info.laplace)
          out = s.hyperparameters == HyperparameterSource::evidence
                    ? detail::fit_evidence_laplace(model, o, request, rng)
                    : detail::fit_map_laplace(model, o, request, rng);
        else
          out = detail::run_fit(model, o, request, rng, detail::AsIs{});
      } else {
        out = s.hyperparameters != HyperparameterSource::settings
                  ? detail::fit_empirical_bayes(model, o, request, rng)
                  : detail::run_fit(model, o, request, rng, detail::AsIs{});
      }
    }
  });
  return std::move(*out);
}

}  // namespace ngvi::app
