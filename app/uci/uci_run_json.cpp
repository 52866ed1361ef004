// encode_uci_run and decode_uci_run (app/uci/uci_run_json.hpp): every field of a UciRun, the
// tuning fits included, as JSON arrays and objects in CBOR; the means and standard errors are not
// sent but recomputed by the receiver.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <app/uci/uci_run_json.hpp>
#include <nlohmann/json.hpp>

namespace ngvi::app {
namespace {

nlohmann::json run_json(const UciRun& r) {
  nlohmann::json splits = nlohmann::json::array();
  for (const SplitResult& s : r.splits) {
    nlohmann::json tuning = nlohmann::json::array();
    for (const TuningFit& f : s.tuning)
      tuning.push_back({f.noise_precision, f.prior_precision, f.best_epoch,
                        f.validation_log_likelihood, f.log_marginal_likelihood,
                        f.degrees_of_freedom});
    splits.push_back({{"split", s.split},
                      {"ok", s.ok},
                      {"message", s.message},
                      {"numbers",
                       {s.rmse, s.log_likelihood, s.noise_precision, s.prior_precision,
                        s.validation_log_likelihood, s.log_marginal_likelihood, s.seconds,
                        s.degrees_of_freedom}},
                      {"epochs", s.epochs},
                      {"blocks", s.blocks},
                      {"block_prior_precisions", s.block_prior_precisions},
                      {"member_rmse", s.member_rmse},
                      {"member_log_likelihood", s.member_log_likelihood},
                      {"tuning", tuning}});
  }
  return {{"dataset", r.dataset},
          {"inputs", r.inputs},
          {"hidden_units", r.hidden_units},
          {"seconds", r.seconds},
          {"splits", splits}};
}

}  // namespace

std::string encode_uci_run(const UciRun& run) {
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_cbor(run_json(run));
  return std::string(bytes.begin(), bytes.end());
}

UciRun decode_uci_run(const std::string& bytes) {
  const nlohmann::json j = nlohmann::json::from_cbor(bytes);
  UciRun r;
  r.dataset = j.at("dataset").get<std::string>();
  r.inputs = j.at("inputs").get<Eigen::Index>();
  r.hidden_units = j.at("hidden_units").get<Eigen::Index>();
  r.seconds = j.at("seconds").get<double>();
  for (const nlohmann::json& t : j.at("splits")) {
    SplitResult s;
    s.split = t.at("split").get<int>();
    s.ok = t.at("ok").get<bool>();
    s.message = t.at("message").get<std::string>();
    const nlohmann::json& x = t.at("numbers");
    s.rmse = x.at(0).get<double>();
    s.log_likelihood = x.at(1).get<double>();
    s.noise_precision = x.at(2).get<double>();
    s.prior_precision = x.at(3).get<double>();
    s.validation_log_likelihood = x.at(4).get<double>();
    s.log_marginal_likelihood = x.at(5).get<double>();
    s.seconds = x.at(6).get<double>();
    s.degrees_of_freedom = x.at(7).get<double>();
    s.epochs = t.at("epochs").get<Eigen::Index>();
    s.blocks = t.at("blocks").get<std::vector<std::string>>();
    s.block_prior_precisions = t.at("block_prior_precisions").get<std::vector<double>>();
    s.member_rmse = t.at("member_rmse").get<std::vector<double>>();
    s.member_log_likelihood = t.at("member_log_likelihood").get<std::vector<double>>();
    for (const nlohmann::json& f : t.at("tuning"))
      s.tuning.push_back({.noise_precision = f.at(0).get<double>(),
                          .prior_precision = f.at(1).get<double>(),
                          .best_epoch = f.at(2).get<Eigen::Index>(),
                          .validation_log_likelihood = f.at(3).get<double>(),
                          .log_marginal_likelihood = f.at(4).get<double>(),
                          .degrees_of_freedom = f.at(5).get<double>()});
    r.splits.push_back(std::move(s));
  }
  summarise_uci_run(r);
  return r;
}

}  // namespace ngvi::app
