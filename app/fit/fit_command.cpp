// `ngvi fit` (see fit_command.hpp): read and check the inputs, fit or load the posterior, write
// the summary, the predictions and the posterior.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <app/cli/common_options.hpp>
#include <app/cli/exit_codes.hpp>
#include <app/cli/number_checks.hpp>
#include <app/fit/class_labels.hpp>
#include <app/fit/fit_command.hpp>
#include <app/fit/posterior_file.hpp>
#include <app/fit/prediction_table.hpp>
#include <app/io/atomic_write.hpp>
#include <app/io/csv_table.hpp>
#include <app/io/fit_files.hpp>
#include <app/io/training_table.hpp>
#include <app/methods/fit_method.hpp>
#include <app/methods/predict.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/likelihoods/softmax_categorical.hpp>

namespace ngvi::app {
namespace {

struct FitCommandOptions {
  CommonOptions common{.out = "ngvi-fit"};
  std::filesystem::path csv;        // the training table; empty: apply --posterior instead
  std::string target;               // the target column of --csv
  std::string task = "regression";  // or "classification"
  std::string method = "vogn";      // a method name of app/methods/method_settings.hpp
  MethodSettings settings{};        // δ, epochs, M, step size (method filled from `method`)
  std::vector<Eigen::Index> hidden = {50};  // hidden widths; 0 alone: a linear model
  std::string activation = "relu";          // or "tanh"
  double noise_precision = 10.0;            // τ of the Gaussian likelihood, standardised units
  std::filesystem::path posterior;          // a saved posterior to apply instead of fitting
  std::filesystem::path predict;            // rows to predict
  int samples = 100;                        // posterior draws of the predictive
  std::filesystem::path checkpoint;         // write the fit loop's checkpoints here
  Eigen::Index checkpoint_every = 100;      // iterations between checkpoints
  std::filesystem::path resume;             // continue the run checkpointed here
  int classes = 0;  // classification: the number of classes; 0: the largest label + 1, checked
};

// A CSV field, quoted if it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// The shortest text that reads back as the same double.
std::string number(double v) { return fmt::format("{}", v); }

// The model of `spec` over the standardised inputs X (and targets Y, original units).
NetworkModel regression_model(const NetworkSpec& spec, const Eigen::MatrixXd& X,
                              const Eigen::MatrixXd& Y) {
  return NetworkModel(
      spec.network(), nn::GaussianFixedNoise(spec.noise_precision),
      nn::Dataset{spec.input_scaling.transform(X), spec.target_scaling.transform(Y)});
}
NetworkModel classification_model(const NetworkSpec& spec, const Eigen::MatrixXd& X,
                                  const Eigen::MatrixXd& Y) {
  return NetworkModel(spec.network(), nn::SoftmaxCategorical(spec.classes),
                      nn::Dataset{spec.input_scaling.transform(X), Y});
}

// The posterior by parameter block: the mean and spread of the means and standard deviations,
// as summary.csv and summary.json staged in `staged`.
void stage_summary(const SavedPosterior& s, const std::filesystem::path& out,
                   std::vector<AtomicFile>& staged) {
  const nn::Sequential net = s.spec.network();
  const nn::ParameterLayout& layout = net.layout();
  const Eigen::VectorXd mu = mean_of(s.posterior);
  const Eigen::VectorXd sd = marginal_variances_of(s.posterior).cwiseSqrt();
  std::string csv = "block,rows,cols,mean_of_means,mean_abs_mean,mean_sd,min_sd,max_sd\n";
  nlohmann::json blocks = nlohmann::json::array();
  for (const nn::Block& b : layout.blocks()) {
    const auto m = mu.segment(b.offset, b.size()).array();
    const auto d = sd.segment(b.offset, b.size()).array();
    const double vals[] = {m.mean(), m.abs().mean(), d.mean(), d.minCoeff(), d.maxCoeff()};
    csv += fmt::format("{},{},{}", csv_field(b.name), b.rows, b.cols);
    for (const double v : vals) csv += "," + number(v);
    csv += "\n";
    blocks.push_back({{"block", b.name},
                      {"rows", b.rows},
                      {"cols", b.cols},
                      {"mean_of_means", vals[0]},
                      {"mean_abs_mean", vals[1]},
                      {"mean_sd", vals[2]},
                      {"min_sd", vals[3]},
                      {"max_sd", vals[4]}});
  }
  staged.emplace_back(out / "summary.csv").write(csv);
  const nlohmann::json j = {
      {"method", s.method},
      {"family", family_name(s.posterior)},
      {"parameters", mu.size()},
      {"note", "standardised units; sd = marginal posterior standard deviation"},
      {"blocks", blocks}};
  staged.emplace_back(out / "summary.json").write(j.dump(2) + "\n");
}

// <stem>.csv and <stem>.json, written row by row into their temporary files (never held in
// memory whole) and published together by commit().
struct PredictionFiles {
  AtomicFile csv, json;
  void commit() {
    csv.commit();
    json.commit();
  }
};

// A flat JSON object on one line, `{"key": value, ...}` in the given order (keys are literals
// without characters to escape).
std::string json_line(std::initializer_list<std::pair<const char*, nlohmann::json>> fields) {
  std::string text = "{";
  for (const auto& [key, value] : fields)
    text += (text.size() > 1 ? ", \"" : "\"") + std::string(key) + "\": " + value.dump();
  return text + "}";
}

// Throws std::runtime_error unless v is finite: a predictive that overflowed (a posterior with a
// finite but huge weight, inputs far outside the training range) is a failure to report, never
// numbers ("inf", "-nan") in a file.
void require_finite(double v, const char* what, std::size_t line,
                    const std::filesystem::path& file) {
  if (!std::isfinite(v))
    throw std::runtime_error(fmt::format(
        "the predictive {} of line {} of {} is not finite: the posterior's weights are too "
        "large for these inputs; nothing was written",
        what, line, file.string()));
}

// Predicts the rows of `inputs` (lines `lines` of `file`) into <out>/<stem>.csv and .json, staged
// until commit(). Throws std::runtime_error naming the first row and quantity that is not
// finite (the staged files are then removed). Cost: the predictive, and O(rows) text written
// as it is produced.
PredictionFiles predictions(const SavedPosterior& s, const PredictionInputs& inputs,
                            const std::vector<std::size_t>& lines,
                            const std::filesystem::path& file, const std::filesystem::path& out,
                            const std::string& stem, const FitCommandOptions& opt) {
  const NetworkSpec& spec = s.spec;
  const Eigen::Index n = inputs.X.rows();
  PredictOptions po;
  po.samples = opt.samples;
  po.linearised = s.method == method_name(Method::laplace);
  po.threads = 0;
  std::seed_seq seq{static_cast<std::uint32_t>(opt.common.seed),
                    static_cast<std::uint32_t>(opt.common.seed >> 32), 7u};
  vi::Rng rng(seq);
  PredictionFiles f{AtomicFile(out / (stem + ".csv")), AtomicFile(out / (stem + ".json"))};
  const bool scored = inputs.Y.has_value();
  const std::string target = scored ? "," + csv_field(spec.target) : "";
  const std::string head =
      fmt::format("{{\n  \"file\": {},\n  \"method\": {},\n  \"task\": {},\n",
                  nlohmann::json(file.string()).dump(), nlohmann::json(s.method).dump(),
                  spec.classification ? "\"classification\"" : "\"regression\"");
  // Row i: its CSV line, and its JSON object as an entry of "rows".
  const auto row = [&](Eigen::Index i, const std::string& csv_line, const std::string& json) {
    f.csv.write(csv_line);
    f.json.write(i == 0 ? "    " : ",\n    ").write(json);
  };
  if (!spec.classification) {
    const Eigen::MatrixXd Y =
        scored ? *inputs.Y : Eigen::MatrixXd(spec.target_scaling.mean.replicate(n, 1));
    const vi::RegressionPredictive p = predict_regression(
        s.posterior, regression_model(spec, inputs.X, Y), spec.target_scaling, rng, po);
    f.csv.write("line" + target + ",mean,sd,lower_95,upper_95\n");
    f.json.write(head);
    if (scored)
      f.json.write("  \"metrics\": " +
                   json_line({{"rmse", p.rmse}, {"log_likelihood", p.test_log_likelihood}}) +
                   ",\n");
    f.json.write("  \"rows\": [\n");
    for (Eigen::Index i = 0; i < n; ++i) {
      const double m = p.mean(i, 0), sd = std::sqrt(p.variance(i, 0));
      const std::size_t line = lines[static_cast<std::size_t>(i)];
      require_finite(m, "mean", line, file);
      require_finite(sd, "standard deviation", line, file);
      row(i,
          std::to_string(line) + (scored ? "," + number(Y(i, 0)) : "") + "," + number(m) + "," +
              number(sd) + "," + number(m - 1.959963984540054 * sd) + "," +
              number(m + 1.959963984540054 * sd) + "\n",
          scored ? json_line({{"line", line}, {"mean", m}, {"sd", sd}, {"target", Y(i, 0)}})
                 : json_line({{"line", line}, {"mean", m}, {"sd", sd}}));
    }
  } else {
    const Eigen::MatrixXd Y = scored ? *inputs.Y : Eigen::MatrixXd(Eigen::MatrixXd::Zero(n, 1));
    const vi::ClassificationPredictive p =
        predict_classification(s.posterior, classification_model(spec, inputs.X, Y), rng, po);
    std::string header = "line" + target + ",predicted";
    for (int c = 0; c < spec.classes; ++c) header += ",p_" + std::to_string(c);
    f.csv.write(header + "\n");
    f.json.write(head);
    if (scored)
      f.json.write(
          "  \"metrics\": " +
          json_line(
              {{"accuracy", p.metrics.accuracy}, {"nll", p.metrics.nll}, {"ece", p.metrics.ece}}) +
          ",\n");
    f.json.write("  \"rows\": [\n");
    for (Eigen::Index i = 0; i < n; ++i) {
      const std::size_t line = lines[static_cast<std::size_t>(i)];
      for (int c = 0; c < spec.classes; ++c)
        require_finite(p.probabilities(i, c), "probability", line, file);
      Eigen::Index best = 0;
      p.probabilities.row(i).maxCoeff(&best);
      std::string csv =
          std::to_string(line) + (scored ? "," + number(Y(i, 0)) : "") + "," + std::to_string(best);
      std::vector<double> probs;
      for (int c = 0; c < spec.classes; ++c) {
        csv += "," + number(p.probabilities(i, c));
        probs.push_back(p.probabilities(i, c));
      }
      row(i, csv + "\n",
          scored ? json_line({{"line", line},
                              {"predicted", best},
                              {"probabilities", probs},
                              {"target", Y(i, 0)}})
                 : json_line({{"line", line}, {"predicted", best}, {"probabilities", probs}}));
    }
  }
  f.json.write("\n  ]\n}\n");
  return f;
}

// Reads --csv, checks it for the task, and builds the network spec (scaling from these rows).
NetworkSpec spec_of(const TrainingTable& t, const CsvTable& table, const FitCommandOptions& opt) {
  NetworkSpec spec;
  spec.classification = opt.task == "classification";
  spec.inputs = t.input_names;
  spec.target = t.target_name;
  if (!(opt.hidden.size() == 1 && opt.hidden[0] == 0)) spec.hidden = opt.hidden;
  if (std::find(spec.hidden.begin(), spec.hidden.end(), 0) != spec.hidden.end())
    throw UsageError("--hidden: widths must be positive (a single 0 means no hidden layer)");
  spec.tanh = opt.activation == "tanh";
  spec.input_scaling = nn::Standardizer::fit(t.data.X);
  if (spec.classification) {
    const Eigen::Index column = table.column(opt.target);
    if (opt.classes > 0) {
      check_class_labels(table, column, opt.classes);
      spec.classes = opt.classes;
    } else {
      spec.classes = infer_class_count(table, column);
    }
    spec.target_scaling = nn::Standardizer::identity(1);
  } else {
    spec.target_scaling = nn::Standardizer::fit(t.data.Y);
    spec.noise_precision = opt.noise_precision;
  }
  return spec;
}

// What every rank must agree on before a fit under mpirun: the table as read (its size and a
// checksum of its numbers) and the settings that shape the fit.
std::string fingerprint(const TrainingTable& t, const FitCommandOptions& opt) {
  auto bytes = [](const Eigen::MatrixXd& m) {
    return std::hash<std::string_view>{}(
        std::string_view(reinterpret_cast<const char*>(m.data()), sizeof(double) * m.size()));
  };
  std::string hidden;
  for (const Eigen::Index h : opt.hidden) hidden += (hidden.empty() ? "" : ",") + std::to_string(h);
  return fmt::format(
      "{} rows of {} inputs, checksum {:016x}{:016x}; {} {} {} [{}], seed {}, "
      "{} epochs of {}",
      t.data.X.rows(), t.data.X.cols(), bytes(t.data.X), bytes(t.data.Y), opt.task, opt.method,
      opt.activation, hidden, opt.common.seed, epochs_of(opt.settings), opt.settings.minibatch);
}

int run(FitCommandOptions opt, const Ranks& ranks) {
  const ThreadLimit limit(opt.common.threads);
  const bool fitting = !opt.csv.empty();
  std::optional<CsvTable> predict_table;
  SavedPosterior saved;
  std::optional<TrainingTable> training;
  std::optional<PredictionInputs> to_predict;
  std::optional<vi::FitCheckpoint> resume;
  // Every input is read and checked, on every rank, before anything is computed or written.
  ranks.on_every_rank([&] {
    if (fitting == !opt.posterior.empty())
      throw UsageError(
          "give either --csv FILE --target COLUMN (fit a network) or --posterior FILE "
          "--predict FILE (apply a saved posterior), not " +
          std::string(fitting ? "both" : "neither"));
    if (fitting && opt.target.empty()) throw UsageError("--csv needs --target COLUMN");
    if (!fitting && opt.predict.empty())
      throw UsageError("--posterior needs --predict FILE (the rows to predict)");
    if (!fitting && !(opt.checkpoint.empty() && opt.resume.empty()))
      throw UsageError("--checkpoint and --resume belong to a fit (--csv), not to --posterior");
    if (opt.classes > 0 && !(fitting && opt.task == "classification"))
      throw UsageError(
          "--classes belongs to a classification fit (--csv with --task classification); a "
          "saved posterior states its own");
    require_existing_folder("--checkpoint", opt.checkpoint);
    opt.settings.method = parse_method(opt.method);
    opt.settings.threads = 0;
    if (!opt.predict.empty()) predict_table = read_csv_table(opt.predict);
    if (fitting) {
      const CsvTable table = read_csv_table(opt.csv);
      training = select_training_columns(table, opt.target);
      saved.spec = spec_of(*training, table, opt);
      saved.method = method_name(opt.settings.method);
    } else {
      saved = read_posterior_file(opt.posterior);
    }
    if (predict_table) to_predict = select_prediction_inputs(*predict_table, saved.spec);
    if (!opt.resume.empty()) {
      try {
        resume = load_checkpoint(opt.resume);
      } catch (const std::exception& e) {
        throw UsageError(std::string("--resume: ") + e.what());
      }
    }
    if (ranks.leader()) require_writable_folder("--out", opt.common.out);  // rank 0 writes
  });
  if (fitting) ranks.require_same("the training data and settings", fingerprint(*training, opt));
  if (!fitting && !ranks.leader()) return exit_code::ok;  // applying a posterior: rank 0 alone

  if (fitting) {
    std::seed_seq seq{static_cast<std::uint32_t>(opt.common.seed),
                      static_cast<std::uint32_t>(opt.common.seed >> 32)};
    vi::Rng rng(seq);
    FitRequest request;
    request.settings = opt.settings;
    request.reducer = ranks.reducer();
    if (ranks.leader()) request.checkpoint = opt.checkpoint;
    request.checkpoint_every = opt.checkpoint_every;
    request.resume = resume;
    const Eigen::MatrixXd& X = training->data.X;
    const Eigen::MatrixXd& Y = training->data.Y;
    const FitOutcome out = saved.spec.classification
                               ? fit_method(classification_model(saved.spec, X, Y), request, rng)
                               : fit_method(regression_model(saved.spec, X, Y), request, rng);
    if (!out.ok) throw std::runtime_error("the fit failed: " + out.message);
    if (!ranks.leader()) return exit_code::ok;
    saved.posterior = out.posterior;
    fmt::print("fitted {} ({} parameters) to {} rows of {} in {:.2f} s{}\n",
               method_name(opt.settings.method), mean_of(saved.posterior).size(), X.rows(),
               opt.csv.string(), out.seconds,
               ranks.size() > 1 ? fmt::format(" on {} ranks", ranks.size()) : std::string());
  }

  // Every file is written to its temporary file, and every prediction checked finite, before the
  // first is renamed into place: a failure on the way leaves no file of this run (and no new
  // --out folder).
  const std::filesystem::path& out = opt.common.out;
  const bool new_folder = !std::filesystem::exists(out);
  std::filesystem::create_directories(out);
  try {
    std::vector<AtomicFile> staged;
    if (fitting) {
      staged.emplace_back(out / "posterior.json").write(posterior_json(saved).dump(2) + "\n");
      stage_summary(saved, out, staged);
    }
    std::vector<PredictionFiles> tables;
    if (fitting)
      tables.push_back(predictions(saved, PredictionInputs{training->data.X, training->data.Y},
                                   training->lines, opt.csv, out, "fitted", opt));
    if (to_predict)
      tables.push_back(predictions(saved, *to_predict, predict_table->lines, opt.predict, out,
                                   "predictions", opt));
    for (AtomicFile& f : staged) f.commit();
    for (PredictionFiles& t : tables) t.commit();
  } catch (...) {
    std::error_code ignored;
    if (new_folder && std::filesystem::is_empty(out, ignored))
      std::filesystem::remove(out, ignored);
    throw;
  }
  fmt::print("written to {}: {}\n", out.string(),
             fitting ? std::string("posterior.json, summary.csv/.json, fitted.csv/.json") +
                           (to_predict ? ", predictions.csv/.json" : "")
                     : std::string("predictions.csv/.json"));
  return exit_code::ok;
}

}  // namespace

Subcommand add_fit_command(CLI::App& root, const Ranks& ranks) {
  auto opt = std::make_shared<FitCommandOptions>();
  MethodSettings& m = opt->settings;
  CLI::App* cmd = root.add_subcommand(
      "fit",
      "Fit a Bayesian neural network to your own CSV table (a header line naming the columns, "
      "then one number per cell), or apply a saved posterior to new rows. Inputs (every column "
      "but the target) are standardised with the table's statistics, a regression target too. "
      "Writes into --out: posterior.json (the network, its scaling and q, for --posterior), "
      "summary.csv/.json (the posterior by parameter block: mean and spread of the means and "
      "standard deviations, standardised units), fitted.csv/.json (each row's predictive mean "
      "and standard deviation with a 95 % interval, or class probabilities) and, with "
      "--predict, predictions.csv/.json for those rows (scored if they hold the target). A "
      "malformed CSV, an unknown column, a non-numeric, empty, NaN or infinite cell, a constant "
      "column or a bad class label is an error naming the file, line and column (exit code 2), "
      "and nothing is written.");
  add_common_options(*cmd, opt->common, "folder to write the results into (created if missing)");
  cmd->add_option("--csv", opt->csv, "the training table (CSV with a header); default: none")
      ->check(CLI::ExistingFile);
  cmd->add_option("--target", opt->target, "the target column of --csv (its header name)");
  cmd->add_option("--task", opt->task,
                  "regression (Gaussian likelihood) or classification (softmax; the target holds "
                  "class labels 0, 1, ..., C-1)")
      ->check(CLI::IsMember({"regression", "classification"}))
      ->capture_default_str();
  std::string names;
  for (const Method x : all_methods)
    names += std::string(names.empty() ? "" : ", ") + method_name(x);
  cmd->add_option("--classes", opt->classes,
                  "classification: the number of classes C (labels must be 0..C-1); default: the "
                  "largest label + 1, refused as a likely mistyped label if it exceeds the rows "
                  "or max(2x, x + 10) for x distinct labels")
      ->check(integer_in(2, max_classes));
  cmd->add_option("--method", opt->method, "the inference method: " + names)
      ->check(CLI::IsMember(std::vector<std::string>([] {
        std::vector<std::string> v;
        for (const Method x : all_methods) v.push_back(method_name(x));
        return v;
      }())))
      ->capture_default_str();
  cmd->add_option("--hidden", opt->hidden,
                  "hidden layer widths, comma-separated (e.g. 50,20); 0 = no hidden layer")
      ->delimiter(',')
      ->check(integer_in<Eigen::Index>(0, 100000))
      ->capture_default_str();
  cmd->add_option("--activation", opt->activation, "hidden activation: relu or tanh")
      ->check(CLI::IsMember({"relu", "tanh"}))
      ->capture_default_str();
  cmd->add_option("--noise-precision", opt->noise_precision,
                  "regression: τ, the Gaussian noise precision in standardised units (10: noise "
                  "sd of 0.32 target standard deviations)")
      ->check(positive_finite())
      ->capture_default_str();
  cmd->add_option("--prior-precision", m.prior_precision,
                  "δ of the prior N(0, 1/δ) on every weight (standardised units)")
      ->check(positive_finite())
      ->capture_default_str();
  cmd->add_option(
         "--epochs", m.epochs,
         "passes over the data; default: 0 = the method's own (vogn, ivon, noisy-kfac 200; "
         "von 40; map 1000, laplace 2000; noisy-adam, bbb 800)")
      ->check(integer_in<Eigen::Index>(0, max_epochs))
      ->capture_default_str();
  cmd->add_option("--minibatch", m.minibatch, "minibatch size (capped at the number of rows)")
      ->check(integer_in<Eigen::Index>(1, std::numeric_limits<Eigen::Index>::max()))
      ->capture_default_str();
  cmd->add_option("--learning-rate", m.learning_rate,
                  "step size of the mean; default: 0 = the method's own (0.01; ivon 0.05; von 0.1)")
      ->check(nonnegative_finite())
      ->capture_default_str();
  add_von_remedy_option(*cmd, m);
  add_vogn_curvature_option(*cmd, m);
  cmd->add_option("--posterior", opt->posterior,
                  "a posterior.json written by ngvi fit: apply it to --predict instead of fitting; "
                  "default: none")
      ->check(CLI::ExistingFile);
  cmd->add_option("--predict", opt->predict,
                  "a CSV with the input columns (by name, any order): write predictions.csv/.json "
                  "for its rows; default: none")
      ->check(CLI::ExistingFile);
  cmd->add_option("--samples", opt->samples,
                  "posterior draws of the predictive (laplace: the linearised predictive, exact)")
      ->check(integer_in(1, 100000))
      ->capture_default_str();
  cmd->add_option("--checkpoint", opt->checkpoint,
                  "write the fit loop's state to this file every --checkpoint-every iterations "
                  "and at the end (atomically; under mpirun rank 0 writes it), to continue an "
                  "interrupted run with --resume; default: none");
  cmd->add_option("--checkpoint-every", opt->checkpoint_every,
                  "iterations (minibatch steps) between checkpoints")
      ->check(integer_in<Eigen::Index>(1, std::numeric_limits<Eigen::Index>::max()))
      ->capture_default_str();
  cmd->add_option("--resume", opt->resume,
                  "continue the run checkpointed in this file (same --csv, method and settings; "
                  "any number of threads or MPI ranks): the result is bitwise that of the "
                  "uninterrupted run; default: none")
      ->check(CLI::ExistingFile);
  return Subcommand{cmd, [opt, &ranks] { return run(*opt, ranks); }, true};
}

}  // namespace ngvi::app
