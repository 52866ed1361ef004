// The per-method defaults of app/methods/method_settings.hpp.
#include <map>

#include <app/methods/method_settings.hpp>

namespace ngvi::app {

void add_von_remedy_option(CLI::App& cmd, MethodSettings& s) {
  std::map<std::string, VonRemedySetting> names;
  for (const VonRemedySetting r : all_von_remedies) names[von_remedy_setting_name(r)] = r;
  cmd.add_option("--von-remedy", s.von_remedy,
                 "von: what a step does whose exact Hessian would make the precision indefinite: "
                 "clip (clip the Hessian's eigenvalues at 0 on every step, one eigendecomposition "
                 "a step), ggn (use that step's Gauss-Newton matrix; no eigendecomposition, but "
                 "less stable), damp (halve the precision "
                 "step until positive definite), add-damping (add a multiple of I), reject (skip "
                 "the step); every firing is counted")
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case).description(""))
      ->type_name("clip|ggn|damp|add-damping|reject")
      ->default_str(von_remedy_setting_name(s.von_remedy));
}

void add_vogn_curvature_option(CLI::App& cmd, MethodSettings& s) {
  std::map<std::string, VognCurvatureSetting> names;
  for (const VognCurvatureSetting c : all_vogn_curvatures)
    names[vogn_curvature_setting_name(c)] = c;
  cmd.add_option("--vogn-curvature", s.vogn_curvature,
                 "vogn: the per-example curvature it averages: empirical-fisher (squared "
                 "gradients of the observed targets, seed 000's VOGN), ggn (the Gauss-Newton "
                 "diagonal: its steps do not shrink as 1/tau at a large noise precision tau), "
                 "mc-fisher (squared gradients for targets drawn from the model, one per example)")
      ->transform(CLI::CheckedTransformer(names, CLI::ignore_case).description(""))
      ->type_name("empirical-fisher|ggn|mc-fisher")
      ->default_str(vogn_curvature_setting_name(s.vogn_curvature));
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
