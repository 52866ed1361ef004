// `ngvi verify`: exact gradients, Hessian-vector products and Hessians of the built-in problems
// (autodiff/verify/test_problems.hpp), each checked three ways.
//
// For every problem it computes the value, the gradient (reverse mode), a Hessian-vector
// product and the full Hessian (forward-over-reverse), and verifies them with the library's own
// checks: AD against finite differences, AD against AD (hvp against Hessian·v, the dual sweep's
// gradient against the plain one, symmetry of the raw Hessian columns) and, where one exists,
// against the closed form. It prints one table, optionally writes the report as JSON
// (atomically), and exits with 1 if any check fails.
#pragma once

#include <CLI/CLI.hpp>
#include <app/cli/subcommand.hpp>

namespace ngvi::app {

// Declares the subcommand and its options on `root`. Cost of the run: a few seconds.
Subcommand add_verify_command(CLI::App& root);

}  // namespace ngvi::app
