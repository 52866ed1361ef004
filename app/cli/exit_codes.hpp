// The exit codes of the ngvi command-line tool, and the error that means "bad usage".
//
//   0  success: the job ran and every check it makes passed;
//   1  the job ran but failed: a verification check did not pass, a fit diverged, an output
//      file could not be written, or any other run-time failure;
//   2  bad usage or bad input: an unknown option or subcommand, a value outside its range, an
//      input file that cannot be read or is malformed (io::DataError), an option combination
//      that makes no sense (UsageError). Nothing has been written when the tool exits with 2.
// These are part of the tool's interface (scripts test them), so they never change meaning.
#pragma once

#include <stdexcept>

namespace ngvi::app {

namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int failed = 1;
inline constexpr int usage = 2;
}  // namespace exit_code

// Bad usage found after the command line was parsed (e.g. two options that exclude each other,
// a target column a classification task cannot use): exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ngvi::app
