// The one translation unit per test executable that defines the Boost.Test module and main().
//
// Every other test source includes only <boost/test/unit_test.hpp> and wraps its cases in
// BOOST_AUTO_TEST_SUITE(<file stem>), so CTest can run one file's suite with --run_test=<stem>.
// BOOST_TEST_DYN_LINK comes from the build (test/CMakeLists.txt): we link the shared library.
#define BOOST_TEST_MODULE ngvi
#include <boost/test/unit_test.hpp>
