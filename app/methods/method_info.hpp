// MethodInfo: what the tool says about one row of its method table — the name every command and
// output uses, the label and colour of tables and plots, what the method is, and the defaults
// of `ngvi fit` and `ngvi uci` — and the lookups by name.
//
// The rows themselves, with how each one's settings map onto the library's options struct, are
// in app/methods/method_table.hpp, which includes every method of inference/; this header
// includes none of them, so that the commands' files can look a method up without parsing them
// (method_table.cpp builds these records from the rows).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

namespace ngvi::app {

struct MethodInfo {
  // The key: `--method` of fit and uci, posterior.json's and uci.json's "method", the study's
  // results.json and file names. A library method's Options::name (inference/*.hpp); a row that
  // runs one with other settings (a study variant) extends it, e.g. "vogn_ggn".
  std::string name;
  std::string label;  // in tables and plots
  std::string color;  // "#rrggbb", the same in every plot
  std::string what;   // one or two sentences for --help and the study's report
  // `ngvi fit` and `ngvi uci`: the default epochs and step size of the mean (each row says where
  // they come from); 0 for a row those commands do not run.
  Eigen::Index epochs = 0;
  double learning_rate = 0.0;
  // An older command-line spelling of `name`, still accepted (and read from old posterior files);
  // empty if none. Outputs and --help give `name`.
  std::string alias{};
  // P×P work per step: the study runs it only on its small problems (ProblemSetup).
  bool full_covariance = false;
  // The study runs the row only on problems of at least this many parameters: 4L for SLANG of
  // rank L, below which its low-rank step costs more than the full covariance's (and L ≥ P is
  // the full covariance itself).
  Eigen::Index min_parameters = 0;
  // MAP, then the Laplace approximation at θ* (inference/laplace.hpp): scored by the linearised
  // predictive, with an evidence; Gaussian or classification likelihoods only.
  bool laplace = false;
  // With `laplace`: the approximation over the last layer only, the rest of θ fixed at θ*
  // (inference/subnetwork_laplace.hpp), not over all of θ.
  bool last_layer = false;
  // Its step or its posterior needs every row in one process (a sum it does not form through
  // the loop's reducer): `ngvi fit --divide-data` refuses it.
  bool whole_data = false;
  bool in_tool = false;   // `ngvi fit` and `ngvi uci` run it
  bool in_study = false;  // `ngvi study` runs it
};

// Every row of the method table, in its order (the order of the study's tables and results).
const std::vector<MethodInfo>& method_table();

// The row called `name`, or whose alias `name` is; nullptr if none. Cost: a scan of the table.
const MethodInfo* find_method(std::string_view name);

// The row called `name` (not an alias). Throws std::invalid_argument naming it.
const MethodInfo& method_info(std::string_view name);

// The rows `ngvi fit` and `ngvi uci` run, and `ngvi study` runs, in the table's order.
std::vector<MethodInfo> tool_methods();
std::vector<MethodInfo> study_methods();

// The tool's method called `name` or spelt as its alias. Throws UsageError (exit 2) listing the
// tool's names.
const MethodInfo& tool_method(std::string_view name);

// The tool's method names, comma-separated, for --help and error messages.
std::string tool_method_names();

}  // namespace ngvi::app
