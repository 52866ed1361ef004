// The one translation unit per test executable that defines the Boost.Test module and main().
//
// Every other test source includes only <boost/test/unit_test.hpp> and wraps its cases in
// BOOST_AUTO_TEST_SUITE(<file stem>), so CTest can run one file's suite with --run_test=<stem>.
// BOOST_TEST_DYN_LINK comes from the build (test/CMakeLists.txt): we link the shared library.
// Before any case runs, the allocator is set as the ngvi tool sets it (app/cli/allocator.hpp):
// the in-process study tests (test/app/study/) allocate as the tool does.
#define BOOST_TEST_MODULE ngvi
#include <app/cli/allocator.hpp>
#include <boost/test/unit_test.hpp>

struct KeepFreedMemory {
  KeepFreedMemory() { ngvi::app::keep_freed_memory(); }
};
BOOST_TEST_GLOBAL_FIXTURE(KeepFreedMemory);
