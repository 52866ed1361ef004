// Tests of app/io/staged_folder.hpp: a staged output folder appears whole at commit() — as a new
// folder, over an empty one, or merged into an existing one — and abandoned (an exception on the
// way) leaves no new folder, no new file in an old one and no staging folder.
#include <filesystem>
#include <stdexcept>
#include <string>

#include <app/io/staged_folder.hpp>
#include <boost/test/unit_test.hpp>
#include <io/atomic_write.hpp>

#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(staged_folder_test)

namespace fs = std::filesystem;
using ngvi::app::StagedFolder;
using ngvi::io::write_file_atomically;
using ngvi::test::contains;
using ngvi::test::read_file;
using ngvi::test::TempDir;

namespace {
// The number of entries (files and folders, recursively) under `dir`.
int entries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : fs::recursive_directory_iterator(dir)) ++n;
  return n;
}
// Writes a report-like folder: two files and one in a subfolder.
void write_folder(const fs::path& dir, const std::string& tag) {
  fs::create_directories(dir / "plots");
  write_file_atomically(dir / "results.json", tag + " results\n");
  write_file_atomically(dir / "plots" / "a.svg", tag + " plot\n");
}
}  // namespace

BOOST_AUTO_TEST_CASE(a_new_folder_appears_only_at_commit) {
  TempDir dir;
  const fs::path out = dir.path / "deep" / "report";
  StagedFolder folder(out);
  write_folder(folder.path(), "new");
  BOOST_TEST(!fs::exists(out));  // nothing at the target until commit()
  BOOST_TEST(folder.path().parent_path() == out.parent_path());
  folder.commit();
  BOOST_TEST(read_file(out / "results.json") == "new results\n");
  BOOST_TEST(read_file(out / "plots" / "a.svg") == "new plot\n");
  BOOST_TEST(entries(dir.path) == 5);  // deep, report, results.json, plots, a.svg: no staging left
}

BOOST_AUTO_TEST_CASE(an_abandoned_folder_leaves_nothing) {
  TempDir dir;
  const fs::path out = dir.path / "deep" / "report";
  try {
    StagedFolder folder(out);
    write_folder(folder.path(), "new");
    throw std::runtime_error("a figure failed");
  } catch (const std::runtime_error&) {
  }
  BOOST_TEST(entries(dir.path) == 0);  // not even the parent folder it created
  // Into an existing folder: its files keep their content, and no file is added.
  write_folder(out, "old");
  write_file_atomically(out / "notes.txt", "mine\n");
  try {
    StagedFolder folder(out);
    write_folder(folder.path(), "new");
    write_file_atomically(folder.path() / "report.html", "new page\n");
    throw std::runtime_error("a figure failed");
  } catch (const std::runtime_error&) {
  }
  BOOST_TEST(read_file(out / "results.json") == "old results\n");
  BOOST_TEST(read_file(out / "plots" / "a.svg") == "old plot\n");
  BOOST_TEST(!fs::exists(out / "report.html"));
  BOOST_TEST(entries(dir.path) == 6);  // deep, report, results.json, plots, a.svg, notes.txt
}

BOOST_AUTO_TEST_CASE(commit_merges_into_an_existing_folder) {
  TempDir dir;
  const fs::path out = dir.path / "report";
  write_folder(out, "old");
  write_file_atomically(out / "notes.txt", "mine\n");
  StagedFolder folder(out / "");  // a trailing separator names the same folder
  write_folder(folder.path(), "new");
  write_file_atomically(folder.path() / "report.html", "new page\n");
  BOOST_TEST(read_file(out / "results.json") == "old results\n");
  folder.commit();
  BOOST_TEST(read_file(out / "results.json") == "new results\n");
  BOOST_TEST(read_file(out / "plots" / "a.svg") == "new plot\n");
  BOOST_TEST(read_file(out / "report.html") == "new page\n");
  BOOST_TEST(read_file(out / "notes.txt") == "mine\n");  // a file it does not write is kept
  BOOST_TEST(entries(dir.path) == 6);  // report, its four files and plots: no staging left
  // Over an empty folder (one a check created), in one rename.
  const fs::path empty = dir.path / "empty";
  fs::create_directories(empty);
  StagedFolder second(empty);
  write_folder(second.path(), "second");
  second.commit();
  BOOST_TEST(read_file(empty / "plots" / "a.svg") == "second plot\n");
  BOOST_TEST(entries(dir.path) == 10);
}

BOOST_AUTO_TEST_CASE(a_target_that_is_a_file_is_named) {
  TempDir dir;
  const fs::path file = dir.path / "report";
  write_file_atomically(file, "x\n");
  try {
    StagedFolder folder(file);
    BOOST_FAIL("no FileError");
  } catch (const ngvi::io::FileError& e) {
    BOOST_TEST(contains(e.what(), file.string()), e.what());
    BOOST_TEST(contains(e.what(), "it is a file"), e.what());
  }
  BOOST_TEST(read_file(file) == "x\n");
  BOOST_TEST(entries(dir.path) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
