// Dataset: inputs and targets in memory, one example per row, and standardisation.
//
// The UCI protocol that published results follow standardises inputs and targets with the
// TRAINING split's mean and standard deviation, trains on the standardised data and reports
// metrics in original units. Standardizer holds those statistics so the same transform is
// applied to the test split and undone on predictions; a column with zero spread is divided
// by 1 rather than 0 (as in Gal's and Hernández-Lobato's loaders).
#pragma once

#include <cmath>
#include <span>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

namespace ngvi::nn {

struct Dataset {
  Eigen::MatrixXd X;  // N×D inputs
  Eigen::MatrixXd Y;  // N×K targets (a class index or a count is one column)

  Eigen::Index size() const { return X.rows(); }
  Eigen::Index input_dim() const { return X.cols(); }
  Eigen::Index target_dim() const { return Y.cols(); }

  // Throws std::invalid_argument unless X and Y have the same number of rows and all values
  // are finite, naming the first offending entry. Cost: O(N·(D + K)).
  void validate() const {
    if (X.rows() != Y.rows())
      throw std::invalid_argument("ngvi::nn::Dataset: X has " + std::to_string(X.rows()) +
                                  " rows but Y has " + std::to_string(Y.rows()));
    check_finite(X, "X");
    check_finite(Y, "Y");
  }

  // The rows listed in `rows`, in that order. Throws std::out_of_range for a bad index.
  // Cost: O(|rows|·(D + K)).
  Dataset subset(std::span<const Eigen::Index> rows) const {
    Dataset d;
    d.X.resize(static_cast<Eigen::Index>(rows.size()), X.cols());
    d.Y.resize(static_cast<Eigen::Index>(rows.size()), Y.cols());
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const Eigen::Index r = rows[k];
      if (r < 0 || r >= X.rows())
        throw std::out_of_range("ngvi::nn::Dataset::subset: row " + std::to_string(r) +
                                " is outside 0.." + std::to_string(X.rows() - 1));
      d.X.row(static_cast<Eigen::Index>(k)) = X.row(r);
      d.Y.row(static_cast<Eigen::Index>(k)) = Y.row(r);
    }
    return d;
  }

 private:
  static void check_finite(const Eigen::MatrixXd& M, const char* which) {
    for (Eigen::Index i = 0; i < M.rows(); ++i)
      for (Eigen::Index j = 0; j < M.cols(); ++j)
        if (!std::isfinite(M(i, j)))
          throw std::invalid_argument(std::string("ngvi::nn::Dataset: ") + which + "(" +
                                      std::to_string(i) + ", " + std::to_string(j) +
                                      ") is not finite");
  }
};

// Per-column affine standardisation z = (x − mean) / scale, fitted on training data.
struct Standardizer {
  Eigen::RowVectorXd mean;
  Eigen::RowVectorXd scale;  // population standard deviation (divide by N); 1 where it is 0

  // Column means and standard deviations of M. Throws std::invalid_argument for an empty M.
  // Cost: O(rows·cols).
  static Standardizer fit(const Eigen::MatrixXd& M) {
    if (M.rows() == 0)
      throw std::invalid_argument("ngvi::nn::Standardizer::fit: no rows to fit on");
    Standardizer s;
    s.mean = M.colwise().mean();
    s.scale =
        ((M.rowwise() - s.mean).array().square().colwise().sum() / static_cast<double>(M.rows()))
            .sqrt();
    for (Eigen::Index j = 0; j < s.scale.size(); ++j)
      if (!(s.scale(j) > 0.0)) s.scale(j) = 1.0;
    return s;
  }
  // The identity transform on `cols` columns.
  static Standardizer identity(Eigen::Index cols) {
    return Standardizer{Eigen::RowVectorXd::Zero(cols), Eigen::RowVectorXd::Ones(cols)};
  }

  // (M − mean) / scale, row by row. Cost: O(rows·cols).
  Eigen::MatrixXd transform(const Eigen::MatrixXd& M) const {
    check(M.cols(), "transform");
    return ((M.rowwise() - mean).array().rowwise() / scale.array()).matrix();
  }
  // M·scale + mean: back to original units. Cost: O(rows·cols).
  Eigen::MatrixXd inverse_transform(const Eigen::MatrixXd& M) const {
    check(M.cols(), "inverse_transform");
    return ((M.array().rowwise() * scale.array()).rowwise() + mean.array()).matrix();
  }
  // A variance (or squared error) in standardised units, per column, in original units.
  Eigen::MatrixXd inverse_transform_variance(const Eigen::MatrixXd& V) const {
    check(V.cols(), "inverse_transform_variance");
    return (V.array().rowwise() * scale.array().square()).matrix();
  }
  // The log-density correction: log p(y_orig) = log p(y_std) − Σⱼ log scaleⱼ.
  double log_jacobian() const { return scale.array().log().sum(); }

 private:
  void check(Eigen::Index cols, const char* who) const {
    if (cols != mean.size())
      throw std::invalid_argument(
          std::string("ngvi::nn::Standardizer::") + who + ": matrix has " + std::to_string(cols) +
          " columns, the standardizer was fitted on " + std::to_string(mean.size()));
  }
};

// Standardisation of inputs and targets together, fitted on a training set.
struct DatasetStandardizer {
  Standardizer x;
  Standardizer y;

  // standardize_targets = false leaves Y as it is (classification labels, counts).
  static DatasetStandardizer fit(const Dataset& train, bool standardize_targets = true) {
    return DatasetStandardizer{
        Standardizer::fit(train.X),
        standardize_targets ? Standardizer::fit(train.Y) : Standardizer::identity(train.Y.cols())};
  }
  Dataset transform(const Dataset& d) const { return Dataset{x.transform(d.X), y.transform(d.Y)}; }
};

}  // namespace ngvi::nn
