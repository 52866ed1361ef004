// Tests of io/atomic_write.hpp: the target holds the whole text or its previous content,
// no temporary file is left behind, and failures name the file.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <io/atomic_write.hpp>

#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(atomic_write_test)

namespace fs = std::filesystem;
using ngvi::test::contains;
using ngvi::test::read_file;
using ngvi::test::TempDir;

BOOST_AUTO_TEST_CASE(writes_and_replaces_without_leftovers) {
  TempDir dir;
  const fs::path p = dir.path / "out.json";
  ngvi::io::write_file_atomically(p, "first\n");
  BOOST_TEST(read_file(p) == "first\n");
  const std::string big(1 << 20, 'z');
  ngvi::io::write_file_atomically(p, big);
  BOOST_TEST(read_file(p) == big);
  ngvi::io::write_file_atomically(p, std::string("a\0b", 3));
  BOOST_TEST(read_file(p) == std::string("a\0b", 3));
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path)) ++files;
  BOOST_TEST(files == 1);  // no temporary file remains
}

BOOST_AUTO_TEST_CASE(failures_name_the_file_and_leave_the_target_alone) {
  TempDir dir;
  const fs::path missing = dir.path / "no_such_dir" / "out.txt";
  try {
    ngvi::io::write_file_atomically(missing, "x");
    BOOST_FAIL("no FileError");
  } catch (const ngvi::io::FileError& e) {
    BOOST_TEST(contains(e.what(), missing.string()), e.what());
    BOOST_TEST(contains(e.what(), "does not exist"), e.what());
  }
  BOOST_TEST(!fs::exists(missing));
  fs::create_directories(dir.path / "a_directory");
  BOOST_CHECK_THROW(ngvi::io::write_file_atomically(dir.path / "a_directory", "x"),
                    ngvi::io::FileError);
  BOOST_TEST(fs::is_directory(dir.path / "a_directory"));
}

namespace {
int entries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++n;
  return n;
}
}  // namespace

BOOST_AUTO_TEST_CASE(a_staged_set_appears_whole_or_not_at_all) {
  TempDir dir;
  const fs::path a = dir.path / "a.csv", b = dir.path / "b.json";
  ngvi::io::write_file_atomically(a, "old a\n");
  {
    // Written in pieces, then abandoned (as when an exception unwinds): the targets keep their
    // previous content, and the temporary files are gone.
    std::vector<ngvi::io::AtomicFile> staged;
    staged.emplace_back(a).write("new ").write("a\n");
    staged.emplace_back(b).write("{}\n");
    BOOST_TEST(entries(dir.path) == 3);  // a.csv and two temporary files
  }
  BOOST_TEST(read_file(a) == "old a\n");
  BOOST_TEST(!fs::exists(b));
  BOOST_TEST(entries(dir.path) == 1);
  {
    std::vector<ngvi::io::AtomicFile> staged;
    staged.emplace_back(a).write("new ").write("a\n");
    ngvi::io::AtomicFile moved(std::move(staged.back()));  // the moved-from one owns nothing
    staged.pop_back();
    BOOST_TEST(entries(dir.path) == 2);
    moved.commit();
    staged.emplace_back(b).write("{}\n");
    staged.back().commit();
  }
  BOOST_TEST(read_file(a) == "new a\n");
  BOOST_TEST(read_file(b) == "{}\n");
  BOOST_TEST(entries(dir.path) == 2);
}

BOOST_AUTO_TEST_SUITE_END()
