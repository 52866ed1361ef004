// Supervised(net, likelihood, data): the separable model of a network with a likelihood.
//
// ℓᵢ(θ) = likelihood.nll(fᵢ(θ), yᵢ), where fᵢ is the network's output for xᵢ followed by the
// likelihood's own parameters (e.g. GaussianLearnedNoise's log-precision), taken from θ.
// θ = [network blocks | likelihood blocks]; layout() names them all. Everything is generic
// in the scalar, so the same model gives losses (double), gradients (Var<double>) and exact
// Hessians (Var<Dual<double, K>>). Batched members (batch_loss, total_loss, batch_output)
// run the batch through the network as whole matrices — a few fused tape entries per layer —
// and are what gradient-based training should call; example_loss/example_output record one
// example and are what per-example drivers call. This is the model concept the curvature and
// inference code use (see model_concept.hpp). The model holds its data read-only, behind a
// shared pointer: a copy of the model, or another model built over shared_data() (the same rows
// under another likelihood), costs no copy of the data.
//
// A model may hold only a window of a larger data set (RowWindow): its examples are still
// numbered 0..N−1 of the whole set and num_examples() is N, but it holds the rows first..first+H−1
// alone. Every per-example and batch member then takes those global indices and refuses, naming
// the window, any it does not hold; the members over all N examples (total_loss, outputs,
// example_losses) refuse outright. This is how a process holds its part of the data when the
// sums over examples are spread over processes by data rows (inference/batch_reducer.hpp,
// RowBlocks; distributed/mpi_reducer.hpp): each sums the examples it holds.
#pragma once

#include <algorithm>
#include <concepts>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <nn/dataset.hpp>
#include <nn/example_indices.hpp>
#include <nn/likelihoods/likelihood.hpp>
#include <nn/model_concept.hpp>
#include <nn/parameters.hpp>
#include <nn/sequential.hpp>

namespace ngvi::nn {

// Rows per batched forward pass where a whole data set is evaluated in plain numbers
// (Supervised::total_loss in double, the predictive of inference/): the activations are held
// for this many rows at a time (a 50-unit layer: 3 MB), not for all N.
inline constexpr Eigen::Index rows_per_forward_pass = 8192;

// The examples a model holds of a data set of `total` rows: first, first + 1, …, first + H − 1,
// H the rows of the model's Dataset. The default (total < 0) is the whole data set.
struct RowWindow {
  Eigen::Index first = 0;
  Eigen::Index total = -1;
};

template <class Net, class Lik>
class Supervised {
 public:
  using net_type = Net;
  using likelihood_type = Lik;

  // Throws std::invalid_argument if the data do not fit the network or the likelihood
  // (input width, number of outputs, target width or values, X/Y row counts, non-finite data).
  // The model owns the data from here on, read-only: copies of the model share them.
  // Cost: O(N·(D + K)) to check the data.
  Supervised(Net net, Lik likelihood, Dataset data)
      : Supervised(std::move(net), std::move(likelihood),
                   std::make_shared<const Dataset>(std::move(data))) {}
  // The same over data already held by another model (shared_data()), without copying them:
  // e.g. one data set under another likelihood. Throws as above, and std::invalid_argument for
  // a null pointer. Cost: O(N·(D + K)) to check the data.
  Supervised(Net net, Lik likelihood, std::shared_ptr<const Dataset> data)
      : Supervised(std::move(net), std::move(likelihood), std::move(data), RowWindow{}) {}
  // The same holding the rows `window.first`, … of a data set of window.total examples: `data`
  // holds those rows only (see the header comment). Throws as above, and std::invalid_argument
  // if the window does not fit in 0..total−1. Cost: O(H·(D + K)) to check the H rows held.
  Supervised(Net net, Lik likelihood, std::shared_ptr<const Dataset> data, RowWindow window)
      : net_(std::move(net)),
        lik_(std::move(likelihood)),
        data_(std::move(data)),
        layout_(net_.layout()) {
    if (data_ == nullptr)
      throw std::invalid_argument("ngvi::nn::Supervised: the data pointer is null");
    first_ = window.first;
    total_ = window.total < 0 ? data_->size() : window.total;
    if (first_ < 0 || first_ + data_->size() > total_)
      throw std::invalid_argument("ngvi::nn::Supervised: a window of " +
                                  std::to_string(data_->size()) + " rows from row " +
                                  std::to_string(first_) + " does not fit in a data set of " +
                                  std::to_string(total_) + " examples");
    data_->validate();
    if (data_->input_dim() != net_.input_dim())
      throw std::invalid_argument(
          "ngvi::nn::Supervised: the data have " + std::to_string(data_->input_dim()) +
          " input columns, the network expects " + std::to_string(net_.input_dim()));
    if (net_.output_dim() != lik_.net_output_dim())
      throw std::invalid_argument(
          "ngvi::nn::Supervised: the network has " + std::to_string(net_.output_dim()) +
          " outputs, the likelihood expects " + std::to_string(lik_.net_output_dim()));
    lik_.check_targets(data_->Y);
    lik_.add_parameter_blocks(layout_);
    lik_offset_ = net_.num_params();
  }

  Eigen::Index num_examples() const { return total_; }
  Eigen::Index num_params() const { return layout_.size(); }
  // Length of fᵢ: the network outputs and the likelihood parameters (likelihood().output_dim()).
  Eigen::Index output_dim() const { return lik_.output_dim(); }
  const ParameterLayout& layout() const { return layout_; }
  const Net& net() const { return net_; }
  const Lik& likelihood() const { return lik_; }
  // The rows held: all N examples, or those of window() (row i − window().first is example i).
  const Dataset& data() const { return *data_; }
  // The data, to share with another model (the constructors above). Cost: O(1).
  const std::shared_ptr<const Dataset>& shared_data() const { return data_; }
  // Which examples the model holds; holds_all() unless it was built over a window.
  RowWindow window() const { return RowWindow{first_, total_}; }
  bool holds_all() const { return first_ == 0 && data_->size() == total_; }
  // The inputs and targets of examples idx[0], idx[1], … (rows as example_rows gives them:
  // a view when consecutive, else gathered into `buffer`), and yᵢ. Throw std::out_of_range
  // for an example not held. Cost: O(1) or O(|idx|·D) copies; O(K).
  Eigen::Ref<const Eigen::MatrixXd> input_rows(ExampleIndices idx, Eigen::MatrixXd& buffer) const {
    check_held(idx, "input_rows");
    return example_rows(data_->X, idx, buffer, first_);
  }
  Eigen::Ref<const Eigen::MatrixXd> target_rows(ExampleIndices idx, Eigen::MatrixXd& buffer) const {
    check_held(idx, "target_rows");
    return example_rows(data_->Y, idx, buffer, first_);
  }
  Eigen::VectorXd target(Eigen::Index i) const {
    check_held(ExampleIndices(&i, 1), "target");
    return data_->Y.row(i - first_).transpose();
  }
  // Where the likelihood's own parameters start in θ (== num_params() if it has none).
  Eigen::Index likelihood_offset() const { return lik_offset_; }

  // A starting θ: the network's initialisation and the likelihood's defaults.
  // Cost: O(P) draws from rng.
  void init(Eigen::VectorXd& theta, std::mt19937_64& rng) const {
    Eigen::VectorXd net_theta;
    net_.init(net_theta, rng);
    theta.setZero(num_params());
    theta.head(net_theta.size()) = net_theta;
    lik_.init_parameters(theta, layout_);
  }

  // ℓᵢ(θ). Cost: one single-example forward pass and one nll.
  template <class T>
  T example_loss(const Vector<T>& theta, Eigen::Index i) const {
    check_example(theta.size(), i, "example_loss");
    return lik_.nll(example_output(theta, i), data_->Y.row(i - first_).transpose().eval());
  }

  // fᵢ(θ): the network output for xᵢ followed by the likelihood parameters (output_dim()).
  // Cost: one single-example forward pass.
  template <class T>
  Vector<T> example_output(const Vector<T>& theta, Eigen::Index i) const {
    check_example(theta.size(), i, "example_output");
    const Matrix<T> F = net_.forward(theta, data_->X.middleRows(i - first_, 1));
    Vector<T> f(output_dim());
    f.head(F.cols()) = F.row(0).transpose();
    f.tail(lik_.num_params()) = theta.segment(lik_offset_, lik_.num_params());
    return f;
  }

  // Σ_{i ∈ idx} ℓᵢ(θ), the batch as one matrix pass (idx may repeat and be in any order); in
  // double, a batch of more than rows_per_forward_pass examples in passes over that many, summed
  // in order (memory for one pass's activations). Reads the rows in place when idx is consecutive
  // (e.g. 0..N−1), else gathers them into matrices local to the call; never copies a Dataset.
  // Throws for an empty idx or an index outside 0..N−1. Cost: one forward pass over |idx| rows
  // (a few fused tape entries per layer), one batched nll, and O(|idx|·(D + K)) copies for a
  // gather.
  template <class T>
  T batch_loss(const Vector<T>& theta, std::span<const Eigen::Index> idx) const {
    check_theta(theta.size(), "batch_loss");
    check_example_indices(idx, num_examples(), "Supervised::batch_loss");
    check_held(idx, "batch_loss");
    if constexpr (std::is_same_v<T, double>) {
      if (static_cast<Eigen::Index>(idx.size()) > rows_per_forward_pass) {
        const auto chunk = static_cast<std::size_t>(rows_per_forward_pass);
        double sum = 0.0;
        for (std::size_t first = 0; first < idx.size(); first += chunk)
          sum += batch_loss(theta, idx.subspan(first, std::min(chunk, idx.size() - first)));
        return sum;
      }
    }
    if (static_cast<Eigen::Index>(idx.size()) == data_->size() && idx[0] == first_ &&
        is_consecutive(idx))
      return lik_.batch_nll(loss_outputs(theta, data_->X), data_->Y);
    Eigen::MatrixXd xbuf, ybuf;
    const Eigen::MatrixXd Y = example_rows(data_->Y, idx, ybuf, first_);
    return lik_.batch_nll(loss_outputs(theta, example_rows(data_->X, idx, xbuf, first_)), Y);
  }
  // Σᵢ ℓᵢ(θ) over all N examples. Cost: one forward pass over the whole data set; in double,
  // in blocks of rows_per_forward_pass rows summed in order (memory for one block's
  // activations), recorded on a tape as one pass.
  template <class T>
  T total_loss(const Vector<T>& theta) const {
    check_theta(theta.size(), "total_loss");
    check_holds_all("total_loss");
    const Eigen::Index n = num_examples();
    if constexpr (std::is_same_v<T, double>) {
      if (n > rows_per_forward_pass) {
        double sum = 0.0;
        for (Eigen::Index first = 0; first < n; first += rows_per_forward_pass) {
          const Eigen::Index rows = std::min(rows_per_forward_pass, n - first);
          const Eigen::MatrixXd Y = data_->Y.middleRows(first, rows);
          sum += lik_.batch_nll(loss_outputs(theta, data_->X.middleRows(first, rows)), Y);
        }
        return sum;
      }
    }
    return lik_.batch_nll(loss_outputs(theta, data_->X), data_->Y);
  }

  // The rows f_{idx[k]}(θ) (|idx|×output_dim()), rows read as in batch_loss. Throws for an
  // empty idx or an index outside 0..N−1. Cost: one batched forward pass over |idx| rows.
  template <class T>
  Matrix<T> batch_output(const Vector<T>& theta, std::span<const Eigen::Index> idx) const {
    check_theta(theta.size(), "batch_output");
    check_example_indices(idx, num_examples(), "Supervised::batch_output");
    check_held(idx, "batch_output");
    Eigen::MatrixXd xbuf;
    return outputs_for(theta, example_rows(data_->X, idx, xbuf, first_));
  }
  // All N rows fᵢ(θ) (N×output_dim()), in double. Cost: one batched forward pass.
  Eigen::MatrixXd outputs(const Eigen::VectorXd& theta) const {
    check_theta(theta.size(), "outputs");
    check_holds_all("outputs");
    return outputs_for(theta, data_->X);
  }
  // All N losses ℓᵢ(θ) in double. Cost: one batched forward pass and N nll evaluations.
  Eigen::VectorXd example_losses(const Eigen::VectorXd& theta) const {
    const Eigen::MatrixXd F = outputs(theta);  // refuses a window
    Eigen::VectorXd l(num_examples());
    for (Eigen::Index i = 0; i < num_examples(); ++i)
      l(i) = lik_.nll(Eigen::VectorXd(F.row(i).transpose()),
                      Eigen::VectorXd(data_->Y.row(i).transpose()));
    return l;
  }

 private:
  // The rows fᵢ as batch_nll takes them best: on the tape one matrix variable — the network's
  // output handle itself (Sequential::trace) when the likelihood has no parameters of its own,
  // else [output | parameters] gathered into one — and an Eigen matrix otherwise.
  template <class T>
  auto loss_outputs(const Vector<T>& theta, const Eigen::Ref<const Eigen::MatrixXd>& X) const {
    if constexpr (ad::is_var_v<T> && requires { net_.trace(theta, X); }) {
      if (lik_.num_params() == 0) return net_.trace(theta, X);
      return ad::as_matrix(outputs_for(theta, X));
    } else {
      return outputs_for(theta, X);
    }
  }

  template <class T>
  Matrix<T> outputs_for(const Vector<T>& theta, const Eigen::Ref<const Eigen::MatrixXd>& X) const {
    check_theta(theta.size(), "forward");
    const Matrix<T> F = net_.forward(theta, X);
    const int np = lik_.num_params();
    if (np == 0) return F;
    Matrix<T> out(F.rows(), F.cols() + np);
    out.leftCols(F.cols()) = F;
    for (int k = 0; k < np; ++k) out.col(F.cols() + k).setConstant(theta(lik_offset_ + k));
    return out;
  }

  void check_theta(Eigen::Index size, const char* who) const {
    check_theta_size(size, num_params(), std::string("ngvi::nn::Supervised::") + who);
  }
  void check_example(Eigen::Index theta_size, Eigen::Index i, const char* who) const {
    check_theta(theta_size, who);
    if (i < 0 || i >= num_examples())
      throw std::out_of_range(std::string("ngvi::nn::Supervised::") + who + ": example " +
                              std::to_string(i) + " outside 0.." +
                              std::to_string(num_examples() - 1));
    check_held(ExampleIndices(&i, 1), who);
  }
  // Throws std::out_of_range for the first idx[k] outside the rows held, naming the window.
  void check_held(ExampleIndices idx, const char* who) const {
    if (holds_all()) return;
    for (std::size_t k = 0; k < idx.size(); ++k)
      if (idx[k] < first_ || idx[k] >= first_ + data_->size())
        throw std::out_of_range(
            std::string("ngvi::nn::Supervised::") + who + ": example " + std::to_string(idx[k]) +
            " (position " + std::to_string(k) + ") is not held: this model holds examples " +
            std::to_string(first_) + ".." + std::to_string(first_ + data_->size() - 1) + " of " +
            std::to_string(total_));
  }
  // Throws std::logic_error unless the model holds all N examples.
  void check_holds_all(const char* who) const {
    if (holds_all()) return;
    throw std::logic_error(std::string("ngvi::nn::Supervised::") + who +
                           " runs over all N = " + std::to_string(total_) +
                           " examples, but this model holds only examples " +
                           std::to_string(first_) + ".." +
                           std::to_string(first_ + data_->size() - 1) +
                           " (sum over the examples held, through a reducer by data rows)");
  }

  Net net_;
  Lik lik_;
  std::shared_ptr<const Dataset> data_;  // never null; shared by copies, never written
  ParameterLayout layout_;
  Eigen::Index lik_offset_ = 0;
  Eigen::Index first_ = 0;  // the example that row 0 of data_ is
  Eigen::Index total_ = 0;  // N, the examples of the whole data set
};

// What nn's batched per-example route (nn/per_example.hpp) needs of a model, which
// Supervised<Sequential, L> has: a Sequential net() whose output for the inputs of examples idx
// (input_rows_of), followed by θ's entries from likelihood_offset() on, is fᵢ; their targets
// (target_rows_of); and a likelihood() whose batch_nll takes the block's outputs as one matrix
// variable. The route assumes ℓᵢ(θ) = likelihood().nll(fᵢ, yᵢ), as Supervised defines it.
template <class M>
concept BatchedSequentialModel = SeparableModel<M> &&
    (HasExampleRows<M> || HasDataRows<M>)&&requires(const M& m) {
  { m.net() } -> std::convertible_to<const Sequential&>;
  requires Likelihood<std::remove_cvref_t<decltype(m.likelihood())>>;
  { m.likelihood_offset() } -> std::convertible_to<Eigen::Index>;
};

}  // namespace ngvi::nn
