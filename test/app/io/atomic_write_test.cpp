// Tests of app/io/atomic_write.hpp: the target holds the whole text or its previous content,
// no temporary file is left behind, and failures name the file.
#include <filesystem>
#include <string>

#include <app/io/atomic_write.hpp>
#include <boost/test/unit_test.hpp>

#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(atomic_write_test)

namespace fs = std::filesystem;
using ngvi::test::contains;
using ngvi::test::read_file;
using ngvi::test::TempDir;

BOOST_AUTO_TEST_CASE(writes_and_replaces_without_leftovers) {
  TempDir dir;
  const fs::path p = dir.path / "out.json";
  ngvi::app::write_file_atomically(p, "first\n");
  BOOST_TEST(read_file(p) == "first\n");
  const std::string big(1 << 20, 'z');
  ngvi::app::write_file_atomically(p, big);
  BOOST_TEST(read_file(p) == big);
  ngvi::app::write_file_atomically(p, std::string("a\0b", 3));
  BOOST_TEST(read_file(p) == std::string("a\0b", 3));
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path)) ++files;
  BOOST_TEST(files == 1);  // no temporary file remains
}

BOOST_AUTO_TEST_CASE(failures_name_the_file_and_leave_the_target_alone) {
  TempDir dir;
  const fs::path missing = dir.path / "no_such_dir" / "out.txt";
  try {
    ngvi::app::write_file_atomically(missing, "x");
    BOOST_FAIL("no FileError");
  } catch (const ngvi::app::FileError& e) {
    BOOST_TEST(contains(e.what(), missing.string()), e.what());
    BOOST_TEST(contains(e.what(), "does not exist"), e.what());
  }
  BOOST_TEST(!fs::exists(missing));
  fs::create_directories(dir.path / "a_directory");
  BOOST_CHECK_THROW(ngvi::app::write_file_atomically(dir.path / "a_directory", "x"),
                    ngvi::app::FileError);
  BOOST_TEST(fs::is_directory(dir.path / "a_directory"));
}

BOOST_AUTO_TEST_SUITE_END()
