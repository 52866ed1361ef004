// select_prediction_inputs: the rows `ngvi fit` predicts — the input columns a saved network was
// trained on, found BY NAME in a CSV table (any order; other columns are ignored), and the target
// column if the table has it (then the predictions are also scored).
//
// A missing input column, and for a classifier a target that is not one of its class labels,
// are io::DataErrors naming the file, the line and the column, as the CSV reader's own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/fit/class_labels.hpp>
#include <app/fit/posterior_file.hpp>
#include <io/csv_table.hpp>
#include <io/data_error.hpp>

namespace ngvi::app {

struct PredictionInputs {
  Eigen::MatrixXd X;                 // the inputs, in the network's column order (original units)
  std::optional<Eigen::MatrixXd> Y;  // the target column, if the table has one
};

// The spec's input columns (and target, if present) of `table`. Throws io::DataError naming a
// missing column. Cost: O(rows·inputs).
inline PredictionInputs select_prediction_inputs(const io::CsvTable& table,
                                                 const NetworkSpec& spec) {
  PredictionInputs p;
  p.X.resize(table.values.rows(), static_cast<Eigen::Index>(spec.inputs.size()));
  for (std::size_t c = 0; c < spec.inputs.size(); ++c)
    p.X.col(static_cast<Eigen::Index>(c)) = table.values.col(table.column(spec.inputs[c]));
  for (std::size_t c = 0; c < table.names.size(); ++c)
    if (table.names[c] == spec.target) {
      const auto t = static_cast<Eigen::Index>(c);
      if (spec.classification) check_class_labels(table, t, spec.classes);
      p.Y = table.values.col(t);
    }
  return p;
}

}  // namespace ngvi::app
