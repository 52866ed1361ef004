// FitCheckpoint: everything the fit loop needs to continue a run bitwise identically.
//
// A run is a deterministic function of its options, its data and the generator states, so a
// checkpoint holds: where the loop is (iteration, epoch), the minibatch sampler's permutation and
// position, the two generators (training draws, and the separate stream the history's ELBO uses,
// so that recording history never changes training), the method's state as named arrays, the
// history and the counters so far, and the training loss at the start (the divergence rule's
// reference). encode()/decode() turn it into JSON text whose doubles
// round-trip exactly (nlohmann-json prints the shortest representation that reads back to the
// same bits); a history number that is not finite (the ELBO and KL of a point estimate are NaN,
// a diverged loss ±∞), which JSON cannot hold, is saved as the string "NaN", "Infinity" or
// "-Infinity". Generators are saved in the standard's textual form of std::mt19937_64. Files are
// written by the Checkpointer callback (callbacks.hpp), atomically.
#pragma once

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <inference/fit_result.hpp>
#include <inference/random.hpp>

namespace ngvi::vi {

namespace detail {

// A history number as JSON: itself if finite, else "NaN", "Infinity" or "-Infinity".
inline nlohmann::json history_number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity");
}

// The inverse of history_number. Throws std::invalid_argument for any other string, and
// nlohmann::json's type error for a value that is neither a number nor a string.
inline double history_number(const nlohmann::json& j) {
  if (!j.is_string()) return j.get<double>();
  const std::string s = j.get<std::string>();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  throw std::invalid_argument("a history number is the string \"" + s +
                              "\", not a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
}

}  // namespace detail

struct FitCheckpoint {
  std::string method;               // the method's name; resume checks it against the options
  Eigen::Index iteration = 0;       // steps completed
  Eigen::Index epoch = 0;           // epochs started
  std::vector<Eigen::Index> order;  // the sampler's permutation
  Eigen::Index position = 0;        // and the position in it
  std::string rng;                  // training generator state
  std::string eval_rng;             // history (ELBO) generator state
  NamedArrays state;                // the method's own state
  std::vector<HistoryRow> history;
  Counters counters;
  // Σᵢ ℓᵢ at the run's initial mean, where the divergence rule starts (DivergenceRule,
  // loop_options.hpp); NaN in a checkpoint written before it was saved.
  double start_train_nll = std::numeric_limits<double>::quiet_NaN();

  // Cost: O(size of the state) text formatting.
  std::string encode() const {
    using nlohmann::json;
    json j;
    j["format"] = "ngvi.checkpoint";
    j["version"] = 1;
    j["method"] = method;
    j["iteration"] = iteration;
    j["epoch"] = epoch;
    j["order"] = order;
    j["position"] = position;
    j["rng"] = rng;
    j["eval_rng"] = eval_rng;
    json arrays = json::array();
    for (const auto& [name, m] : state) {
      std::vector<double> v(m.data(), m.data() + m.size());
      arrays.push_back({{"name", name}, {"rows", m.rows()}, {"cols", m.cols()}, {"data", v}});
    }
    j["state"] = arrays;
    json rows = json::array();
    for (const HistoryRow& r : history) {
      json metrics = json::array();
      for (const auto& [k, v] : r.metrics) metrics.push_back({k, detail::history_number(v)});
      rows.push_back({{"iteration", r.iteration},
                      {"epoch", r.epoch},
                      {"elbo", detail::history_number(r.elbo)},
                      {"expected_nll", detail::history_number(r.expected_nll)},
                      {"kl", detail::history_number(r.kl)},
                      {"train_nll", detail::history_number(r.train_nll)},
                      {"seconds", r.seconds},
                      {"metrics", metrics}});
    }
    j["history"] = rows;
    j["start_train_nll"] = detail::history_number(start_train_nll);
    j["counters"] = {{"steps", counters.steps},
                     {"remedies", counters.remedies},
                     {"seconds_gradients", counters.seconds_gradients},
                     {"seconds_curvature", counters.seconds_curvature},
                     {"seconds_linear_algebra", counters.seconds_linear_algebra},
                     {"seconds_total", counters.seconds_total}};
    return j.dump();
  }

  // Throws std::invalid_argument naming what is missing or malformed.
  static FitCheckpoint decode(std::string_view text) {
    using nlohmann::json;
    json j;
    try {
      j = json::parse(text);
      if (j.value("format", std::string()) != "ngvi.checkpoint")
        throw std::invalid_argument("not an ngvi checkpoint (no \"format\": \"ngvi.checkpoint\")");
      if (j.at("version").get<int>() != 1)
        throw std::invalid_argument("unsupported checkpoint version " + j.at("version").dump());
      FitCheckpoint c;
      c.method = j.at("method").get<std::string>();
      c.iteration = j.at("iteration").get<Eigen::Index>();
      c.epoch = j.at("epoch").get<Eigen::Index>();
      c.order = j.at("order").get<std::vector<Eigen::Index>>();
      c.position = j.at("position").get<Eigen::Index>();
      c.rng = j.at("rng").get<std::string>();
      c.eval_rng = j.at("eval_rng").get<std::string>();
      for (const json& a : j.at("state")) {
        const auto rows = a.at("rows").get<Eigen::Index>(), cols = a.at("cols").get<Eigen::Index>();
        const auto data = a.at("data").get<std::vector<double>>();
        if (rows < 0 || cols < 0 || static_cast<Eigen::Index>(data.size()) != rows * cols)
          throw std::invalid_argument(
              "state array " + a.at("name").dump() + " has " + std::to_string(data.size()) +
              " numbers for a " + std::to_string(rows) + "×" + std::to_string(cols) + " matrix");
        c.state.emplace_back(a.at("name").get<std::string>(),
                             Eigen::Map<const Eigen::MatrixXd>(data.data(), rows, cols));
      }
      for (const json& r : j.at("history")) {
        HistoryRow h;
        h.iteration = r.at("iteration").get<Eigen::Index>();
        h.epoch = r.at("epoch").get<Eigen::Index>();
        h.elbo = detail::history_number(r.at("elbo"));
        h.expected_nll = detail::history_number(r.at("expected_nll"));
        h.kl = detail::history_number(r.at("kl"));
        h.train_nll = detail::history_number(r.at("train_nll"));
        h.seconds = r.at("seconds").get<double>();
        for (const json& m : r.at("metrics"))
          h.metrics.emplace_back(m.at(0).get<std::string>(), detail::history_number(m.at(1)));
        c.history.push_back(std::move(h));
      }
      if (j.contains("start_train_nll"))
        c.start_train_nll = detail::history_number(j.at("start_train_nll"));
      const json& k = j.at("counters");
      c.counters.steps = k.at("steps").get<Eigen::Index>();
      c.counters.remedies = k.at("remedies").get<std::map<std::string, Eigen::Index>>();
      c.counters.seconds_gradients = k.at("seconds_gradients").get<double>();
      c.counters.seconds_curvature = k.at("seconds_curvature").get<double>();
      c.counters.seconds_linear_algebra = k.at("seconds_linear_algebra").get<double>();
      c.counters.seconds_total = k.at("seconds_total").get<double>();
      return c;
    } catch (const json::exception& e) {
      throw std::invalid_argument(
          std::string("ngvi::vi::FitCheckpoint::decode: malformed checkpoint: ") + e.what());
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("ngvi::vi::FitCheckpoint::decode: ") + e.what());
    }
  }
};

// The textual state of a generator, and back. Throws std::invalid_argument on a malformed state.
inline std::string save_rng(const Rng& rng) {
  std::ostringstream os;
  os << rng;
  return os.str();
}
inline Rng load_rng(const std::string& state) {
  std::istringstream is(state);
  Rng rng;
  is >> rng;
  if (!is)
    throw std::invalid_argument("ngvi::vi::load_rng: malformed generator state in a checkpoint");
  return rng;
}

}  // namespace ngvi::vi
