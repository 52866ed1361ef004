// csv_problem: the user's table as a study problem — `ngvi study --csv FILE --target COLUMN`.
//
// The table is read and split into inputs and target as `ngvi fit --csv` reads it
// (app/io/training_table.hpp: the same dialect and the same errors, naming the file, the line and
// the column); then:
//   * a classification target must hold the labels 0 and 1 (the study's classification is
//     binary, a Bernoulli-logit network): a label that is not an integer, or an integer class
//     beyond 1, is an nn::DataError naming its line and column;
//   * the rows are split into training and test rows by split_rows (study_problem.hpp): the
//     fraction `test_fraction` held out, chosen from the seed — the same split for every seed of
//     the run, so the seeds vary the fits and not the data; at least min_training_rows and
//     min_test_rows, and the training rows must vary in every column (and hold both labels);
//   * inputs are standardised with the training rows' mean and sd, a regression's target too
//     (metrics are reported in original units), as make_problem does;
//   * the network: an MLP with tanh units of the widths `hidden` (empty: one dense layer, a
//     model linear in θ, whose posterior the study then knows exactly for a regression).
// Every problem with the data is an nn::DataError (exit code 2 in the tool); a network beyond
// the study's limits is found by check_problem (study_problems.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/fit/class_labels.hpp>
#include <app/io/csv_table.hpp>
#include <app/io/training_table.hpp>
#include <app/study/study_problem.hpp>
#include <fmt/format.h>

#include <nn/activations.hpp>
#include <nn/data_error.hpp>
#include <nn/likelihoods/bernoulli_logit.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/sequential.hpp>

namespace ngvi::app::study {

struct CsvProblemOptions {
  std::filesystem::path csv;  // the table (CSV with a header line)
  std::string target;         // the target column's name
  bool classification = false;
  // Hidden layer widths of the tanh MLP; empty: no hidden layer (linear in θ).
  std::vector<Eigen::Index> hidden = {16};
  double test_fraction = 0.2;     // of the rows, held out for the test metrics
  double noise_precision = 10.0;  // τ of a regression's Gaussian likelihood, standardised units
  std::uint64_t seed = 1;         // of the split
};

// The key of a table's problem in results.json and file names: "csv_" and the file's stem with
// every character but letters, digits, '_' and '-' replaced by '_'.
inline std::string csv_problem_name(const std::filesystem::path& file) {
  std::string name = "csv_" + file.stem().string();
  for (char& c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '-'))
      c = '_';
  return name;
}

// Throws nn::DataError (see the top of the file). Cost: reading the file, O(rows·columns).
inline Problem csv_problem(const CsvProblemOptions& o) {
  const CsvTable table = read_csv_table(o.csv);
  const TrainingTable t = select_training_columns(table, o.target);
  const Eigen::Index column = table.column(o.target);
  const auto col = static_cast<std::size_t>(column + 1);
  const Eigen::Index rows = t.data.X.rows();
  if (o.classification) {
    check_class_labels(table, column, max_classes);  // integers 0, 1, 2, ...
    for (Eigen::Index r = 0; r < rows; ++r)
      if (t.data.Y(r, 0) > 1.0)
        throw nn::DataError(
            o.csv, t.lines[static_cast<std::size_t>(r)], col,
            "a binary class label, 0 or 1, in " + table.describe_column(column) +
                " (the study fits a Bernoulli-logit network; for more classes use `ngvi fit "
                "--task classification`)",
            fmt::format("the label {}", t.data.Y(r, 0)));
  }
  RowSplit split;
  try {
    split = split_rows(rows, o.test_fraction, o.seed);
  } catch (const std::invalid_argument&) {
    const auto n_test = std::max<Eigen::Index>(
        1, static_cast<Eigen::Index>(std::lround(o.test_fraction * static_cast<double>(rows))));
    throw nn::DataError(
        o.csv, 0, 0,
        fmt::format("enough data lines for at least {} training and {} test rows (--test-fraction "
                    "{})",
                    min_training_rows, min_test_rows, o.test_fraction),
        fmt::format("{} data lines: {} training and {} test rows", rows, rows - n_test, n_test));
  }
  const nn::Dataset train = take_rows(t.data, split.train);
  const nn::Dataset test = take_rows(t.data, split.test);
  // A column constant over the training rows cannot be standardised: named like the table's.
  for (Eigen::Index c = 0; c < table.values.cols(); ++c) {
    const Eigen::VectorXd v = c == column ? Eigen::VectorXd(train.Y.col(0)) : [&] {
      const Eigen::Index k = c < column ? c : c - 1;
      return Eigen::VectorXd(train.X.col(k));
    }();
    if ((v.array() == v(0)).all())
      throw nn::DataError(
          o.csv, 0, static_cast<std::size_t>(c + 1),
          std::string(c == column ? "a target" : "an input") +
              " column whose values vary over the training rows (--seed " + std::to_string(o.seed) +
              ", --test-fraction " + fmt::format("{}", o.test_fraction) + ")",
          table.describe_column(c) +
              fmt::format(" holding {} on all {} training rows", v(0), train.X.rows()));
  }
  std::vector<Eigen::Index> widths = {t.data.X.cols()};
  widths.insert(widths.end(), o.hidden.begin(), o.hidden.end());
  widths.push_back(1);
  const nn::Sequential net = nn::Sequential::mlp(widths, nn::Tanh{});
  const NetworkLikelihood likelihood =
      o.classification ? NetworkLikelihood(nn::BernoulliLogit())
                       : NetworkLikelihood(nn::GaussianFixedNoise(o.noise_precision));
  Problem p = make_problem(csv_problem_name(o.csv), net, likelihood, train, test);
  p.title = fmt::format("{}: {} from {} input{} ({})", o.csv.filename().string(), t.target_name,
                        t.input_names.size(), t.input_names.size() == 1 ? "" : "s",
                        o.classification ? "binary classification" : "regression");
  p.description = fmt::format(
      "{}, target {}: {} data lines, {} held out for testing (fraction {}, chosen by seed {}); "
      "inputs {}standardised with the training rows' statistics; {}",
      o.csv.string(), nn::quote_bytes(t.target_name), rows, test.X.rows(), o.test_fraction, o.seed,
      o.classification ? "" : "and target ", p.description);
  return p;
}

}  // namespace ngvi::app::study
