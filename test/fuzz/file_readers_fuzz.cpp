// libFuzzer target: random bytes into the tool's file readers — the CSV reader
// (io/csv_table.hpp), `ngvi fit`'s input path (io/training_table.hpp: CSV + target
// column + checks; app/fit/posterior_file.hpp: a saved posterior; app/fit/prediction_table.hpp:
// the rows to predict and their class labels; io/checkpoint_file.hpp: a checkpoint to resume) and
// the UCI-folder loader (io/uci_folder.hpp: load_uci_split, uci_hidden_units, uci_split_count).
//
// Input layout: the first byte picks the reader (mod 6); the rest is
//   0  the CSV file;
//   1  the target column's name, a line break, then the CSV file;
//   2  the files of a UCI folder separated by the byte 0x1e: data.txt, index_features.txt,
//      index_target.txt, index_train_0.txt, index_test_0.txt, n_hidden.txt (missing parts:
//      the file is absent);
//   3  a posterior file (`ngvi fit --posterior FILE`);
//   4  a CSV file of rows to predict (`ngvi fit --predict FILE`) for a network with inputs x1, x2
//      and target y; the first byte of the rest chooses regression (even) or a 3-class
//      classifier (odd);
//   5  a checkpoint file (`ngvi fit --resume FILE`); one that reads must hold together (its
//      order a permutation, its position within it).
// The contract checked: a reader returns, or throws ngvi::io::DataError whose message is printable
// ASCII (random bytes escaped). Any other exception, a crash, a hang, a leak or undefined
// behaviour (ASan + UBSan) is a finding. Built by the `fuzz` preset (clang, -fsanitize=fuzzer);
// .ci/run runs it for 60 s on the seeds in test/fuzz/corpus/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <app/fit/posterior_file.hpp>
#include <app/fit/prediction_table.hpp>
#include <io/checkpoint_file.hpp>
#include <io/csv_table.hpp>
#include <io/data_error.hpp>
#include <io/training_table.hpp>
#include <io/uci_folder.hpp>
#include <unistd.h>

#include <inference/checkpoint.hpp>
#include <inference/minibatch.hpp>

namespace {

namespace fs = std::filesystem;

// A scratch folder for this process under $TMPDIR, made once. libFuzzer ends the process
// without running exit handlers, so the caller removes it (.ci/run points TMPDIR at its own
// scratch folder, which it deletes).
const fs::path& scratch() {
  static const fs::path dir = [] {
    const fs::path d = fs::temp_directory_path() / ("ngvi-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

void write(const fs::path& p, std::string_view bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "ngvi fuzz finding: %s: %s\n", what,
               ngvi::io::quote_bytes(detail, 400).c_str());
  std::abort();
}

void check_message(const ngvi::io::DataError& e) {
  for (const char c : std::string_view(e.what()))
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      finding("a DataError message holds a raw byte", e.what());
}

void run(std::uint8_t mode, std::string_view rest) {
  const fs::path& dir = scratch();
  if (mode == 0) {
    write(dir / "table.csv", rest);
    const ngvi::io::CsvTable t = ngvi::io::read_csv_table(dir / "table.csv");
    if (t.values.rows() != static_cast<Eigen::Index>(t.lines.size()) ||
        t.values.cols() != static_cast<Eigen::Index>(t.names.size()))
      finding("inconsistent CsvTable shape", std::string(rest));
  } else if (mode == 1) {
    const std::size_t eol = rest.find('\n');
    const std::string target(rest.substr(0, eol));
    write(dir / "train.csv",
          eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1));
    const ngvi::io::TrainingTable t = ngvi::io::load_training_table(dir / "train.csv", target);
    if (t.data.X.rows() != t.data.Y.rows() ||
        t.data.X.cols() + 1 != static_cast<Eigen::Index>(t.input_names.size()) + 1)
      finding("inconsistent TrainingTable shape", std::string(rest));
  } else if (mode == 3) {
    write(dir / "posterior.json", rest);
    const ngvi::app::SavedPosterior p = ngvi::app::read_posterior_file(dir / "posterior.json");
    if (ngvi::app::mean_of(p.posterior).size() != p.spec.network().num_params())
      finding("a posterior that does not match its network", std::string(rest));
  } else if (mode == 4) {
    ngvi::app::NetworkSpec spec;
    spec.inputs = {"x1", "x2"};
    spec.target = "y";
    spec.classification = !rest.empty() && (static_cast<unsigned char>(rest[0]) % 2 == 1);
    spec.classes = 3;
    write(dir / "rows.csv", rest.empty() ? rest : rest.substr(1));
    const ngvi::app::PredictionInputs in =
        ngvi::app::select_prediction_inputs(ngvi::io::read_csv_table(dir / "rows.csv"), spec);
    if (in.X.cols() != 2 || (in.Y && in.Y->rows() != in.X.rows()))
      finding("inconsistent PredictionInputs shape", std::string(rest));
  } else if (mode == 5) {
    write(dir / "checkpoint.json", rest);
    const ngvi::vi::FitCheckpoint c = ngvi::io::load_checkpoint(dir / "checkpoint.json");
    if (ngvi::vi::first_non_permutation_entry(c.order) ||
        c.position > static_cast<Eigen::Index>(c.order.size()))
      finding("a checkpoint whose order and position do not hold together", std::string(rest));
  } else {
    const fs::path uci = dir / "uci";
    fs::remove_all(uci);
    fs::create_directories(uci);
    const char* names[] = {"data.txt",          "index_features.txt", "index_target.txt",
                           "index_train_0.txt", "index_test_0.txt",   "n_hidden.txt"};
    std::size_t start = 0;
    for (const char* name : names) {
      if (start > rest.size()) break;
      const std::size_t end = rest.find('\x1e', start);
      write(uci / name, rest.substr(start, end == std::string_view::npos ? std::string_view::npos
                                                                         : end - start));
      start = end == std::string_view::npos ? rest.size() + 1 : end + 1;
    }
    (void)ngvi::io::uci_split_count(uci);
    (void)ngvi::io::uci_hidden_units(uci);
    const ngvi::io::UciSplit s = ngvi::io::load_uci_split(uci, 0);
    if (s.train.X.cols() != s.test.X.cols())
      finding("train and test widths differ", std::string(rest));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    run(static_cast<std::uint8_t>(data[0] % 6), rest);
  } catch (const ngvi::io::DataError& e) {
    check_message(e);
  } catch (const std::exception& e) {
    finding("an exception other than io::DataError", e.what());
  }
  return 0;
}
