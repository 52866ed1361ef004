// FitCheckpoint: everything the fit loop needs to continue a run bitwise identically.
//
// A run is a deterministic function of its options, its data and the generator states, so a
// checkpoint holds: where the loop is (iteration, epoch), the minibatch sampler's permutation and
// position, the two generators (training draws, and the separate stream the history's ELBO uses,
// so that recording history never changes training), the method's state as named arrays, the
// history and the counters so far, and the training loss at the start (the divergence rule's
// reference); a run that changes the loop's options between phases (empirical Bayes) adds its
// own state. encode()/decode() turn it into JSON text whose doubles
// round-trip exactly (nlohmann-json prints the shortest representation that reads back to the
// same bits); a history number that is not finite (the ELBO and KL of a point estimate are NaN,
// a diverged loss ±∞), which JSON cannot hold, is saved as the string "NaN", "Infinity" or
// "-Infinity". Generators are saved in the standard's textual form of std::mt19937_64. Files are
// written by the Checkpointer callback (callbacks.hpp), atomically.
//
// decode() checks every field on its own, since a checkpoint is a file anyone can edit or
// truncate: counts not negative, the order a permutation of 0..N−1 and the position in 0..N, each
// state array's numbers as many as its shape, the counters not negative. A failure names the
// field. Every number is finite: JSON cannot hold one that is not (an overflowing literal such as
// 1e400 is a parse error), and the history's are the strings above. Whether the checkpoint fits a
// model (N, the state's shapes) is checked when a run resumes from it; data_fingerprint, an
// identifier of the data set chosen by the caller, is compared by that caller.
// Functions and members that would not otherwise be templates are written `template <int = 0>`
// (called as usual), so that a program compiles their JSON code only if it calls them
// (docs/architecture.md, "Compile time").
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <inference/fit_result.hpp>
#include <inference/minibatch.hpp>
#include <inference/random.hpp>

namespace ngvi::vi {

namespace detail {

// A history number as JSON: itself if finite, else "NaN", "Infinity" or "-Infinity".
template <int = 0>
nlohmann::json history_number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity");
}

// The inverse of history_number. Throws std::invalid_argument for any other string, and
// nlohmann::json's type error for a value that is neither a number nor a string.
template <int = 0>
double history_number(const nlohmann::json& j) {
  if (!j.is_string()) return j.get<double>();
  const std::string s = j.get<std::string>();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  throw std::invalid_argument("a history number is the string \"" + s +
                              "\", not a number, \"NaN\", \"Infinity\" or \"-Infinity\"");
}

// Throws std::invalid_argument naming `field` unless `ok`.
inline void check_field(bool ok, const std::string& field, const std::string& what) {
  if (!ok) throw std::invalid_argument("field \"" + field + "\" " + what);
}

// j as a count: an integer ≥ 0. Throws std::invalid_argument naming `field`.
template <int = 0>
Eigen::Index count_field(const nlohmann::json& j, const std::string& field) {
  check_field(j.is_number_integer() && j.get<long long>() >= 0, field,
              "is " + j.dump() + ", not an integer >= 0");
  return j.get<Eigen::Index>();
}

// Named arrays as JSON: [{"name", "rows", "cols", "data": column-major numbers}, ...].
template <int = 0>
nlohmann::json encode_arrays(const NamedArrays& arrays) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, m] : arrays) {
    std::vector<double> v(m.data(), m.data() + m.size());
    out.push_back({{"name", name}, {"rows", m.rows()}, {"cols", m.cols()}, {"data", v}});
  }
  return out;
}

// The inverse of encode_arrays. Throws std::invalid_argument naming `prefix`.name when an
// array's numbers are not as many as its shape, and nlohmann::json's errors for other damage.
template <int = 0>
NamedArrays decode_arrays(const nlohmann::json& j, const std::string& prefix) {
  NamedArrays out;
  for (const nlohmann::json& a : j) {
    const std::string field = prefix + "." + a.at("name").get<std::string>();
    const Eigen::Index rows = count_field(a.at("rows"), field + ".rows"),
                       cols = count_field(a.at("cols"), field + ".cols");
    const auto data = a.at("data").get<std::vector<double>>();
    const auto size = static_cast<Eigen::Index>(data.size());
    // rows·cols compared without forming it (it may overflow).
    check_field((rows == 0 || cols == 0) ? size == 0 : (size % rows == 0 && size / rows == cols),
                field + ".data",
                "has " + std::to_string(data.size()) + " numbers for rows = " +
                    std::to_string(rows) + " and cols = " + std::to_string(cols));
    out.emplace_back(a.at("name").get<std::string>(),
                     Eigen::Map<const Eigen::MatrixXd>(data.data(), rows, cols));
  }
  return out;
}

}  // namespace detail

struct FitCheckpoint {
  std::string method;               // the method's name; resume checks it against the options
  Eigen::Index iteration = 0;       // steps completed
  Eigen::Index epoch = 0;           // epochs started
  std::vector<Eigen::Index> order;  // the sampler's permutation
  Eigen::Index position = 0;        // and the position in it
  // A sampler stratified over row blocks (minibatch.hpp) holds no permutation: `order` is empty,
  // `position` the batches drawn this epoch, and this the epoch's key.
  std::optional<std::uint64_t> sampler_key;
  std::string rng;       // training generator state
  std::string eval_rng;  // history (ELBO) generator state
  NamedArrays state;     // the method's own state
  std::vector<HistoryRow> history;
  Counters counters;
  // Σᵢ ℓᵢ at the run's initial mean, where the divergence rule starts (DivergenceRule,
  // loop_options.hpp); NaN in a checkpoint written before it was saved.
  double start_train_nll = std::numeric_limits<double>::quiet_NaN();
  // What the caller set to identify the data set the run is on (the tool: its size and a
  // checksum of its numbers); empty: none. resume() does not read it: the caller compares it.
  std::string data_fingerprint;
  // The state of a run around the fit loop that changes its options between phases (empirical
  // Bayes's learned δ and τ, empirical_bayes.hpp) and that run's own generator; empty in a plain
  // run. The loop copies them from a CheckpointAddition among its callbacks.
  NamedArrays hyperparameters;
  std::string hyperparameter_rng;

  // Cost: O(size of the state) text formatting.
  template <int = 0>
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
    if (sampler_key) j["sampler_key"] = std::to_string(*sampler_key);
    j["rng"] = rng;
    j["eval_rng"] = eval_rng;
    j["state"] = detail::encode_arrays(state);
    if (!hyperparameters.empty())
      j["hyperparameters"] = {{"arrays", detail::encode_arrays(hyperparameters)},
                              {"rng", hyperparameter_rng}};
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
    if (!data_fingerprint.empty()) j["data_fingerprint"] = data_fingerprint;
    j["counters"] = {{"steps", counters.steps},
                     {"remedies", counters.remedies},
                     {"seconds_gradients", counters.seconds_gradients},
                     {"seconds_curvature", counters.seconds_curvature},
                     {"seconds_linear_algebra", counters.seconds_linear_algebra},
                     {"seconds_total", counters.seconds_total}};
    return j.dump();
  }

  // Throws std::invalid_argument naming what is missing or malformed (see the top of the file).
  // Cost: O(size of the text).
  template <int = 0>
  static FitCheckpoint decode(std::string_view text) {
    using detail::count_field;
    using nlohmann::json;
    json j;
    try {
      j = json::parse(text);
      if (!j.is_object() || j.value("format", std::string()) != "ngvi.checkpoint")
        throw std::invalid_argument("not an ngvi checkpoint (no \"format\": \"ngvi.checkpoint\")");
      // Compared as JSON: a version of another type or out of int's range is not converted.
      if (j.at("version") != json(1))
        throw std::invalid_argument("unsupported checkpoint version " + j.at("version").dump());
      FitCheckpoint c;
      c.method = j.at("method").get<std::string>();
      c.iteration = count_field(j.at("iteration"), "iteration");
      c.epoch = count_field(j.at("epoch"), "epoch");
      for (const json& e : j.at("order")) {
        detail::check_field(
            e.is_number_integer(), "order",
            "entry " + std::to_string(c.order.size()) + " is " + e.dump() + ", not an integer");
        c.order.push_back(e.get<Eigen::Index>());
      }
      const auto n = static_cast<Eigen::Index>(c.order.size());
      if (const auto k = first_non_permutation_entry(c.order))
        detail::check_field(
            false, "order",
            "is not a permutation of 0.." + std::to_string(n - 1) + ": entry " +
                std::to_string(*k) + " is " + std::to_string(c.order[*k]) +
                (c.order[*k] >= 0 && c.order[*k] < n ? ", which an earlier entry holds" : ""));
      c.position = count_field(j.at("position"), "position");
      if (j.contains("sampler_key")) {
        const json& k = j.at("sampler_key");
        const std::string digits = k.is_string() ? k.get<std::string>() : std::string();
        detail::check_field(!digits.empty() && digits.size() <= 20 &&
                                digits.find_first_not_of("0123456789") == std::string::npos,
                            "sampler_key", "is " + k.dump() + ", not a 64-bit count in a string");
        std::uint64_t key = 0;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), key);
        detail::check_field(ec == std::errc() && end == digits.data() + digits.size(),
                            "sampler_key", "is " + k.dump() + ", beyond 64 bits");
        detail::check_field(c.order.empty(), "order",
                            "holds " + std::to_string(n) +
                                " entries, but a stratified sampler (sampler_key) has none");
        c.sampler_key = key;
      }
      detail::check_field(c.sampler_key || c.position <= n, "position",
                          "is " + std::to_string(c.position) + ", beyond the " + std::to_string(n) +
                              " entries of the order");
      c.rng = j.at("rng").get<std::string>();
      c.eval_rng = j.at("eval_rng").get<std::string>();
      c.state = detail::decode_arrays(j.at("state"), "state");
      if (j.contains("hyperparameters")) {
        const json& h = j.at("hyperparameters");
        c.hyperparameters = detail::decode_arrays(h.at("arrays"), "hyperparameters");
        c.hyperparameter_rng = h.at("rng").get<std::string>();
        detail::check_field(!c.hyperparameters.empty(), "hyperparameters.arrays", "is empty");
      }
      for (const json& r : j.at("history")) {
        const std::string field = "history[" + std::to_string(c.history.size()) + "]";
        HistoryRow h;
        h.iteration = count_field(r.at("iteration"), field + ".iteration");
        h.epoch = count_field(r.at("epoch"), field + ".epoch");
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
      if (j.contains("data_fingerprint"))
        c.data_fingerprint = j.at("data_fingerprint").get<std::string>();
      const json& k = j.at("counters");
      c.counters.steps = count_field(k.at("steps"), "counters.steps");
      for (const auto& r : k.at("remedies").items())
        c.counters.remedies[r.key()] = count_field(r.value(), "counters.remedies." + r.key());
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

// A callback of the fit loop without hooks: every checkpoint the run takes
// (LoopContext::checkpoint) carries *hyperparameters and *rng as they are at that moment, so that
// a run wrapped around the loop (fit_with_empirical_bayes) can resume from any of them.
struct CheckpointAddition {
  const NamedArrays* hyperparameters = nullptr;
  const std::string* rng = nullptr;
};

// The textual state of a generator, and back. Throws std::invalid_argument on a malformed state.
template <int = 0>
std::string save_rng(const Rng& rng) {
  std::ostringstream os;
  os << rng;
  return os.str();
}
template <int = 0>
Rng load_rng(const std::string& state) {
  std::istringstream is(state);
  Rng rng;
  is >> rng;
  if (!is)
    throw std::invalid_argument("ngvi::vi::load_rng: malformed generator state in a checkpoint");
  return rng;
}

}  // namespace ngvi::vi
