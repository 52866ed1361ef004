// `ngvi fit` (see fit_command.hpp): read and check the inputs, fit or load the posterior, write
// the summary, the predictions and the posterior.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
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
#include <app/methods/fit_method.hpp>
#include <app/methods/method_info.hpp>
#include <app/methods/predict.hpp>
#include <fmt/format.h>
#include <io/atomic_write.hpp>
#include <io/checkpoint_file.hpp>
#include <io/csv_table.hpp>
#include <io/training_table.hpp>
#include <nlohmann/json.hpp>

#include <inference/batch_reducer.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/likelihoods/softmax_categorical.hpp>

namespace ngvi::app {
namespace {

struct FitCommandOptions {
  CommonOptions common{.out = "ngvi-fit"};
  std::filesystem::path csv;        // the training table; empty: apply --posterior instead
  std::string target;               // the target column of --csv
  std::string task = "regression";  // or "classification"
  bool task_given = false;          // --task was on the command line
  std::string method = "vogn";      // a method name or alias (app/methods/method_info.hpp)
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
  std::filesystem::path prior;              // a posterior.json whose q is this fit's prior
  int classes = 0;  // classification: the number of classes; 0: the largest label + 1, checked
  bool divide_data = false;  // each rank reads and holds the rows of its row blocks alone
};

// The row blocks of --divide-data: as many as the fit's minibatch sums use by default.
constexpr Eigen::Index divided_blocks = 16;

// With --divide-data, which rows of the table this rank holds: rows.rows_of(rank, ranks).
struct DividedRows {
  vi::RowBlocks blocks;
  Eigen::Index first = 0;  // this rank's first row (0-based, data records)
  Eigen::Index count = 0;  // and how many
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

// The likelihood of `spec`'s network.
NetworkLikelihood likelihood_of(const NetworkSpec& spec) {
  if (spec.classification) return nn::SoftmaxCategorical(spec.classes);
  return nn::GaussianFixedNoise(spec.noise_precision);
}

// The model of `spec` over the standardised inputs X (and targets Y, original units; class
// labels for a classifier). It holds its own standardised copy of X and Y.
NetworkModel model_of(const NetworkSpec& spec, const Eigen::MatrixXd& X, const Eigen::MatrixXd& Y) {
  return NetworkModel(spec.network(), likelihood_of(spec),
                      nn::Dataset{spec.input_scaling.transform(X),
                                  spec.classification ? Y : spec.target_scaling.transform(Y)});
}

// With --divide-data: the model over this rank's rows of the table, `data` standardised in place
// (the same numbers as model_of's copy) and moved into the model, which holds them as the window
// of rows `rows` gives this rank. Cost: O(rows held · columns), no copy.
NetworkModel divided_model_of(const NetworkSpec& spec, nn::Dataset&& data,
                              const DividedRows& rows) {
  data.X = ((data.X.rowwise() - spec.input_scaling.mean).array().rowwise() /
            spec.input_scaling.scale.array())
               .matrix();
  if (!spec.classification)
    data.Y = ((data.Y.rowwise() - spec.target_scaling.mean).array().rowwise() /
              spec.target_scaling.scale.array())
                 .matrix();
  return NetworkModel(spec.network(), likelihood_of(spec),
                      std::make_shared<const nn::Dataset>(std::move(data)),
                      nn::RowWindow{rows.first, rows.blocks.rows()});
}

// With --divide-data: the scalings of the whole table's inputs and target from this rank's rows
// of it, their sums over the row blocks formed through `reducer` (the same bits on any number of
// ranks): mean = Σx/N, then scale = sqrt(Σ(x − mean)²/N), as nn::Standardizer::fit computes
// them (in another order of summation). Throws io::DataError for a column that does not vary.
// Cost: two passes over the rows held and two exchanges of D + 1 numbers per block.
std::pair<nn::Standardizer, nn::Standardizer> divided_scalings(const io::TrainingTable& t,
                                                               const DividedRows& rows,
                                                               const vi::BatchReducer& reducer) {
  const Eigen::Index d = t.data.X.cols(), n = rows.blocks.rows();
  Eigen::RowVectorXd mean;
  auto column_sums = [&](bool squares) {
    return reducer.sum_all(n, d + 1, ad::ParallelOptions{},
                           [&](std::span<const Eigen::Index> examples, const ad::ParallelOptions&,
                               Eigen::VectorXd& acc) {
                             for (const Eigen::Index i : examples) {
                               const Eigen::Index r = i - rows.first;
                               for (Eigen::Index c = 0; c <= d; ++c) {
                                 const double x = c < d ? t.data.X(r, c) : t.data.Y(r, 0);
                                 acc(c) += squares ? (x - mean(c)) * (x - mean(c)) : x;
                               }
                             }
                           });
  };
  mean = (column_sums(false) / static_cast<double>(n)).transpose();
  const Eigen::RowVectorXd scale =
      (column_sums(true) / static_cast<double>(n)).cwiseSqrt().transpose();
  for (Eigen::Index c = 0; c <= d; ++c)
    if (!(scale(c) > 0.0))
      throw io::DataError(
          t.file, 0, 0, std::string(c == d ? "a target" : "an input") + " column whose values vary",
          "column " +
              io::quote_bytes(c == d ? t.target_name : t.input_names[static_cast<std::size_t>(c)]) +
              " holding " + fmt::format("{}", mean(c)) + " on every one of its " +
              std::to_string(n) + " data lines");
  return {nn::Standardizer{mean.head(d), scale.head(d)},
          nn::Standardizer{mean.tail(1), scale.tail(1)}};
}

// The posterior by parameter block: the mean and spread of the means and standard deviations,
// as summary.csv and summary.json staged in `staged`; summary.json also records `metrics`, the
// scores of the training rows and of scored --predict rows (PredictionFiles::metrics).
void stage_summary(const SavedPosterior& s, const nlohmann::json& metrics,
                   const std::filesystem::path& out, std::vector<io::AtomicFile>& staged) {
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
      {"note",
       "blocks: standardised units, sd = marginal posterior standard deviation; metrics: "
       "original units, per row"},
      {"blocks", blocks},
      {"metrics", metrics}};
  staged.emplace_back(out / "summary.json").write(j.dump(2) + "\n");
}

// <stem>.csv and <stem>.json, written row by row into their temporary files (never held in
// memory whole) and published together by commit(); `metrics` holds the scores of the rows, as
// the JSON file's "metrics" states them (null if the rows have no target).
struct PredictionFiles {
  io::AtomicFile csv, json;
  nlohmann::json metrics;
  void commit() {
    csv.commit();
    json.commit();
  }
};

// Fields of a flat JSON object, in order (keys are literals without characters to escape).
using JsonFields = std::vector<std::pair<const char*, nlohmann::json>>;

// `v` on one line, an object's members as `"key": value` separated by ", ".
std::string one_line(const nlohmann::json& v) {
  if (!v.is_object()) return v.dump();
  std::string text = "{";
  for (const auto& [key, value] : v.items())
    text += (text.size() > 1 ? ", " : "") + nlohmann::json(key).dump() + ": " + one_line(value);
  return text + "}";
}

// A JSON object on one line, `{"key": value, ...}` in the given order.
std::string json_line(const JsonFields& fields) {
  std::string text = "{";
  for (const auto& [key, value] : fields)
    text += (text.size() > 1 ? ", \"" : "\"") + std::string(key) + "\": " + one_line(value);
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

// z with Φ(z) = 0.975: the 95 % predictive interval is mean ± z·sd.
constexpr double z_95 = 1.959963984540054;

// What the regression or the classification branch adds to a prediction table: the columns
// after the target (CSV header text, from its first comma), the scores of the rows if they have
// targets (else none), and row i's cells — its CSV text after the target and its JSON fields —
// with every number checked finite (require_finite).
struct PredictedColumns {
  std::string header;
  JsonFields metrics;
  std::function<void(Eigen::Index i, std::size_t line, std::string& csv, JsonFields& json)> row;
};

// The Gaussian-likelihood predictive of the rows of `model` (model_of; targets Y, original
// units, if scored): mean, sd and the 95 % interval mean ± z·sd; scored, the RMSE, the mean
// log-likelihood per row and the fraction of rows whose target lies in the interval
// (coverage_95, with the count).
PredictedColumns regression_columns(const SavedPosterior& s, const NetworkModel& model,
                                    const Eigen::MatrixXd* Y, const std::filesystem::path& file,
                                    vi::Rng& rng, const PredictOptions& po) {
  auto p = std::make_shared<const vi::RegressionPredictive>(
      predict_regression(s.posterior, model, s.spec.target_scaling, rng, po));
  PredictedColumns c;
  c.header = ",mean,sd,lower_95,upper_95";
  if (Y != nullptr) {
    const Eigen::ArrayXd sd = p->variance.col(0).array().sqrt();
    const auto inside = ((Y->col(0) - p->mean.col(0)).array().abs() <= z_95 * sd).count();
    c.metrics = {{"rows", Y->rows()},
                 {"rmse", p->rmse},
                 {"log_likelihood", p->test_log_likelihood},
                 {"rows_in_95_interval", inside},
                 {"coverage_95", static_cast<double>(inside) / static_cast<double>(Y->rows())}};
  }
  c.row = [p, &file](Eigen::Index i, std::size_t line, std::string& csv, JsonFields& json) {
    const double m = p->mean(i, 0), sd = std::sqrt(p->variance(i, 0));
    require_finite(m, "mean", line, file);
    require_finite(sd, "standard deviation", line, file);
    csv += "," + number(m) + "," + number(sd) + "," + number(m - z_95 * sd) + "," +
           number(m + z_95 * sd);
    json.emplace_back("mean", m);
    json.emplace_back("sd", sd);
  };
  return c;
}

// The softmax predictive of the rows of `model` (model_of; labels Y, if scored): the most
// probable class and every class's probability; scored, the accuracy, the mean negative
// log-likelihood per row and the ECE.
PredictedColumns classification_columns(const SavedPosterior& s, const NetworkModel& model,
                                        const Eigen::MatrixXd* Y, const std::filesystem::path& file,
                                        vi::Rng& rng, const PredictOptions& po) {
  auto p = std::make_shared<const vi::ClassificationPredictive>(
      predict_classification(s.posterior, model, rng, po));
  PredictedColumns c;
  c.header = ",predicted";
  for (int k = 0; k < s.spec.classes; ++k) c.header += ",p_" + std::to_string(k);
  if (Y != nullptr) {
    Eigen::Index right = 0;  // rows whose most probable class (the "predicted" column) is the label
    for (Eigen::Index i = 0; i < Y->rows(); ++i) {
      Eigen::Index best = 0;
      p->probabilities.row(i).maxCoeff(&best);
      right += static_cast<double>(best) == (*Y)(i, 0) ? 1 : 0;
    }
    c.metrics = {{"rows", Y->rows()},
                 {"accuracy", p->metrics.accuracy},
                 {"rows_right", right},
                 {"nll", p->metrics.nll},
                 {"ece", p->metrics.ece}};
  }
  c.row = [p, &file](Eigen::Index i, std::size_t line, std::string& csv, JsonFields& json) {
    for (Eigen::Index k = 0; k < p->probabilities.cols(); ++k)
      require_finite(p->probabilities(i, k), "probability", line, file);
    Eigen::Index best = 0;
    p->probabilities.row(i).maxCoeff(&best);
    csv += "," + std::to_string(best);
    std::vector<double> probs;
    for (Eigen::Index k = 0; k < p->probabilities.cols(); ++k) {
      csv += "," + number(p->probabilities(i, k));
      probs.push_back(p->probabilities(i, k));
    }
    json.emplace_back("predicted", best);
    json.emplace_back("probabilities", std::move(probs));
  };
  return c;
}

// Prints the scores of a prediction table (PredictionFiles::metrics) on one line: RMSE, mean
// log-likelihood and the 95 % interval's coverage, or accuracy and mean NLL.
void print_metrics(const std::string& rows, const nlohmann::json& m) {
  if (m.contains("rmse"))
    fmt::print(
        "{}: RMSE {:.6g}, mean log-likelihood {:.6g} nats per row, 95 % predictive interval "
        "covers {} of {} rows ({:.1f} %)\n",
        rows, m["rmse"].get<double>(), m["log_likelihood"].get<double>(),
        m["rows_in_95_interval"].get<long long>(), m["rows"].get<long long>(),
        100.0 * m["coverage_95"].get<double>());
  else
    fmt::print("{}: accuracy {:.6g} ({} of {} rows), mean NLL {:.6g} nats per row\n", rows,
               m["accuracy"].get<double>(), m["rows_right"].get<long long>(),
               m["rows"].get<long long>(), m["nll"].get<double>());
}

// Predicts the rows X (lines `lines` of `file`; targets Y, original units, or nullptr) into
// <out>/<stem>.csv and .json, staged until commit(); `model` is model_of(s.spec, X, Y or a
// placeholder target). Each row carries its line, its inputs (the network's input columns,
// original units) and its target if the table has one, then the predictive's columns. Throws
// std::runtime_error naming the first row and quantity that is not finite (the staged files are
// then removed). Cost: the predictive, and O(rows) text written as it is produced.
PredictionFiles predictions(const SavedPosterior& s, const NetworkModel& model,
                            const Eigen::MatrixXd& X, const Eigen::MatrixXd* Y,
                            const io::RecordLines& lines, const std::filesystem::path& file,
                            const std::filesystem::path& out, const std::string& stem,
                            const FitCommandOptions& opt) {
  const NetworkSpec& spec = s.spec;
  const Eigen::Index n = X.rows();
  PredictOptions po;
  po.samples = opt.samples;
  const MethodInfo* method = find_method(s.method);  // an old file may give an alias
  po.linearised = method != nullptr && method->laplace;
  po.threads = 0;
  std::seed_seq seq{static_cast<std::uint32_t>(opt.common.seed),
                    static_cast<std::uint32_t>(opt.common.seed >> 32), 7u};
  vi::Rng rng(seq);
  const bool scored = Y != nullptr;
  const PredictedColumns columns = spec.classification
                                       ? classification_columns(s, model, Y, file, rng, po)
                                       : regression_columns(s, model, Y, file, rng, po);
  PredictionFiles f{io::AtomicFile(out / (stem + ".csv")), io::AtomicFile(out / (stem + ".json")),
                    nullptr};
  for (const auto& [key, value] : columns.metrics) f.metrics[key] = value;
  std::string header = "line";
  for (const std::string& name : spec.inputs) header += "," + csv_field(name);
  if (scored) header += "," + csv_field(spec.target);
  f.csv.write(header + columns.header + "\n");
  f.json.write(fmt::format("{{\n  \"file\": {},\n  \"method\": {},\n  \"task\": {},\n",
                           nlohmann::json(file.string()).dump(), nlohmann::json(s.method).dump(),
                           spec.classification ? "\"classification\"" : "\"regression\""));
  if (scored) f.json.write("  \"metrics\": " + json_line(columns.metrics) + ",\n");
  f.json.write("  \"rows\": [\n");
  auto next_line = lines.begin();
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::size_t line = *next_line++;
    std::string csv = std::to_string(line);
    nlohmann::json in = nlohmann::json::object();
    for (std::size_t c = 0; c < spec.inputs.size(); ++c) {
      const double x = X(i, static_cast<Eigen::Index>(c));
      csv += "," + number(x);
      in[spec.inputs[c]] = x;
    }
    JsonFields json{{"line", line}, {"inputs", std::move(in)}};
    if (scored) {
      csv += "," + number((*Y)(i, 0));
      json.emplace_back("target", (*Y)(i, 0));
    }
    columns.row(i, line, csv, json);
    f.csv.write(csv + "\n");
    f.json.write(i == 0 ? "    " : ",\n    ").write(json_line(json));
  }
  f.json.write("\n  ]\n}\n");
  return f;
}

// Reads --csv and checks it for the task, in this order: the table (io/training_table.hpp), the
// hidden widths, the class labels of a classifier. The table's storage becomes the training
// table's (the inputs are not copied); `classes` is set to the number of classes of a classifier.
// With `rows` (--divide-data) it reads and checks those rows alone; the values' checks over the
// whole table are divided_scalings'.
io::TrainingTable read_training_table(const FitCommandOptions& opt, int& classes,
                                      const std::optional<DividedRows>& rows) {
  io::CsvReadOptions read;
  if (rows) {
    read.first_row = static_cast<std::size_t>(rows->first);
    read.row_count = rows->count;
  }
  io::CsvTable table = io::read_csv_table(opt.csv, read);
  const Eigen::Index column = io::check_training_columns(table, opt.target, !rows);
  if (!(opt.hidden.size() == 1 && opt.hidden[0] == 0) &&
      std::find(opt.hidden.begin(), opt.hidden.end(), 0) != opt.hidden.end())
    throw UsageError("--hidden: widths must be positive (a single 0 means no hidden layer)");
  if (opt.task == "classification") {
    if (opt.classes > 0) {
      check_class_labels(table, column, opt.classes);
      classes = opt.classes;
    } else {
      classes = infer_class_count(table, column);
    }
  }
  return io::select_training_columns(std::move(table), opt.target, !rows);
}

// The network spec of a fit to `t` (scaling from these rows, or with --divide-data identity
// scalings that divided_scalings replaces; `classes`: read_training_table's).
NetworkSpec spec_of(const io::TrainingTable& t, int classes, const FitCommandOptions& opt) {
  NetworkSpec spec;
  spec.classification = opt.task == "classification";
  spec.inputs = t.input_names;
  spec.target = t.target_name;
  if (!(opt.hidden.size() == 1 && opt.hidden[0] == 0)) spec.hidden = opt.hidden;
  spec.tanh = opt.activation == "tanh";
  spec.input_scaling = opt.divide_data ? nn::Standardizer::identity(t.data.X.cols())
                                       : nn::Standardizer::fit(t.data.X);
  if (spec.classification) {
    spec.classes = classes;
    spec.target_scaling = nn::Standardizer::identity(1);
  } else {
    spec.target_scaling =
        opt.divide_data ? nn::Standardizer::identity(1) : nn::Standardizer::fit(t.data.Y);
    spec.noise_precision = opt.noise_precision;
  }
  return spec;
}

// --prior FILE: the saved posterior's q as the prior of a fit of `spec`, which must be the same
// network (task, input and target names in order, hidden widths, activation, classes); the fit
// then standardises its rows with the saved scalings, so that θ means what it meant in the
// earlier fit. Throws UsageError naming the file and what differs, or a point estimate (map has
// no Gaussian to carry on).
vi::GaussianPrior prior_of(const SavedPosterior& earlier, const std::filesystem::path& file,
                           NetworkSpec& spec) {
  const NetworkSpec& e = earlier.spec;
  const auto differs = [&](const std::string& what) {
    throw UsageError("--prior " + file.string() + ": its network is not this fit's (" + what +
                     " differ); a prior must come from a fit of the same network");
  };
  if (e.classification != spec.classification) differs("the tasks");
  if (e.inputs != spec.inputs) differs("the input columns");
  if (e.target != spec.target) differs("the target columns");
  if (e.hidden != spec.hidden) differs("the hidden widths");
  if (e.tanh != spec.tanh) differs("the activations");
  if (e.classes != spec.classes) differs("the numbers of classes");
  if (std::holds_alternative<vi::PointEstimate>(earlier.posterior))
    throw UsageError("--prior " + file.string() + ": it holds a point estimate (method " +
                     earlier.method + "), not a Gaussian posterior to use as a prior");
  if (std::holds_alternative<vi::SubnetworkGaussian>(earlier.posterior))
    throw UsageError("--prior " + file.string() + ": it holds a last-layer posterior (method " +
                     earlier.method +
                     "), degenerate off the last layer, not a Gaussian over every parameter to "
                     "use as a prior");
  spec.input_scaling = e.input_scaling;
  spec.target_scaling = e.target_scaling;
  return std::visit(
      [](const auto& q) -> vi::GaussianPrior {
        using Q = std::decay_t<decltype(q)>;
        if constexpr (std::is_same_v<Q, vi::PointEstimate> ||
                      std::is_same_v<Q, vi::SubnetworkGaussian>)
          return {};
        else
          return vi::prior_from(q);
      },
      earlier.posterior);
}

// What every rank must agree on before a fit under mpirun: the table as read (its size and a
// checksum of its numbers; with --divide-data, where each rank reads its own rows, its size
// and column names) and the settings that shape the fit.
std::string fingerprint(const io::TrainingTable& t, const FitCommandOptions& opt,
                        const std::optional<DividedRows>& rows) {
  auto bytes = [](const Eigen::MatrixXd& m) {
    return std::hash<std::string_view>{}(
        std::string_view(reinterpret_cast<const char*>(m.data()), sizeof(double) * m.size()));
  };
  std::string hidden;
  for (const Eigen::Index h : opt.hidden) hidden += (hidden.empty() ? "" : ",") + std::to_string(h);
  std::string columns;
  for (const std::string& name : t.input_names) columns += name + ",";
  const std::string table =
      rows ? fmt::format("{} rows (divided) of {} inputs, columns {}{}", rows->blocks.rows(),
                         t.data.X.cols(), io::quote_bytes(columns), io::quote_bytes(t.target_name))
           : fmt::format("{} rows of {} inputs, checksum {:016x}{:016x}", t.data.X.rows(),
                         t.data.X.cols(), bytes(t.data.X), bytes(t.data.Y));
  return fmt::format("{}; {} {} {} [{}], seed {}, {} epochs of {}", table, opt.task, opt.method,
                     opt.activation, hidden, opt.common.seed, epochs_of(opt.settings),
                     opt.settings.minibatch);
}

int run(FitCommandOptions opt, const Ranks& ranks) {
  const ThreadLimit limit(opt.common.threads);
  const bool fitting = !opt.csv.empty();
  std::optional<io::CsvTable> predict_table;
  SavedPosterior saved;
  std::optional<io::TrainingTable> training;
  std::optional<PredictionInputs> to_predict;
  io::RecordLines predict_lines;
  std::optional<vi::FitCheckpoint> resume;
  std::optional<vi::GaussianPrior> prior;
  std::optional<DividedRows> divided;
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
    opt.settings.method = tool_method(opt.method).name;
    opt.settings.threads = 0;
    if (!opt.predict.empty()) predict_table = io::read_csv_table(opt.predict);
    if (opt.divide_data && !fitting)
      throw UsageError("--divide-data belongs to a fit (--csv), not to --posterior");
    if (opt.divide_data && tool_method(opt.method).whole_data)
      throw UsageError("--divide-data: method " + tool_method(opt.method).name +
                       " needs every row in one process (it forms a sum over the data outside "
                       "the reducer that divides them); run it without --divide-data");
    if (opt.divide_data && opt.settings.hyperparameters != HyperparameterSource::settings)
      throw UsageError(std::string("--divide-data with --hyperparameters ") +
                       hyperparameters_setting_name(opt.settings.hyperparameters) +
                       ": its updates of δ and τ sum over every row in one process; learn them "
                       "without --divide-data, or give --prior-precision and --noise-precision");
    if (opt.divide_data && opt.task == "classification" && opt.classes == 0)
      throw UsageError(
          "--divide-data with --task classification needs --classes C: no rank sees every label "
          "to count the classes");
    if (fitting && opt.divide_data) {
      const std::size_t n = io::count_csv_records(opt.csv);
      if (n < 2)
        throw io::DataError(opt.csv, 0, 0, "at least 2 data lines to fit on", std::to_string(n));
      const vi::RowBlocks blocks(static_cast<Eigen::Index>(n), divided_blocks);
      if (blocks.count() < ranks.size())
        throw UsageError(fmt::format(
            "--divide-data: the {} rows of {} make {} row blocks, fewer than the {} ranks "
            "(each rank holds whole blocks): run on at most {} ranks",
            n, opt.csv.string(), blocks.count(), ranks.size(), blocks.count()));
      const auto [first, last] = blocks.rows_of(ranks.rank(), ranks.size());
      divided = DividedRows{blocks, first, last - first};
    }
    if (fitting) {
      int classes = 0;
      training = read_training_table(opt, classes, divided);
      saved.spec = spec_of(*training, classes, opt);
      saved.method = opt.settings.method;
    } else {
      saved = read_posterior_file(opt.posterior);
    }
    if (!opt.prior.empty()) {
      if (!fitting) throw UsageError("--prior belongs to a fit (--csv), not to --posterior");
      prior = prior_of(read_posterior_file(opt.prior), opt.prior, saved.spec);
    }
    if (predict_table) {
      to_predict = select_prediction_inputs(*predict_table, saved.spec);
      predict_lines = std::move(predict_table->lines);
      predict_table.reset();
    }
    if (!opt.resume.empty()) {
      try {
        resume = io::load_checkpoint(opt.resume);
      } catch (const std::exception& e) {
        throw UsageError(std::string("--resume: ") + e.what());
      }
    }
    if (ranks.leader()) require_writable_folder("--out", opt.common.out);  // rank 0 writes
  });
  if (fitting)
    ranks.require_same("the training data and settings", fingerprint(*training, opt, divided));
  std::shared_ptr<const vi::BatchReducer> reducer =
      divided ? ranks.row_reducer(divided->blocks) : ranks.reducer();
  if (divided)
    ranks.on_every_rank([&] {
      const auto [inputs, target] = divided_scalings(*training, *divided, *reducer);
      if (opt.prior.empty()) {  // --prior sets the earlier fit's scalings
        saved.spec.input_scaling = inputs;
        if (!saved.spec.classification) saved.spec.target_scaling = target;
      }
    });
  if (fitting && !divided && ranks.leader() && !saved.spec.classification && !opt.task_given)
    if (const auto labels = label_like_values(training->data.Y.col(0))) {
      std::string values;
      for (const double v : *labels) values += fmt::format("{}{}", values.empty() ? "" : ", ", v);
      fmt::print(stderr,
                 "ngvi fit: warning: the target {} of {} holds only {} distinct values, all "
                 "integers ({}): it is fitted as a regression; if these are class labels, pass "
                 "--task classification (--task regression silences this warning)\n",
                 io::quote_bytes(saved.spec.target), opt.csv.string(), labels->size(), values);
    }
  if (!fitting && !ranks.leader()) return exit_code::ok;  // applying a posterior: rank 0 alone

  // The training rows' model: fitted, then predicted from (one standardised copy of the table).
  std::optional<NetworkModel> model;
  if (fitting) {
    std::seed_seq seq{static_cast<std::uint32_t>(opt.common.seed),
                      static_cast<std::uint32_t>(opt.common.seed >> 32)};
    vi::Rng rng(seq);
    FitRequest request;
    request.settings = opt.settings;
    request.reducer = reducer;
    if (ranks.leader()) request.checkpoint = opt.checkpoint;
    request.checkpoint_every = opt.checkpoint_every;
    request.resume = resume;
    request.prior = prior;
    if (divided)
      model.emplace(divided_model_of(saved.spec, std::move(training->data), *divided));
    else
      model.emplace(model_of(saved.spec, training->data.X, training->data.Y));
    const FitOutcome out = fit_method(*model, request, rng);
    if (!out.ok) throw std::runtime_error("the fit failed: " + out.message);
    if (!ranks.leader()) return exit_code::ok;
    saved.posterior = out.posterior;
    if (out.hyperparameters) {
      saved.hyperparameters = out.hyperparameters;
      if (!std::isnan(out.hyperparameters->noise_precision))
        saved.spec.noise_precision = out.hyperparameters->noise_precision;
    }
    fmt::print(
        "fitted {} ({} parameters) to {} rows of {} in {:.2f} s{}{}\n", opt.settings.method,
        mean_of(saved.posterior).size(), model->num_examples(), opt.csv.string(), out.seconds,
        ranks.size() > 1 ? fmt::format(" on {} ranks", ranks.size()) : std::string(),
        divided ? fmt::format(", the rows divided ({} row blocks; rank 0 held rows {} to {})",
                              divided->blocks.count(), divided->first + 1,
                              divided->first + divided->count)
                : std::string());
    if (const auto& h = saved.hyperparameters) {
      std::string deltas;
      for (std::size_t b = 0; b < h->blocks.size(); ++b)
        deltas += fmt::format("{}{} {:.4g}", b == 0 ? "" : ", ", h->blocks[b],
                              h->prior_precisions(static_cast<Eigen::Index>(b)));
      fmt::print(
          "learned {}: prior precisions {}{}\n",
          std::isnan(h->log_marginal_likelihood)
              ? std::string("by variational EM")
              : fmt::format("from the evidence (log evidence {:.6g})", h->log_marginal_likelihood),
          deltas,
          std::isnan(h->noise_precision)
              ? std::string()
              : fmt::format("; noise precision {:.6g} (standardised units)", h->noise_precision));
    }
  }

  // Every file is written to its temporary file, and every prediction checked finite, before the
  // first is renamed into place: a failure on the way leaves no file of this run (and no new
  // --out folder).
  const std::filesystem::path& out = opt.common.out;
  const bool new_folder = !std::filesystem::exists(out);
  std::filesystem::create_directories(out);
  try {
    std::vector<PredictionFiles> tables;
    const bool fitted_rows = fitting && !divided;  // no rank holds every row to predict
    if (fitted_rows)
      tables.push_back(predictions(saved, *model, training->data.X, &training->data.Y,
                                   training->lines, opt.csv, out, "fitted", opt));
    if (to_predict) {
      const Eigen::MatrixXd* Y = to_predict->Y ? &*to_predict->Y : nullptr;
      const Eigen::Index n = to_predict->X.rows();
      // Unscored rows get a placeholder target (the training mean, or class 0) the model needs.
      const Eigen::MatrixXd placeholder =
          Y != nullptr ? Eigen::MatrixXd()
          : saved.spec.classification
              ? Eigen::MatrixXd(Eigen::MatrixXd::Zero(n, 1))
              : Eigen::MatrixXd(saved.spec.target_scaling.mean.replicate(n, 1));
      tables.push_back(predictions(saved, model_of(saved.spec, to_predict->X, Y ? *Y : placeholder),
                                   to_predict->X, Y, predict_lines, opt.predict, out, "predictions",
                                   opt));
    }
    nlohmann::json metrics = nlohmann::json::object();
    if (fitted_rows) metrics["training"] = tables.front().metrics;
    if (to_predict && to_predict->Y) metrics["predict"] = tables.back().metrics;
    std::vector<io::AtomicFile> staged;
    if (fitting) {
      staged.emplace_back(out / "posterior.json").write(posterior_json(saved).dump(2) + "\n");
      stage_summary(saved, metrics, out, staged);
    }
    for (io::AtomicFile& f : staged) f.commit();
    for (PredictionFiles& t : tables) t.commit();
    if (fitted_rows) print_metrics("training rows (fitted.csv)", metrics["training"]);
    if (to_predict && to_predict->Y)
      print_metrics("--predict rows (predictions.csv)", metrics["predict"]);
  } catch (...) {
    std::error_code ignored;
    if (new_folder && std::filesystem::is_empty(out, ignored))
      std::filesystem::remove(out, ignored);
    throw;
  }
  fmt::print("written to {}: {}\n", out.string(),
             fitting ? std::string("posterior.json, summary.csv/.json") +
                           (divided ? "" : ", fitted.csv/.json") +
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
      "standard deviations, standardised units; and the training scores), fitted.csv/.json "
      "(each row's line, inputs and target, then its predictive mean and standard deviation "
      "with a 95 % interval, or class probabilities; not with --divide-data) and, with --predict, "
      "predictions.csv/.json for those rows (scored if they hold the target). It prints the "
      "scores: RMSE, mean log-likelihood and the 95 % interval's coverage, or accuracy and "
      "mean NLL. A "
      "malformed CSV, an unknown column, a non-numeric, empty, NaN or infinite cell, a constant "
      "column or a bad class label is an error naming the file, line and column (exit code 2), "
      "and nothing is written.");
  add_common_options(*cmd, opt->common, "folder to write the results into (created if missing)");
  cmd->add_option("--csv", opt->csv, "the training table (CSV with a header); default: none")
      ->check(CLI::ExistingFile);
  cmd->add_option("--target", opt->target, "the target column of --csv (its header name)");
  CLI::Option* task =
      cmd->add_option(
             "--task", opt->task,
             "regression (Gaussian likelihood) or classification (softmax; the target holds "
             "class labels 0, 1, ..., C-1); not given, a target of at most 10 distinct "
             "integers of magnitude <= 100 gets a warning")
          ->check(CLI::IsMember({"regression", "classification"}))
          ->capture_default_str();
  cmd->add_option("--classes", opt->classes,
                  "classification: the number of classes C (labels must be 0..C-1); default: the "
                  "largest label + 1, refused as a likely mistyped label if it exceeds the rows "
                  "or max(2x, x + 10) for x distinct labels")
      ->check(integer_in(2, max_classes));
  add_method_option(*cmd, opt->method, "the inference method")->capture_default_str();
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
         "passes over the data; default: 0 = the method's own (" + default_epochs_text() + ")")
      ->check(integer_in<Eigen::Index>(0, max_epochs))
      ->capture_default_str();
  add_step_options(*cmd, m, "minibatch size (capped at the number of rows)");
  add_hyperparameters_option(*cmd, m, "--prior-precision and --noise-precision as given");
  cmd->add_option("--prior", opt->prior,
                  "a posterior.json of an earlier fit of the same network: its q(θ) is this fit's "
                  "prior in place of N(0, 1/δ) -- continual learning (Nguyen et al. 2018); the "
                  "rows are standardised with its scalings; default: none")
      ->check(CLI::ExistingFile);
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
  cmd->add_flag("--divide-data", opt->divide_data,
                "under mpirun: each rank reads and holds only the rows of its row blocks (the "
                "table's rows in 16 fixed blocks, whole blocks to each rank), so memory per rank "
                "is about the table's size / K; minibatches are drawn stratified over the blocks, "
                "and the result is bitwise the same for any number of ranks and threads (but not "
                "that of a run without --divide-data). Regression, or classification with "
                "--classes; not with --hyperparameters or the methods noisy_kfac and "
                "map_last_layer_laplace (they sum over every row in one process); "
                "fitted.csv/.json are not written (no rank holds every row)");
  cmd->add_option("--resume", opt->resume,
                  "continue the run checkpointed in this file (same --csv, method and settings; "
                  "any number of threads or MPI ranks): the result is bitwise that of the "
                  "uninterrupted run; default: none")
      ->check(CLI::ExistingFile);
  return Subcommand{cmd,
                    [opt, task, &ranks] {
                      opt->task_given = task->count() > 0;
                      return run(*opt, ranks);
                    },
                    true};
}

}  // namespace ngvi::app
