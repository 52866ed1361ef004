// The file-writing fit callbacks: a run stopped midway and resumed from the checkpoint file the
// Checkpointer left ends bitwise where the uninterrupted run ends; the HistoryWriter's file holds
// every row (CSV and JSON); a damaged checkpoint file is an error naming the file; a checkpoint
// carries the fingerprint it was given, and the fingerprint changes with any number of the data.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>
#include <io/checkpoint_file.hpp>
#include <io/data_error.hpp>
#include <io/history_file.hpp>
#include <nlohmann/json.hpp>

#include <nn/dataset.hpp>

#include <support/scripted_method.hpp>
#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(checkpoint_file_test)

namespace fs = std::filesystem;
namespace vi = ngvi::vi;
namespace nn = ngvi::nn;
namespace io = ngvi::io;
using ngvi::test::quadratic_model;
using ngvi::test::read_file;
using ngvi::test::ScriptedOptions;
using ngvi::test::TempDir;

namespace {

struct StopAt {
  Eigen::Index at;
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    return ctx.iteration() == at;
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_run_resumed_from_its_checkpoint_file_ends_where_the_whole_run_ends) {
  const TempDir dir;
  const auto model = quadratic_model();
  ScriptedOptions o;
  o.loop.minibatch = 3;
  o.loop.epochs = 5;
  const fs::path ckpt = dir.path / "run.ckpt", csv = dir.path / "history.csv",
                 json = dir.path / "history.json";
  vi::Rng a(21), b(21);
  const auto whole = vi::fit(model, o, a, io::HistoryWriter{csv}, io::HistoryWriter{json});
  // Stopped by a callback at iteration 11: the Checkpointer wrote every 5 iterations and, as the
  // run did not fail, its final state.
  vi::fit(model, o, b, io::Checkpointer{ckpt, 5, ""}, StopAt{11});
  const vi::FitCheckpoint c = io::load_checkpoint(ckpt);
  BOOST_TEST(c.iteration == 11);
  const auto resumed = vi::resume(model, o, c);
  BOOST_TEST((resumed.posterior.mean().array() == whole.posterior.mean().array()).all());
  BOOST_TEST(resumed.counters.steps == whole.counters.steps);

  // One header line and one line per row; the JSON holds the same rows.
  std::istringstream lines(read_file(csv));
  std::size_t n = 0;
  for (std::string l; std::getline(lines, l);) ++n;
  BOOST_TEST(n == whole.history.size() + 1);
  const auto j = nlohmann::json::parse(read_file(json));
  BOOST_TEST_REQUIRE(j.size() == whole.history.size());
  BOOST_TEST(j.back().at("elbo").get<double>() == whole.history.back().elbo);
}

BOOST_AUTO_TEST_CASE(a_damaged_checkpoint_names_the_file) {
  const TempDir dir;
  const fs::path bad = dir.path / "bad.ckpt";
  std::ofstream(bad) << "{\"format\": \"ngvi.checkpoint\", \"version\": 1}";
  try {
    io::load_checkpoint(bad);
    BOOST_ERROR("a damaged checkpoint was accepted");
  } catch (const io::DataError& e) {
    BOOST_TEST(std::string(e.what()).find(bad.string()) != std::string::npos, e.what());
  }
  BOOST_CHECK_THROW(io::load_checkpoint(dir.path / "missing.ckpt"), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(a_checkpoint_carries_its_data_fingerprint) {
  const TempDir dir;
  nn::Dataset d{Eigen::MatrixXd::Constant(3, 2, 0.5), Eigen::MatrixXd::Zero(3, 1)};
  const std::string print = io::data_fingerprint(d);
  BOOST_TEST(print.find("3 rows, 2 inputs, 1 targets, checksum ") == 0u, print);
  nn::Dataset other = d;
  other.X(2, 1) = 0.25;
  BOOST_TEST(io::data_fingerprint(other) != print);
  BOOST_TEST(io::data_fingerprint(d) == print);

  const auto model = quadratic_model();
  ScriptedOptions o;
  o.loop.minibatch = 3;
  o.loop.epochs = 2;
  const fs::path ckpt = dir.path / "fingerprinted.ckpt";
  vi::Rng rng(4);
  vi::fit(model, o, rng, io::Checkpointer{ckpt, 1, print});
  BOOST_TEST(io::load_checkpoint(ckpt).data_fingerprint == print);
}

BOOST_AUTO_TEST_SUITE_END()
