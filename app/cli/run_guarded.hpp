// run_guarded: runs a subcommand's body and turns what it throws into a message and an exit code.
//
// Exceptions never escape main(): io::DataError and UsageError (bad input, bad usage) exit with
// 2, anything else the body throws (a failed write, a numerical failure) with 1, each after one
// line "ngvi <subcommand>: error: <what>" on stderr (with " (rank r of K)" after the subcommand
// under mpirun, on every rank: app/cli/ranks.hpp). The body itself returns 0 or 1 (a check that
// did not pass). See app/cli/exit_codes.hpp.
#pragma once

#include <exception>
#include <functional>
#include <string_view>

#include <app/cli/exit_codes.hpp>
#include <app/cli/ranks.hpp>
#include <fmt/format.h>
#include <io/data_error.hpp>

namespace ngvi::app {

// Cost: that of `body`.
inline int run_guarded(std::string_view subcommand, const std::function<int()>& body,
                       const Ranks& ranks) {
  auto report = [&](const std::exception& e) {
    fmt::print(ranks.errors(), "ngvi {}{}: error: {}\n", subcommand, ranks.tag(), e.what());
    std::fflush(ranks.errors());
  };
  try {
    return body();
  } catch (const io::DataError& e) {
    report(e);
    return exit_code::usage;
  } catch (const UsageError& e) {
    report(e);
    return exit_code::usage;
  } catch (const std::exception& e) {
    report(e);
    return exit_code::failed;
  }
}

}  // namespace ngvi::app
