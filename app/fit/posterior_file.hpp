// The saved posterior of `ngvi fit`: the fitted network, how its inputs and target were scaled,
// and q(θ), as one JSON file (posterior.json) that `ngvi fit --posterior FILE --predict CSV`
// applies to new inputs.
//
// Schema (format "ngvi-posterior", version 1):
//   task            "regression" or "classification"
//   method          the method that fitted it (app/methods/method_settings.hpp)
//   inputs, target  column names: the inputs in the network's order, and the target
//   hidden          hidden widths ([] is a linear model), activation "relu" or "tanh"
//   input_scaling   {mean: [D], scale: [D]}: z = (x − mean)/scale, the training statistics
//   target_scaling  {mean: [1], scale: [1]} (regression; y = mean + scale·f)
//   noise_precision τ of the Gaussian likelihood in standardised units (regression)
//   classes         C, labels 0..C−1 (classification)
//   family          diagonal_gaussian | full_gaussian | kronecker_gaussian | low_rank_gaussian |
//                   subnetwork_gaussian | point_estimate
//   mean            E_q[θ] (P numbers); precision: [P] (diagonal) or [P][P] (full);
//   blocks          (kronecker) [{index: [s·a], A: [a][a], S: [s][s], scale}]
//   low_rank, diagonal  (low rank) Λ = UUᵀ + diag(d): U's L columns, each [P], and d, [P]
//   indices, precision  (subnetwork: the last-layer Laplace) S, the P_S positions in θ that are
//                   Gaussian, and their precision Λ_S, [P_S][P_S]; θ outside S is the mean
//   hyperparameters (--hyperparameters evidence or noise) {source: "evidence" | "noise",
//                   prior_precisions: {block: δ_b}, noise_precision: τ (regression),
//                   log_marginal_likelihood (the Laplace methods)}: what
//                   the fit learned, for the record (the precision and noise_precision hold them)
// read_posterior_file checks every field and that q matches the network (P), and reports any
// problem as an io::DataError naming the file and the field, like the CSV readers.
#pragma once

#include <cmath>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/methods/any_posterior.hpp>
#include <app/methods/learned_hyperparameters.hpp>
#include <io/data_error.hpp>
#include <io/json_file.hpp>
#include <nlohmann/json.hpp>

#include <nn/activations.hpp>
#include <nn/dataset.hpp>
#include <nn/sequential.hpp>

namespace ngvi::app {

struct NetworkSpec {
  bool classification = false;       // task: false = regression
  std::vector<std::string> inputs;   // input column names, in the network's order
  std::string target;                // target column name
  std::vector<Eigen::Index> hidden;  // hidden widths; empty: a linear model
  bool tanh = false;                 // hidden activation: tanh, else ReLU
  nn::Standardizer input_scaling;    // training statistics of the inputs
  nn::Standardizer target_scaling;   // of the target (regression); identity for classes
  double noise_precision = 1.0;      // τ, standardised units (regression)
  int classes = 0;                   // C (classification)

  // {D, hidden..., outputs}: the MLP this spec describes, initialised as `ngvi uci`'s networks
  // are (nn::Init::fan_in_uniform; the initialisation does not affect a loaded posterior).
  // Cost: O(layers).
  nn::Sequential network() const {
    std::vector<Eigen::Index> widths{static_cast<Eigen::Index>(inputs.size())};
    widths.insert(widths.end(), hidden.begin(), hidden.end());
    widths.push_back(classification ? classes : 1);
    return nn::Sequential::mlp(widths, tanh ? nn::Layer(nn::Tanh{}) : nn::Layer(nn::Relu{}),
                               nn::Init::fan_in_uniform);
  }
};

struct SavedPosterior {
  NetworkSpec spec;
  std::string method;
  AnyPosterior posterior;
  std::optional<LearnedHyperparameters> hyperparameters;  // written, not read back
};

namespace detail {

inline nlohmann::json vector_json(const Eigen::VectorXd& v) {
  return std::vector<double>(v.data(), v.data() + v.size());
}
inline nlohmann::json matrix_json(const Eigen::MatrixXd& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) rows.push_back(vector_json(m.row(r).transpose()));
  return rows;
}
inline nlohmann::json scaling_json(const nn::Standardizer& s) {
  return {{"mean", vector_json(s.mean.transpose())}, {"scale", vector_json(s.scale.transpose())}};
}

// Reads the parts of a posterior file, each problem a DataError naming the file and the field.
class PosteriorReader {
 public:
  PosteriorReader(const std::filesystem::path& file, const nlohmann::json& j)
      : file_(file), j_(j) {}

  [[noreturn]] void fail(const std::string& field, const std::string& expected,
                         const std::string& found) const {
    throw io::DataError(file_, 0, 0, "field '" + field + "' holding " + expected, found);
  }
  const nlohmann::json& at(const nlohmann::json& j, const std::string& key,
                           const std::string& field) const {
    if (!j.is_object() || !j.contains(key)) fail(field, "a value", "no such field");
    return j.at(key);
  }
  std::string text(const nlohmann::json& j, const std::string& field) const {
    if (!j.is_string()) fail(field, "a string", describe(j));
    return j.get<std::string>();
  }
  double number(const nlohmann::json& j, const std::string& field) const {
    if (!j.is_number() || !std::isfinite(j.get<double>()))
      fail(field, "a finite number", describe(j));
    return j.get<double>();
  }
  Eigen::Index count(const nlohmann::json& j, const std::string& field, Eigen::Index lo) const {
    if (!j.is_number_integer() || j.get<long long>() < lo || j.get<long long>() > (1 << 24))
      fail(field, "an integer from " + std::to_string(lo) + " to 2^24", describe(j));
    return static_cast<Eigen::Index>(j.get<long long>());
  }
  Eigen::VectorXd vector(const nlohmann::json& j, const std::string& field, Eigen::Index n) const {
    if (!j.is_array() || (n >= 0 && static_cast<Eigen::Index>(j.size()) != n))
      fail(field, n >= 0 ? "an array of " + std::to_string(n) + " numbers" : "an array",
           describe(j));
    Eigen::VectorXd v(static_cast<Eigen::Index>(j.size()));
    for (std::size_t i = 0; i < j.size(); ++i)
      v(static_cast<Eigen::Index>(i)) = number(j[i], field + "[" + std::to_string(i) + "]");
    return v;
  }
  Eigen::MatrixXd matrix(const nlohmann::json& j, const std::string& field, Eigen::Index n) const {
    if (!j.is_array() || static_cast<Eigen::Index>(j.size()) != n)
      fail(field, "an array of " + std::to_string(n) + " rows", describe(j));
    Eigen::MatrixXd m(n, n);
    for (Eigen::Index r = 0; r < n; ++r)
      m.row(r) = vector(j[static_cast<std::size_t>(r)], field + "[" + std::to_string(r) + "]", n)
                     .transpose();
    return m;
  }
  nn::Standardizer scaling(const nlohmann::json& j, const std::string& field,
                           Eigen::Index n) const {
    nn::Standardizer s{vector(at(j, "mean", field + ".mean"), field + ".mean", n).transpose(),
                       vector(at(j, "scale", field + ".scale"), field + ".scale", n).transpose()};
    if (!(s.scale.array() > 0.0).all()) fail(field + ".scale", "positive numbers", "a scale <= 0");
    return s;
  }

 private:
  static std::string describe(const nlohmann::json& j) {
    return std::string("a JSON ") + j.type_name();
  }
  const std::filesystem::path& file_;
  const nlohmann::json& j_;
};

}  // namespace detail

// The JSON of the schema above. Cost: O(size of q's arrays).
inline nlohmann::json posterior_json(const SavedPosterior& s) {
  const NetworkSpec& n = s.spec;
  nlohmann::json j;
  j["format"] = "ngvi-posterior";
  j["version"] = 1;
  j["task"] = n.classification ? "classification" : "regression";
  j["method"] = s.method;
  j["inputs"] = n.inputs;
  j["target"] = n.target;
  j["hidden"] = n.hidden;
  j["activation"] = n.tanh ? "tanh" : "relu";
  j["input_scaling"] = detail::scaling_json(n.input_scaling);
  if (n.classification) {
    j["classes"] = n.classes;
  } else {
    j["target_scaling"] = detail::scaling_json(n.target_scaling);
    j["noise_precision"] = n.noise_precision;
  }
  j["family"] = family_name(s.posterior);
  j["mean"] = detail::vector_json(mean_of(s.posterior));
  std::visit(
      [&](const auto& q) {
        using Q = std::decay_t<decltype(q)>;
        if constexpr (std::is_same_v<Q, vi::DiagonalGaussian>) {
          j["precision"] = detail::vector_json(q.precision());
        } else if constexpr (std::is_same_v<Q, vi::FullGaussian>) {
          j["precision"] = detail::matrix_json(q.precision());
        } else if constexpr (std::is_same_v<Q, vi::KroneckerGaussian>) {
          j["blocks"] = nlohmann::json::array();
          for (const vi::KroneckerBlock& b : q.blocks())
            j["blocks"].push_back({{"index", b.index},
                                   {"A", detail::matrix_json(b.A)},
                                   {"S", detail::matrix_json(b.S)},
                                   {"scale", b.scale}});
        } else if constexpr (std::is_same_v<Q, vi::LowRankGaussian>) {
          j["low_rank"] = nlohmann::json::array();
          for (Eigen::Index c = 0; c < q.rank(); ++c)
            j["low_rank"].push_back(detail::vector_json(q.low_rank_factor().col(c)));
          j["diagonal"] = detail::vector_json(q.diagonal());
        } else if constexpr (std::is_same_v<Q, vi::SubnetworkGaussian>) {
          j["indices"] = q.indices();
          j["precision"] = detail::matrix_json(q.subnetwork().precision());
        }
      },
      s.posterior);
  if (const auto& h = s.hyperparameters) {
    nlohmann::json deltas = nlohmann::json::object();
    for (std::size_t b = 0; b < h->blocks.size(); ++b)
      deltas[h->blocks[b]] = h->prior_precisions(static_cast<Eigen::Index>(b));
    j["hyperparameters"] = {{"source", h->source}, {"prior_precisions", deltas}};
    if (!std::isnan(h->log_marginal_likelihood))
      j["hyperparameters"]["log_marginal_likelihood"] = h->log_marginal_likelihood;
    if (!std::isnan(h->noise_precision))
      j["hyperparameters"]["noise_precision"] = h->noise_precision;
  }
  return j;
}

// Reads and checks a posterior file (see the top of the file). Throws io::DataError.
// Cost: O(file size), plus one Cholesky of a full precision.
inline SavedPosterior read_posterior_file(const std::filesystem::path& file) {
  const nlohmann::json j = io::read_json_file(file);
  const detail::PosteriorReader r(file, j);
  if (!j.is_object() || !j.contains("format") || j["format"] != "ngvi-posterior")
    r.fail("format", "\"ngvi-posterior\" (a file written by ngvi fit)", "something else");
  if (r.count(r.at(j, "version", "version"), "version", 1) != 1)
    r.fail("version", "1", "another version");
  SavedPosterior s;
  NetworkSpec& n = s.spec;
  const std::string task = r.text(r.at(j, "task", "task"), "task");
  if (task != "regression" && task != "classification")
    r.fail("task", "\"regression\" or \"classification\"", io::quote_bytes(task));
  n.classification = task == "classification";
  s.method = r.text(r.at(j, "method", "method"), "method");
  const nlohmann::json& inputs = r.at(j, "inputs", "inputs");
  if (!inputs.is_array() || inputs.empty()) r.fail("inputs", "a non-empty array", "none");
  for (std::size_t i = 0; i < inputs.size(); ++i)
    n.inputs.push_back(r.text(inputs[i], "inputs[" + std::to_string(i) + "]"));
  n.target = r.text(r.at(j, "target", "target"), "target");
  const nlohmann::json& hidden = r.at(j, "hidden", "hidden");
  if (!hidden.is_array() || hidden.size() > 16)
    r.fail("hidden", "an array of widths", "another value");
  for (std::size_t i = 0; i < hidden.size(); ++i)
    n.hidden.push_back(r.count(hidden[i], "hidden[" + std::to_string(i) + "]", 1));
  const std::string act = r.text(r.at(j, "activation", "activation"), "activation");
  if (act != "relu" && act != "tanh")
    r.fail("activation", "\"relu\" or \"tanh\"", io::quote_bytes(act));
  n.tanh = act == "tanh";
  const auto d = static_cast<Eigen::Index>(n.inputs.size());
  n.input_scaling = r.scaling(r.at(j, "input_scaling", "input_scaling"), "input_scaling", d);
  if (n.classification) {
    n.classes = static_cast<int>(r.count(r.at(j, "classes", "classes"), "classes", 2));
    n.target_scaling = nn::Standardizer::identity(1);
  } else {
    n.target_scaling = r.scaling(r.at(j, "target_scaling", "target_scaling"), "target_scaling", 1);
    n.noise_precision = r.number(r.at(j, "noise_precision", "noise_precision"), "noise_precision");
    if (!(n.noise_precision > 0.0)) r.fail("noise_precision", "a positive number", "<= 0");
  }
  const Eigen::Index p = n.network().num_params();
  const std::string family = r.text(r.at(j, "family", "family"), "family");
  Eigen::VectorXd mean = r.vector(r.at(j, "mean", "mean"), "mean", p);
  try {
    if (family == "diagonal_gaussian") {
      s.posterior =
          vi::DiagonalGaussian(mean, r.vector(r.at(j, "precision", "precision"), "precision", p));
    } else if (family == "full_gaussian") {
      s.posterior =
          vi::FullGaussian(mean, r.matrix(r.at(j, "precision", "precision"), "precision", p));
    } else if (family == "kronecker_gaussian") {
      const nlohmann::json& blocks = r.at(j, "blocks", "blocks");
      if (!blocks.is_array()) r.fail("blocks", "an array", "another value");
      std::vector<vi::KroneckerBlock> kb;
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        const std::string f = "blocks[" + std::to_string(b) + "]";
        vi::KroneckerBlock k;
        const Eigen::VectorXd index =
            r.vector(r.at(blocks[b], "index", f + ".index"), f + ".index", -1);
        for (Eigen::Index i = 0; i < index.size(); ++i) {
          if (index(i) < 0 || index(i) >= static_cast<double>(p) ||
              std::floor(index(i)) != index(i))
            r.fail(f + ".index", "theta indices 0.." + std::to_string(p - 1), "another number");
          k.index.push_back(static_cast<Eigen::Index>(index(i)));
        }
        const nlohmann::json& a = r.at(blocks[b], "A", f + ".A");
        const nlohmann::json& sj = r.at(blocks[b], "S", f + ".S");
        k.A = r.matrix(a, f + ".A", a.is_array() ? static_cast<Eigen::Index>(a.size()) : 0);
        k.S = r.matrix(sj, f + ".S", sj.is_array() ? static_cast<Eigen::Index>(sj.size()) : 0);
        k.scale = r.number(r.at(blocks[b], "scale", f + ".scale"), f + ".scale");
        kb.push_back(std::move(k));
      }
      s.posterior = vi::KroneckerGaussian(mean, std::move(kb));
    } else if (family == "low_rank_gaussian") {
      const nlohmann::json& columns = r.at(j, "low_rank", "low_rank");
      if (!columns.is_array() || static_cast<Eigen::Index>(columns.size()) > p)
        r.fail("low_rank", "an array of at most " + std::to_string(p) + " columns",
               "another value");
      Eigen::MatrixXd u(p, static_cast<Eigen::Index>(columns.size()));
      for (std::size_t c = 0; c < columns.size(); ++c)
        u.col(static_cast<Eigen::Index>(c)) =
            r.vector(columns[c], "low_rank[" + std::to_string(c) + "]", p);
      s.posterior = vi::LowRankGaussian(mean, std::move(u),
                                        r.vector(r.at(j, "diagonal", "diagonal"), "diagonal", p));
    } else if (family == "subnetwork_gaussian") {
      const Eigen::VectorXd index = r.vector(r.at(j, "indices", "indices"), "indices", -1);
      std::vector<Eigen::Index> s_indices;
      for (Eigen::Index i = 0; i < index.size(); ++i) {
        if (index(i) < 0 || index(i) >= static_cast<double>(p) || std::floor(index(i)) != index(i))
          r.fail("indices", "theta indices 0.." + std::to_string(p - 1), "another number");
        s_indices.push_back(static_cast<Eigen::Index>(index(i)));
      }
      vi::FullGaussian q_s(mean(s_indices),
                           r.matrix(r.at(j, "precision", "precision"), "precision", index.size()));
      s.posterior = vi::SubnetworkGaussian(mean, std::move(s_indices), std::move(q_s));
    } else if (family == "point_estimate") {
      s.posterior = vi::PointEstimate(mean);
    } else {
      r.fail("family",
             "diagonal_gaussian, full_gaussian, kronecker_gaussian, low_rank_gaussian, "
             "subnetwork_gaussian or point_estimate",
             io::quote_bytes(family));
    }
  } catch (const std::invalid_argument& e) {
    // The family's own checks: a precision that is not positive (definite), blocks that do not
    // cover θ, named by the field that holds them.
    r.fail(family == "kronecker_gaussian"  ? "blocks"
           : family == "low_rank_gaussian" ? "diagonal"
                                           : "precision",
           "a valid " + family, io::quote_bytes(e.what(), 200));
  }
  return s;
}

}  // namespace ngvi::app
