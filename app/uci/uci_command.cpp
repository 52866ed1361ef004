// `ngvi uci` (see uci_command.hpp): options, the table, the JSON file.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <app/cli/common_options.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/cli/number_checks.hpp>
#include <app/cli/ranks.hpp>
#include <app/io/staged_folder.hpp>
#include <app/methods/method_info.hpp>
#include <app/methods/method_settings.hpp>
#include <app/uci/published_results.hpp>
#include <app/uci/uci_command.hpp>
#include <app/uci/uci_protocol.hpp>
#include <app/uci/uci_run_json.hpp>
#include <fmt/format.h>
#include <io/json_file.hpp>
#include <nlohmann/json.hpp>

namespace ngvi::app {
namespace {

struct UciCommandOptions {
  CommonOptions common;
  UciProtocolOptions protocol;
  std::vector<std::string> methods = {"vogn"};  // run each in turn
  std::filesystem::path json;                   // also write the results here; empty: don't
  bool verbose = false;                         // print every split, not only the summary
};

std::string plus_minus(const MeanAndError& m, int digits) {
  return fmt::format("{:.{}f} ± {:.{}f}", m.mean, digits, m.standard_error, digits);
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

nlohmann::json to_json(const UciRun& run, const MethodSettings& s, RegressionLikelihood lik) {
  nlohmann::json j;
  const MethodInfo& method = tool_method(s.method);
  j["method"] = method.name;
  j["likelihood"] =
      regression_likelihood_name(method.laplace ? RegressionLikelihood::gaussian : lik);
  j["settings"] = {{"prior_precision", s.prior_precision},
                   {"max_epochs", epochs_of(s)},
                   {"minibatch", s.minibatch},
                   {"learning_rate", learning_rate_of(s)}};
  if (s.learning_rate_drop != 1.0) {
    j["settings"]["learning_rate_drop"] = s.learning_rate_drop;
    j["settings"]["learning_rate_drop_at"] = s.learning_rate_drop_at;
  }
  if (method.name == "noisy_kfac" && s.kfac_beta > 0.0) j["settings"]["kfac_beta"] = s.kfac_beta;
  if (method.laplace)
    j["settings"]["hyperparameters"] = hyperparameters_setting_name(s.hyperparameters);
  if (method.name == "slang") {
    j["settings"]["slang_rank"] = s.slang_rank;
    j["settings"]["vogn_curvature"] = vogn_curvature_setting_name(s.vogn_curvature);
  }
  if (method.name == "von") j["settings"]["von_remedy"] = von_remedy_setting_name(s.von_remedy);
  if (method.name == "vogn")
    j["settings"]["vogn_curvature"] = vogn_curvature_setting_name(s.vogn_curvature);
  j["rmse"] = {{"mean", run.rmse.mean}, {"standard_error", run.rmse.standard_error}};
  j["log_likelihood"] = {{"mean", run.log_likelihood.mean},
                         {"standard_error", run.log_likelihood.standard_error}};
  j["seconds"] = run.seconds;
  j["splits"] = nlohmann::json::array();
  for (const SplitResult& r : run.splits) {
    nlohmann::json t = nlohmann::json::array();
    for (const TuningFit& f : r.tuning)
      t.push_back({{"noise_precision", f.noise_precision},
                   {"degrees_of_freedom", f.degrees_of_freedom},
                   {"prior_precision", f.prior_precision},
                   {"best_epoch", f.best_epoch},
                   {"validation_log_likelihood", f.validation_log_likelihood},
                   {"log_marginal_likelihood", f.log_marginal_likelihood}});
    nlohmann::json sj = {{"split", r.split},
                         {"ok", r.ok},
                         {"noise_precision", r.noise_precision},
                         {"degrees_of_freedom", r.degrees_of_freedom},
                         {"prior_precision", r.prior_precision},
                         {"epochs", r.epochs},
                         {"validation_log_likelihood", r.validation_log_likelihood},
                         {"log_marginal_likelihood", r.log_marginal_likelihood},
                         {"tuning", t},
                         {"seconds", r.seconds}};
    if (!r.blocks.empty()) {
      nlohmann::json deltas = nlohmann::json::object();
      for (std::size_t b = 0; b < r.blocks.size(); ++b)
        deltas[r.blocks[b]] = r.block_prior_precisions[b];
      sj["block_prior_precisions"] = deltas;
    }
    if (r.ok) {
      sj["rmse"] = r.rmse;
      sj["log_likelihood"] = r.log_likelihood;
      if (!r.member_rmse.empty()) {
        sj["member_rmse"] = r.member_rmse;
        sj["member_log_likelihood"] = r.member_log_likelihood;
      }
    } else {
      sj["message"] = r.message;
    }
    j["splits"].push_back(sj);
  }
  return j;
}

// ", ν 4" for a Student-t split, nothing for a Gaussian one.
std::string nu_part(const SplitResult& r) {
  return r.degrees_of_freedom > 0.0 ? fmt::format(", ν {:g}", r.degrees_of_freedom) : std::string();
}

void print_split_lines(const UciRun& run) {
  for (const SplitResult& r : run.splits) {
    if (r.ok && !r.blocks.empty())  // --hyperparameters evidence: learned in the one fit
      fmt::print(
          "  split {:>2}: RMSE {:.3f}  LL {:.3f}  (τ {:.3g}, δ {:.3g} over {} blocks, {} epochs, "
          "{}; {:.2f} s)\n",
          r.split, r.rmse, r.log_likelihood, r.noise_precision, r.prior_precision, r.blocks.size(),
          r.epochs,
          std::isnan(r.log_marginal_likelihood)
              ? std::string("learned by variational EM")
              : fmt::format("learned from the evidence, log evidence {:.3f}",
                            r.log_marginal_likelihood),
          r.seconds);
    else if (r.ok && r.tuning.empty())  // --validation-folds 0: nothing was scored before the test
      fmt::print(
          "  split {:>2}: RMSE {:.3f}  LL {:.3f}  (τ {:.3g}{}, δ {:.3g}, {} epochs, not tuned; "
          "{:.2f} s)\n",
          r.split, r.rmse, r.log_likelihood, r.noise_precision, nu_part(r), r.prior_precision,
          r.epochs, r.seconds);
    else if (r.ok)
      fmt::print(
          "  split {:>2}: RMSE {:.3f}  LL {:.3f}  (τ {:.3g}{}, δ {:.3g}, {} epochs, {} {:.3f}; "
          "{} tuning fits; {:.2f} s)\n",
          r.split, r.rmse, r.log_likelihood, r.noise_precision, nu_part(r), r.prior_precision,
          r.epochs, std::isnan(r.validation_log_likelihood) ? "log evidence" : "validation LL",
          std::isnan(r.validation_log_likelihood) ? r.log_marginal_likelihood
                                                  : r.validation_log_likelihood,
          r.tuning.size(), r.seconds);
    else
      fmt::print("  split {:>2}: FAILED: {}\n", r.split, r.message);
  }
}

// What every rank must agree on under mpirun: the splits as read (sizes and a checksum of their
// numbers) and the seed.
std::string fingerprint(const UciData& d, const UciCommandOptions& opt) {
  std::size_t h = 0;
  auto mix = [&h](const Eigen::MatrixXd& m) {
    h = h * 1000003u ^ std::hash<std::string_view>{}(std::string_view(
                           reinterpret_cast<const char*>(m.data()), sizeof(double) * m.size()));
  };
  Eigen::Index rows = 0;
  for (const io::UciSplit& s : d.splits) {
    for (const nn::Dataset* set : {&s.train, &s.test}) {
      mix(set->X);
      mix(set->Y);
    }
    rows += s.train.size() + s.test.size();
  }
  return fmt::format("{}: {} splits, {} rows in all, checksum {:016x}; seed {}", d.dataset,
                     d.splits.size(), rows, h, opt.common.seed);
}

int run(const UciCommandOptions& opt, const Ranks& ranks) {
  const ThreadLimit limit(opt.common.threads);
  std::vector<std::string> methods;  // their names in the method table
  UciData data;
  // Every input is read and checked, on every rank, before any fit starts.
  ranks.on_every_rank([&] {
    require_existing_folder("--json", opt.json);
    if (ranks.leader()) require_writable_folder("--out", opt.common.out);  // rank 0 writes
    for (const std::string& m : opt.methods) {
      const MethodInfo& method = tool_method(m);
      if (opt.protocol.likelihood == RegressionLikelihood::student_t && method.laplace)
        throw UsageError("--likelihood student-t is not available for --method " + method.name +
                         " (its evidence search and linearised predictive are Gaussian)");
      check_hyperparameter_source(method.name, opt.protocol.method.hyperparameters);
      if (opt.protocol.likelihood == RegressionLikelihood::student_t &&
          opt.protocol.method.hyperparameters != HyperparameterSource::settings)
        throw UsageError(
            "--likelihood student-t is not available with --hyperparameters " +
            std::string(hyperparameters_setting_name(opt.protocol.method.hyperparameters)) +
            " (it learns a Gaussian likelihood's τ)");
      methods.push_back(method.name);
    }
    data = load_uci_data(opt.protocol);
  });
  ranks.require_same("the data and seed", fingerprint(data, opt));

  // Each rank runs its share of the splits (all of them on one rank); every rank gets all.
  std::vector<UciRun> runs;
  for (const std::string& m : methods) {
    UciProtocolOptions p = opt.protocol;
    p.method.method = m;
    p.seed = opt.common.seed;
    fmt::print(
        stderr, "ngvi uci: {} on {}{} ...\n", m, p.data.string(),
        ranks.size() > 1 ? fmt::format(", splits dealt to {} ranks", ranks.size()) : std::string());
    UciRun mine;
    ranks.on_every_rank([&] { mine = run_uci_protocol(p, data, ranks.rank(), ranks.size()); });
    std::vector<UciRun> parts;
    for (const std::string& bytes : ranks.all_gather(encode_uci_run(mine)))
      parts.push_back(decode_uci_run(bytes));
    runs.push_back(merge_uci_parts(parts));
  }
  const bool all_ok = std::all_of(runs.begin(), runs.end(), [](const UciRun& r) {
    return std::all_of(r.splits.begin(), r.splits.end(), [](const SplitResult& s) { return s.ok; });
  });
  if (!ranks.leader()) return all_ok ? exit_code::ok : exit_code::failed;
  const UciRun& first = runs.front();
  const std::size_t n_splits = first.splits.size();
  const HyperparameterSource source = opt.protocol.method.hyperparameters;
  const std::string tuning =
      source == HyperparameterSource::evidence
          ? "Hyperparameters: τ and a δ per parameter block learned during each split's one fit "
            "on its training set (map_laplace: by the evidence's gradient; "
            "map_last_layer_laplace: MacKay's fixed point of its evidence after it; VI: by "
            "variational EM); median δ: their parameter-weighted geometric mean"
      : source == HyperparameterSource::noise
          ? fmt::format(
                "Hyperparameters: τ learned during each split's one fit by variational EM with a "
                "Gamma(6, 6) prior (Zhang et al. 2018's protocol); δ = {:g} and all the epochs",
                opt.protocol.method.prior_precision)
      : opt.protocol.validation_folds == 0
          ? fmt::format(
                "Hyperparameters: NOT tuned: τ = {:g}, δ = {:g} and all the epochs on "
                "every split",
                opt.protocol.initial_noise_precision, opt.protocol.method.prior_precision)
          : fmt::format(
                "Hyperparameters: τ (noise precision), {}δ (prior precision) and epochs chosen "
                "per split {} of its training set (map_laplace, map_last_layer_laplace: τ and δ "
                "by the Laplace evidence on the training set)",
                opt.protocol.likelihood == RegressionLikelihood::student_t
                    ? "ν (Student-t degrees of freedom), "
                    : "",
                opt.protocol.validation_folds > 1
                    ? fmt::format("by {}-fold cross-validation", opt.protocol.validation_folds)
                    : fmt::format("on an inner {:.0f}/{:.0f} validation split",
                                  100 * (1 - opt.protocol.validation_fraction),
                                  100 * opt.protocol.validation_fraction));
  fmt::print(
      "UCI regression: {}, {} split{}, {}-{}-1 ReLU network; test metrics in original units, mean "
      "± standard error over splits.\n{}; seed {}.\n\n",
      first.dataset, n_splits, n_splits == 1 ? "" : "s", first.inputs, first.hidden_units, tuning,
      opt.common.seed);
  fmt::print("{:<34} {:>16} {:>17} {:>10} {:>9} {:>8} {:>9}\n", "method", "test RMSE", "test LL",
             "median τ", "median δ", "epochs", "seconds");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const UciRun& r = runs[i];
    std::vector<double> taus, deltas, epochs;
    std::size_t failed = 0;
    for (const SplitResult& s : r.splits) {
      if (!s.ok) {
        ++failed;
        continue;
      }
      taus.push_back(s.noise_precision);
      deltas.push_back(s.prior_precision);
      epochs.push_back(static_cast<double>(s.epochs));
    }
    fmt::print(
        "{:<34} {:>16} {:>17} {:>10.3g} {:>9.3g} {:>8.0f} {:>9.1f}{}\n",
        "ngvi " + methods[i] +
            (opt.protocol.ensemble > 1 ? fmt::format(", ensemble of {}", opt.protocol.ensemble)
                                       : std::string()) +
            (opt.protocol.likelihood == RegressionLikelihood::student_t ? ", student-t" : ""),
        plus_minus(r.rmse, 3), plus_minus(r.log_likelihood, 3), median_of(taus), median_of(deltas),
        median_of(epochs), r.seconds,
        failed ? fmt::format("  ({} split{} FAILED)", failed, failed == 1 ? "" : "s") : "");
    if (opt.verbose) print_split_lines(r);
  }
  const std::vector<PublishedResult> published = published_results(first.dataset);
  if (!published.empty()) {
    fmt::print(
        "\nPublished ({} hidden units, 20 splits; different protocols — see `ngvi uci "
        "--help`):\n",
        50);
    for (const PublishedResult& p : published)
      fmt::print("{:<34} {:>16} {:>17}   {}\n", p.method,
                 fmt::format("{:.3f} ± {:.3f}", p.rmse, p.rmse_se),
                 fmt::format("{:.3f} ± {:.3f}", p.log_likelihood, p.log_likelihood_se), p.source);
  }

  nlohmann::json j;
  j["dataset"] = first.dataset;
  j["folder"] = opt.protocol.data.string();
  j["hidden_units"] = first.hidden_units;
  j["splits"] = n_splits;
  j["seed"] = opt.common.seed;
  j["protocol"] = {{"validation_fraction", opt.protocol.validation_fraction},
                   {"initial_noise_precision", opt.protocol.initial_noise_precision},
                   {"prior_precisions", opt.protocol.prior_precisions},
                   {"validation_folds", opt.protocol.validation_folds},
                   {"max_tuning_fits", opt.protocol.max_tuning_fits},
                   {"validation_samples", opt.protocol.validation_samples},
                   {"test_samples", opt.protocol.test_samples},
                   {"ensemble", opt.protocol.ensemble},
                   {"likelihood", regression_likelihood_name(opt.protocol.likelihood)},
                   {"degrees_of_freedom", opt.protocol.degrees_of_freedom}};
  j["methods"] = nlohmann::json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    UciProtocolOptions p = opt.protocol;
    p.method.method = methods[i];
    j["methods"].push_back(to_json(runs[i], p.method, p.likelihood));
  }
  j["published"] = nlohmann::json::array();
  for (const PublishedResult& p : published)
    j["published"].push_back(
        {{"method", p.method},
         {"source", p.source},
         {"rmse", {{"mean", p.rmse}, {"standard_error", p.rmse_se}}},
         {"log_likelihood",
          {{"mean", p.log_likelihood}, {"standard_error", p.log_likelihood_se}}}});
  if (!opt.json.empty()) {
    io::write_json_file(opt.json, j);
    fmt::print("\nresults written to {}\n", opt.json.string());
  }
  if (!opt.common.out.empty()) {
    StagedFolder folder(opt.common.out);  // the folder appears whole or not at all
    io::write_json_file(folder.path() / "uci.json", j);
    folder.commit();
    fmt::print("\nresults written to {}\n", (opt.common.out / "uci.json").string());
  }
  return all_ok ? exit_code::ok : exit_code::failed;
}

}  // namespace

Subcommand add_uci_command(CLI::App& root, const Ranks& ranks) {
  auto opt = std::make_shared<UciCommandOptions>();
  UciProtocolOptions& p = opt->protocol;
  MethodSettings& m = p.method;
  CLI::App* cmd = root.add_subcommand(
      "uci",
      "The standard UCI regression protocol on a folder in the format of ngvi's data/uci/ "
      "(data.txt, index_features.txt, index_target.txt, index_train_<k>.txt, index_test_<k>.txt; "
      "n_hidden.txt and n_splits.txt if present; the MC-dropout grids n_epochs.txt, "
      "dropout_rates.txt and tau_values.txt are not used): for each split a ReLU network with one "
      "hidden layer, inputs and targets standardised with the training statistics. "
      "Hyperparameters are chosen WITHOUT the test split, by 3-fold cross-validation on each "
      "training set (--validation-folds; 1: one inner validation split, its last 20 % of rows, "
      "as in Gal's grid search): the noise precision τ by a "
      "search on a log scale at the method's prior precision δ₀ (start 10, factors of 4 while the "
      "validation log-likelihood improves, then factor 2 beside the best), then the prior "
      "precision δ over --prior-precisions (if given) at that τ (and τ·2, τ/2 if another δ wins), "
      "and the "
      "epochs as the best of each quarter of the method's epochs; the step size and minibatch stay "
      "as set below. Then the network is trained on the whole training set with the chosen τ, δ "
      "and epochs and scored on the test set: RMSE and mean log-likelihood in original units (100 "
      "posterior samples). map_laplace and map_last_layer_laplace use no inner split: τ and δ "
      "maximise "
      "the Laplace (type-II) "
      "marginal likelihood of the whole training set — a search over the ratio δ/τ (start "
      "δ₀/τ₀, factors of 10, then √10; one MAP fit of the full epochs and one GGN Laplace "
      "approximation each, over every parameter or the last layer's), the overall scale in closed "
      "form — and the test metrics use the "
      "linearised (GLM) predictive. --ensemble K > 1 scores the equally weighted mixture of K "
      "networks trained from independent starts at the chosen settings (a deep ensemble; for "
      "map_laplace a mixture of Laplace approximations, each member at its own evidence-optimal "
      "scale). Mean ± standard error over splits. Splits run in parallel; "
      "results are "
      "identical for any --threads. The table shows published figures for the same data set "
      "beside ours: PBP, BBB and noisy K-FAC from Zhang et al. 2018 (1000 epochs, minibatch 10, a "
      "Gamma prior on the noise), MC dropout from Gal's grid search (τ and dropout rate per split "
      "on an inner split, 400 epochs) and, for Boston, the PyTorch VOGN reference (tuned once on "
      "split 0). Exit code 1 if a split's final fit failed.");
  add_common_options(*cmd, opt->common,
                     "folder to write uci.json into (created if missing); default: none");
  cmd->add_option("--data", p.data, "the data set's folder (required)")
      ->required()
      ->check(CLI::ExistingDirectory);
  add_method_option(*cmd, opt->methods,
                    "the method, default vogn (repeatable: each runs in turn, one table row each)");
  cmd->add_option("--splits", p.splits,
                  "run the first K splits; default: 0 = all of the folder's splits")
      ->check(integer_in(0, 1000000))
      ->capture_default_str();
  cmd->add_option("--json", opt->json,
                  "also write every number (per split, the tuning fits, the published rows) as "
                  "JSON to this file, atomically; default: none");
  cmd->add_option("--hidden", p.hidden_units,
                  "hidden units; default: 0 = n_hidden.txt of the folder, else 50")
      ->check(integer_in<Eigen::Index>(0, 100000))
      ->capture_default_str();
  cmd->add_option("--prior-precision", m.prior_precision,
                  "δ₀, the prior precision (prior N(0, 1/δ) on every weight, standardised units) "
                  "at which the τ search runs (map_laplace: the start δ₀/τ₀ of its ratio search)")
      ->check(positive_finite())
      ->capture_default_str();
  cmd->add_option("--prior-precisions", p.prior_precisions,
                  "the prior precisions δ tried at the best τ, e.g. 0.1,1,10 (not map_laplace); "
                  "default: none, δ stays at δ₀ (on Boston's 91-row validation sets that grid "
                  "overfits them and VOGN's test LL got worse; docs/uci.md)")
      ->delimiter(',')
      ->check(positive_finite())
      ->capture_default_str();
  cmd->add_option(
         "--epochs", m.epochs,
         "epochs of each tuning fit (the chosen number is the best quarter of it; map_laplace: "
         "all of them); "
         "default: 0 = the method's own (" +
             default_epochs_text() + ")")
      ->check(integer_in<Eigen::Index>(0, max_epochs))
      ->capture_default_str();
  add_step_options(*cmd, m, "minibatch size M");
  add_hyperparameters_option(*cmd, m,
                             "the search: cross-validation, or map_laplace's search of the "
                             "evidence over δ/τ");
  cmd->add_option(
         "--likelihood", p.likelihood,
         "the networks' likelihood: gaussian (N(f, 1/τ), the published protocol's) or "
         "student-t (Student-t with scale 1/√τ and ν degrees of freedom: heavier tails; "
         "ν is chosen from --degrees-of-freedom with τ, δ and the epochs, one τ search "
         "per ν, so the tuning costs about that many times more; not map_laplace; on Boston, "
         "map, --validation-folds 1, --ensemble 10, seeds 1-3, it raised the mean test LL "
         "from -2.451 to -2.284 at RMSE 2.62 against 2.59)")
      ->transform(CLI::CheckedTransformer(
                      std::map<std::string, RegressionLikelihood>{
                          {"gaussian", RegressionLikelihood::gaussian},
                          {"student-t", RegressionLikelihood::student_t}},
                      CLI::ignore_case)
                      .description(""))
      ->type_name("gaussian|student-t")
      ->default_str("gaussian");
  cmd->add_option("--degrees-of-freedom", p.degrees_of_freedom,
                  "student-t: the ν tried on the inner split, each with its own τ search "
                  "(--max-tuning-fits fits each); one value fixes ν (with --validation-folds 0 "
                  "the first is used)")
      ->delimiter(',')
      ->check(positive_finite())
      ->capture_default_str();
  cmd->add_option("--initial-noise-precision", p.initial_noise_precision,
                  "τ where the search starts (standardised units)")
      ->check(positive_finite())
      ->capture_default_str();
  cmd->add_option("--validation-folds", p.validation_folds,
                  "K >= 2: choose τ, δ and epochs by K-fold cross-validation on the training rows "
                  "(K consecutive blocks; every setting costs K fits, scored by the LL of all "
                  "training rows); 1: the single inner 80/20 split (noisier: on Boston's 91-row "
                  "validation sets VOGN's test LL is worse than with 3 folds); 0: no tuning, every "
                  "split fits τ = --initial-noise-precision, δ = --prior-precision and all the "
                  "epochs (the PyTorch reference's protocol: its settings were tuned once, on "
                  "split 0's training rows); not map_laplace")
      ->check(integer_in(0, 20))
      ->capture_default_str();
  cmd->add_option("--max-tuning-fits", p.max_tuning_fits,
                  "settings (τ, δ) tried per training split, at most, each K fits of the "
                  "cross-validation (student-t: per ν; map_laplace: MAP + Laplace fits on the "
                  "training set)")
      ->check(integer_in(1, 64))
      ->capture_default_str();
  cmd->add_option("--validation-samples", p.validation_samples,
                  "posterior samples for each validation score")
      ->check(integer_in(1, 100000))
      ->capture_default_str();
  cmd->add_option("--test-samples", p.test_samples, "posterior samples for the test metrics")
      ->check(integer_in(1, 100000))
      ->capture_default_str();
  cmd->add_option(
         "--ensemble", p.ensemble,
         "K: the final predictor is the equal-weight mixture of K networks trained on the "
         "whole training set from K independent starts, with the τ, δ and epochs chosen "
         "once per split as above (map_laplace: K − 1 more MAP + Laplace fits at the chosen "
         "ratio δ/τ, each with its own evidence-optimal τ and δ); the test "
         "log-likelihood is that of the mixture (log-mean-exp of the members' densities) "
         "and the RMSE that of its mean; costs K − 1 more final fits per split; 1: a "
         "single network")
      ->check(integer_in(1, 100))
      ->capture_default_str();
  cmd->add_flag("-v,--verbose", opt->verbose,
                "print every split (its metrics, chosen τ and epochs); default: the summary only");
  return Subcommand{cmd, [opt, &ranks] { return run(*opt, ranks); }, true};
}

}  // namespace ngvi::app
