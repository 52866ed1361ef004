// LikelihoodBase: the part of the Likelihood interface (likelihood.hpp) that is the same for
// every likelihood — its dimensions, the checks of f, y, F and Y against them, the target
// checks' column test and message, and "no parameters of its own" — written once.
//
// A likelihood derives from it, passes its name (for error messages) and its dimensions to the
// constructor, and writes only its formulas. The name is the class name without namespace
// ("BernoulliLogit"); each check takes the member function's name, so an error reads
// "ngvi::nn::BernoulliLogit::nll: f has 2 entries and y 1, expected 1 and 1". A likelihood with
// parameters of its own (GaussianLearnedNoise) passes their number and hides
// add_parameter_blocks and init_parameters with its own.
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/Core>

#include <nn/likelihoods/likelihood.hpp>
#include <nn/parameters.hpp>

namespace ngvi::nn {

class LikelihoodBase {
 public:
  int output_dim() const { return output_dim_; }
  int net_output_dim() const { return output_dim_ - num_params_; }
  int num_params() const { return num_params_; }
  int target_dim() const { return target_dim_; }
  void add_parameter_blocks(ParameterLayout&) const {}
  void init_parameters(Eigen::VectorXd&, const ParameterLayout&) const {}

 protected:
  // Throws std::invalid_argument naming the likelihood unless target_dim >= 1 (the `dim` of
  // every likelihood's constructor is its target_dim, SoftmaxCategorical's is always 1).
  LikelihoodBase(const char* name, int output_dim, int target_dim, int num_params = 0)
      : name_(name), output_dim_(output_dim), target_dim_(target_dim), num_params_(num_params) {
    if (target_dim < 1)
      throw std::invalid_argument(std::string("ngvi::nn::") + name + ": dim must be >= 1");
  }

  // "ngvi::nn::Name::fn", for the messages of the checks below and of the likelihood's own.
  std::string who(const char* fn) const { return std::string("ngvi::nn::") + name_ + "::" + fn; }

  // Throws unless f has output_dim() entries and y target_dim().
  void check_example(const char* fn, Eigen::Index f_size, Eigen::Index y_size) const {
    if (f_size != output_dim_ || y_size != target_dim_)
      throw std::invalid_argument(who(fn) + ": f has " + std::to_string(f_size) +
                                  " entries and y " + std::to_string(y_size) + ", expected " +
                                  std::to_string(output_dim_) + " and " +
                                  std::to_string(target_dim_));
  }
  // Throws unless f has output_dim() entries (for the members that take no y).
  void check_output(const char* fn, Eigen::Index f_size) const {
    check_example(fn, f_size, target_dim_);
  }
  // Throws unless F is B×output_dim() and Y is B×target_dim() for one B.
  void check_batch(const char* fn, Eigen::Index f_rows, Eigen::Index f_cols, Eigen::Index y_rows,
                   Eigen::Index y_cols) const {
    if (f_cols != output_dim_ || y_cols != target_dim_ || f_rows != y_rows)
      throw std::invalid_argument(
          who(fn) + ": F is " + std::to_string(f_rows) + "x" + std::to_string(f_cols) + " and Y " +
          std::to_string(y_rows) + "x" + std::to_string(y_cols) + ", expected B x " +
          std::to_string(output_dim_) + " and B x " + std::to_string(target_dim_));
  }

  // check_targets(Y) of the likelihoods: Y has target_dim() columns and valid(y) holds for every
  // entry; the first entry that fails is named with `expected`, what a valid one is ("0 or 1").
  template <class Valid>
  void check_target_values(const Eigen::MatrixXd& Y, Valid valid,
                           const std::string& expected) const {
    if (Y.cols() != target_dim_)
      throw std::invalid_argument(std::string("ngvi::nn::") + name_ + ": targets have " +
                                  std::to_string(Y.cols()) + " columns, expected " +
                                  std::to_string(target_dim_));
    for (Eigen::Index i = 0; i < Y.rows(); ++i)
      for (Eigen::Index j = 0; j < Y.cols(); ++j)
        if (!valid(Y(i, j)))
          throw std::invalid_argument(detail::target_error(name_, i, j, Y(i, j), expected));
  }
  // The regression likelihoods' check_targets: every target finite.
  void check_finite_targets(const Eigen::MatrixXd& Y) const {
    check_target_values(
        Y, [](double y) { return std::isfinite(y); }, "a finite number");
  }

 private:
  const char* name_;
  int output_dim_;
  int target_dim_;
  int num_params_;
};

}  // namespace ngvi::nn
