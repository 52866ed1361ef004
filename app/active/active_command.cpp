#include <algorithm>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <app/active/active_command.hpp>
#include <app/active/active_learning.hpp>
#include <app/cli/common_options.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/cli/number_checks.hpp>
#include <app/io/staged_folder.hpp>
#include <app/methods/method_info.hpp>
#include <app/methods/method_settings.hpp>
#include <app/plot/render.hpp>
#include <app/uci/published_results.hpp>
#include <fmt/format.h>
#include <io/atomic_write.hpp>
#include <io/json_file.hpp>
#include <io/uci_folder.hpp>
#include <nlohmann/json.hpp>

namespace ngvi::app {
namespace {

struct ActiveCommandOptions {
  CommonOptions common{.out = "ngvi-active"};
  std::filesystem::path data;
  ActiveLearningOptions protocol;
};

std::string plus_minus(const MeanAndError& m) {
  return fmt::format("{:.3f} ± {:.3f}", m.mean, m.standard_error);
}

// Trials whose arm failed, and why (the first message).
struct Failures {
  int random = 0, active = 0;
  std::string first;
};
Failures failures_of(const ActiveLearningRun& run) {
  Failures f;
  for (std::size_t k = 0; k < run.trials.size(); ++k) {
    for (const auto* arm : {&run.trials[k].random, &run.trials[k].active}) {
      if (arm->ok) continue;
      (arm == &run.trials[k].random ? f.random : f.active) += 1;
      if (f.first.empty())
        f.first = fmt::format("trial {} ({}): {}", k,
                              arm == &run.trials[k].random ? "random" : "active", arm->message);
    }
  }
  return f;
}

// The per-round table, as Markdown (also printed).
std::string round_table(const ActiveLearningRun& run) {
  std::string t =
      "| round | training rows | RMSE, random | RMSE, active | RMSE, active − random (paired) "
      "| LL, random | LL, active |\n"
      "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (int r = 0; r < run.options.rounds; ++r) {
    const auto k = static_cast<std::size_t>(r);
    t += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", r + 1, run.options.initial_train + r,
                     plus_minus(run.random_rmse[k]), plus_minus(run.active_rmse[k]),
                     plus_minus(run.rmse_difference[k]), plus_minus(run.random_log_likelihood[k]),
                     plus_minus(run.active_log_likelihood[k]));
  }
  return t;
}

std::string published_table(const ActiveLearningRun& run, const std::string& label) {
  const auto published = published_active_results(run.dataset);
  const MeanAndError& random = run.random_rmse.back();
  const MeanAndError& active = run.active_rmse.back();
  std::string t =
      "| method | RMSE, random (_R) | RMSE, active (_A) | source |\n"
      "| --- | --- | --- | --- |\n";
  t += fmt::format("| {} (ngvi) | {} | {} | this run, round {} |\n", label, plus_minus(random),
                   plus_minus(active), run.options.rounds);
  for (const PublishedActiveResult& p : published)
    t += fmt::format("| {} | {:.3f} ± {:.3f} | {:.3f} ± {:.3f} | Zhang et al. 2018, Table 2 |\n",
                     p.method, p.random_rmse, p.random_se, p.active_rmse, p.active_se);
  return t;
}

nlohmann::json to_json(const ActiveLearningRun& run) {
  const ActiveLearningOptions& o = run.options;
  const MethodSettings& s = o.settings;
  nlohmann::json j;
  j["dataset"] = run.dataset;
  j["rows"] = run.rows;
  j["inputs"] = run.inputs;
  j["method"] = tool_method(s.method).name;
  j["settings"] = {{"initial_train", o.initial_train},
                   {"test", o.test},
                   {"rounds", o.rounds},
                   {"trials", o.trials},
                   {"hidden_units", o.hidden_units},
                   {"noise_precision", o.noise_precision},
                   {"prior_precision", s.prior_precision},
                   {"epochs", epochs_of(s)},
                   {"minibatch", s.minibatch},
                   {"learning_rate", learning_rate_of(s)},
                   {"predictive_samples", o.predictive_samples},
                   {"seed", o.seed}};
  auto summary = [](const std::vector<MeanAndError>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const MeanAndError& m : v)
      a.push_back({{"mean", m.mean}, {"standard_error", m.standard_error}});
    return a;
  };
  j["rmse"] = {{"random", summary(run.random_rmse)},
               {"active", summary(run.active_rmse)},
               {"active_minus_random", summary(run.rmse_difference)}};
  j["log_likelihood"] = {{"random", summary(run.random_log_likelihood)},
                         {"active", summary(run.active_log_likelihood)}};
  auto arm_json = [](const ActiveArm& a) {
    nlohmann::json rounds = nlohmann::json::array();
    for (const ActiveRound& r : a.rounds) {
      nlohmann::json x = {
          {"train_size", r.train_size}, {"rmse", r.rmse}, {"log_likelihood", r.log_likelihood}};
      if (r.added_row >= 0) {
        x["added_row"] = r.added_row;
        x["added_variance"] = r.added_variance;
        x["max_pool_variance"] = r.max_pool_variance;
      }
      rounds.push_back(x);
    }
    nlohmann::json out = {{"ok", a.ok}, {"rounds", rounds}};
    if (!a.ok) out["message"] = a.message;
    return out;
  };
  j["trials"] = nlohmann::json::array();
  for (const ActiveTrial& t : run.trials)
    j["trials"].push_back({{"initial_train_rows", t.initial_train_rows},
                           {"test_rows", t.test_rows},
                           {"random", arm_json(t.random)},
                           {"active", arm_json(t.active)}});
  j["published"] = nlohmann::json::array();
  for (const PublishedActiveResult& p : published_active_results(run.dataset))
    j["published"].push_back(
        {{"method", p.method},
         {"source", "Zhang, Sun, Duvenaud & Grosse 2018, Table 2"},
         {"random_rmse", {{"mean", p.random_rmse}, {"standard_error", p.random_se}}},
         {"active_rmse", {{"mean", p.active_rmse}, {"standard_error", p.active_se}}}});
  if (o.compare_hmc) {
    j["hmc"] = {{"chains", o.hmc.chains},
                {"warmup", o.hmc.warmup},
                {"draws", o.hmc.draws},
                {"max_tree_depth", o.hmc.max_tree_depth},
                {"predictive_samples", o.hmc.samples},
                {"correlation",
                 {{"mean", run.hmc_correlation.mean},
                  {"standard_error", run.hmc_correlation.standard_error},
                  {"trials", run.hmc_trials}}}};
    for (std::size_t k = 0; k < run.trials.size(); ++k) {
      const HmcComparison& h = run.trials[k].hmc;
      j["trials"][k]["hmc"] = {
          {"correlation", h.correlation}, {"max_rhat", h.max_rhat}, {"divergences", h.divergences}};
    }
    j["published_hmc_correlations"] = nlohmann::json::array();
    for (const PublishedCorrelation& p : published_hmc_correlations(run.dataset))
      j["published_hmc_correlations"].push_back(
          {{"method", p.method},
           {"source", "Zhang, Sun, Duvenaud & Grosse 2018, Table 3"},
           {"correlation", {{"mean", p.correlation}, {"standard_error", p.standard_error}}}});
  }
  j["seconds"] = run.seconds;
  return j;
}

// Table 3's statistic beside the paper's, as Markdown (also printed).
std::string hmc_table(const ActiveLearningRun& run, const std::string& label) {
  double max_rhat = 0.0;
  Eigen::Index divergences = 0;
  for (const ActiveTrial& t : run.trials) {
    max_rhat = std::max(max_rhat, t.hmc.max_rhat);
    divergences += t.hmc.divergences;
  }
  std::string t = "| method | correlation with HMC | source |\n| --- | --- | --- |\n";
  t += fmt::format(
      "| {} (ngvi) | {} | this run, {} of {} trials (HMC: max R-hat {:.3f}, {} divergences) |\n",
      label,
      run.hmc_trials > 0 ? plus_minus(run.hmc_correlation)
                         : std::string("undefined: the same variance at every row"),
      run.hmc_trials, run.options.trials, max_rhat, divergences);
  for (const PublishedCorrelation& p : published_hmc_correlations(run.dataset))
    t += fmt::format("| {} | {:.3f} ± {:.3f} | Zhang et al. 2018, Table 3 |\n", p.method,
                     p.correlation, p.standard_error);
  return t;
}

plot::LinePlot rmse_plot(const ActiveLearningRun& run, const std::string& label) {
  plot::LinePlot p;
  p.axes.title =
      fmt::format("{}: test RMSE of {}, mean of {} trials", run.dataset, label, run.options.trials);
  p.axes.xlabel = "labelled training rows";
  p.axes.ylabel = "test RMSE (original units)";
  std::vector<double> x;
  for (int r = 0; r < run.options.rounds; ++r)
    x.push_back(static_cast<double>(run.options.initial_train + r));
  auto means = [](const std::vector<MeanAndError>& v) {
    std::vector<double> y;
    for (const MeanAndError& m : v) y.push_back(m.mean);
    return y;
  };
  p.series.push_back(
      {"rows added at random", x, means(run.random_rmse), plot::Style::lines_points, ""});
  p.series.push_back({"rows of largest predictive variance", x, means(run.active_rmse),
                      plot::Style::lines_points, ""});
  return p;
}

int run(const ActiveCommandOptions& opt) {
  ThreadLimit threads(opt.common.threads);
  require_writable_folder("--out", opt.common.out);
  ActiveLearningOptions o = opt.protocol;
  o.seed = opt.common.seed;
  o.settings.threads = 1;
  const MethodInfo& method = tool_method(o.settings.method);
  const io::UciRows rows = io::load_uci_rows(opt.data);
  const std::string dataset = (opt.data / "").parent_path().filename().string();
  const Eigen::Index needed = o.initial_train + o.test + o.rounds - 1;
  if (rows.all.size() < needed)
    throw UsageError(
        fmt::format("--data {}: {} rows, but --initial-train {} + --test {} and {} rows added over "
                    "--rounds {} need {}",
                    opt.data.string(), rows.all.size(), o.initial_train, o.test, o.rounds - 1,
                    o.rounds, needed));
  fmt::print(
      "active learning on {} ({} rows, {} inputs): {}, {} trials of {} rounds, {} → {} "
      "training rows, {} test rows, {} hidden units, τ {:g}, δ {:g}, {} epochs, "
      "minibatch {}\n",
      dataset, rows.all.size(), rows.all.input_dim(), method.name, o.trials, o.rounds,
      o.initial_train, o.initial_train + o.rounds - 1, o.test, o.hidden_units, o.noise_precision,
      o.settings.prior_precision, epochs_of(o.settings), o.settings.minibatch);
  const ActiveLearningRun run = run_active_learning(rows.all, dataset, o);
  const Failures failed = failures_of(run);
  const std::string table = round_table(run);
  const std::string published = published_table(run, method.label);
  fmt::print(
      "\ntest RMSE and log-likelihood (original units), mean ± standard error over "
      "trials:\n\n{}\nafter the last round, beside the published figures:\n\n{}",
      table, published);
  const std::string hmc = o.compare_hmc ? hmc_table(run, method.label) : std::string();
  if (o.compare_hmc)
    fmt::print(
        "\nPearson correlation of the first round's predictive variances on the test rows "
        "with HMC's, mean ± standard error over trials:\n\n{}",
        hmc);
  if (failed.random + failed.active > 0)
    fmt::print("\n{} random and {} active arms stopped on a failed fit; the first: {}\n",
               failed.random, failed.active, failed.first);
  fmt::print("({:.1f} s)\n", run.seconds);

  StagedFolder folder(opt.common.out);  // the folder appears whole or not at all
  io::write_json_file(folder.path() / "active.json", to_json(run));
  io::write_file_atomically(
      folder.path() / "active.md",
      fmt::format("# Active learning on {}: {}\n\nTest RMSE and log-likelihood (original units) "
                  "per round, mean ± standard error over {} trials; \"active\" adds the pool row "
                  "of largest predictive variance, \"random\" a row drawn uniformly.\n\n{}\n"
                  "After the last round, beside the published figures:\n\n{}{}",
                  dataset, method.label, o.trials, table, published,
                  o.compare_hmc ? "\nPearson correlation of the first round's predictive "
                                  "variances on the test rows with HMC's:\n\n" +
                                      hmc
                                : std::string()));
  plot::render(rmse_plot(run, method.label), folder.path() / "rmse");
  folder.commit();
  fmt::print("\nresults written to {}\n", opt.common.out.string());
  return failed.random + failed.active == 0 ? exit_code::ok : exit_code::failed;
}

}  // namespace

Subcommand add_active_command(CLI::App& root) {
  auto opt = std::make_shared<ActiveCommandOptions>();
  ActiveLearningOptions& p = opt->protocol;
  MethodSettings& m = p.settings;
  m.epochs = 1000;  // Zhang et al. 2018, Appendix C.1
  m.minibatch = 10;
  CLI::App* cmd = root.add_subcommand(
      "active",
      "Active learning by predictive variance, the protocol of Hernández-Lobato & Adams 2015 as "
      "Zhang et al. 2018 ran it (their Table 2), on a folder in the format of ngvi's data/uci/ "
      "(data.txt, index_features.txt, index_target.txt; the splits are not used). Per trial the "
      "rows are shuffled into --initial-train training rows, --test test rows and a pool; each "
      "of --rounds rounds fits a network with one hidden layer from scratch on the training rows "
      "(standardised with their statistics), scores it on the test rows and moves one pool row "
      "into the training rows: the one of largest predictive variance (active) or one drawn "
      "uniformly (random, the control). Both arms of a trial share their first fit. Prints the "
      "test RMSE and log-likelihood per round (mean ± standard error over trials) and the last "
      "round beside the paper's PBP, noisy K-FAC and HMC figures, and writes active.json, "
      "active.md and the plot rmse.svg/png into --out. The noise precision τ is fixed (the paper "
      "learns it under a Gamma prior). Trials run in parallel; results are identical for any "
      "--threads. Exit code 1 if a fit failed (its arm stops; the others go on).");
  add_common_options(*cmd, opt->common,
                     "folder to write active.json, active.md and the plot into (created if "
                     "missing; the files appear together or not at all)");
  cmd->add_option("--data", opt->data, "the data set's folder (required)")
      ->required()
      ->check(CLI::ExistingDirectory);
  add_method_option(*cmd, m.method, "the method, default vogn");
  cmd->add_option("--trials", p.trials, "independent shuffles of the rows")
      ->check(integer_in(1, 10000))
      ->capture_default_str();
  cmd->add_option("--rounds", p.rounds, "fits per arm; rounds − 1 rows are added")
      ->check(integer_in(1, 100000))
      ->capture_default_str();
  cmd->add_option("--initial-train", p.initial_train, "labelled training rows at the first round")
      ->check(integer_in<Eigen::Index>(1, std::numeric_limits<Eigen::Index>::max()))
      ->capture_default_str();
  cmd->add_option("--test", p.test, "test rows of each trial")
      ->check(integer_in<Eigen::Index>(1, std::numeric_limits<Eigen::Index>::max()))
      ->capture_default_str();
  cmd->add_option("--hidden", p.hidden_units, "hidden units of the one hidden layer (ReLU)")
      ->check(integer_in<Eigen::Index>(1, 100000))
      ->capture_default_str();
  cmd->add_option("--noise-precision", p.noise_precision,
                  "τ of the Gaussian likelihood, standardised units (4: a noise sd of half the "
                  "training targets' sd)")
      ->check(positive_finite())
      ->capture_default_str();
  cmd->add_option("--prior-precision", m.prior_precision,
                  "δ of the prior N(0, 1/δ) on every weight and bias (standardised units)")
      ->check(positive_finite())
      ->capture_default_str();
  cmd->add_option("--epochs", m.epochs, "epochs of each fit (the paper's 1000)")
      ->check(integer_in<Eigen::Index>(1, max_epochs))
      ->capture_default_str();
  add_step_options(*cmd, m, "minibatch size M (the paper's 10)");
  cmd->add_option("--samples", p.predictive_samples,
                  "posterior draws of each predictive (test metrics and pool variances)")
      ->check(integer_in(1, 100000))
      ->capture_default_str();
  cmd->add_flag("--compare-hmc", p.compare_hmc,
                "also run HMC (NUTS, every chain started at the method's first posterior mean) on "
                "each trial's first training rows and report the Pearson correlation of the "
                "method's predictive variances on the test rows with HMC's, beside Zhang et al. "
                "2018's Table 3");
  cmd->add_option("--hmc-chains", p.hmc.chains, "HMC chains")
      ->check(integer_in(1, 64))
      ->capture_default_str();
  cmd->add_option("--hmc-warmup", p.hmc.warmup, "HMC warmup transitions per chain")
      ->check(integer_in(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--hmc-draws", p.hmc.draws, "HMC kept draws per chain")
      ->check(integer_in(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--hmc-tree-depth", p.hmc.max_tree_depth,
                  "NUTS's cap on doublings per transition (2^depth − 1 leapfrog steps)")
      ->check(integer_in(1, 15))
      ->capture_default_str();
  return Subcommand{cmd, [opt] { return run(*opt); }, false};
}

}  // namespace ngvi::app
