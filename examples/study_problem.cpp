// study_problem: the study on a problem of your own — a network written with nn/'s layers, your
// data, and (optionally) an exact reference posterior — with the same report as `ngvi study`
// (report.html, report.md, results.json, plots; app/study/README.md).
//
// Two problems are registered here:
//   wave    y = x·sin(2x) + N(0, 0.3²), x ~ N(0, 1.5²), 160 + 40 rows; a 1-8-8-1 tanh network
//           (P = 97). No exact posterior: the study runs HMC (NUTS) as the reference, as it is
//           affordable (P·N ≤ study::hmc_work_limit), and says which findings it could not
//           evaluate.
//   linear  y = 2x₁ − x₂ + 0.5 + N(0, 0.5²), 100 + 50 rows; one dense layer, so the study knows
//           the exact posterior and checks VON and VOGN against it. The reference could also be
//           given by hand (Problem::reference, Problem::vi_optimum); for a model linear in θ the
//           study computes it.
// Usage: study_problem [--out DIR] [--quick] [--seeds N] [--seed S] [--threads T]. Needs gnuplot
// for the plots (as `ngvi study`). With --quick it takes seconds.
#include <cmath>
#include <cstdint>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>
#include <app/study/study_run.hpp>

#include <inference/random.hpp>
#include <nn/activations.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/sequential.hpp>

int main(int argc, char** argv) {
  using namespace ngvi;
  namespace study = app::study;
  study::RunOptions options;
  options.out = "study-problem";
  CLI::App cli{"The study's methods, verdicts and report on two problems defined in C++"};
  cli.add_option("--out", options.out, "the report folder")->capture_default_str();
  cli.add_flag("--quick", options.quick, "the short version (seconds)");
  cli.add_option("--seeds", options.seeds, "seeds per problem (0: 5, with --quick 3)");
  cli.add_option("--seed", options.seed, "the base seed")->capture_default_str();
  cli.add_option("--threads", options.threads, "threads (0: one per core)");
  CLI11_PARSE(cli, argc, argv);

  // The data: any nn::Dataset (X: one row per example; Y: one column).
  vi::Rng rng(42);
  auto wave = [&](Eigen::Index n) {
    nn::Dataset d{1.5 * vi::standard_normal(rng, n, 1), Eigen::MatrixXd(n, 1)};
    d.Y.col(0) =
        (d.X.array() * (2.0 * d.X.array()).sin()).matrix() + 0.3 * vi::standard_normal(rng, n);
    return d;
  };
  auto line = [&](Eigen::Index n) {
    nn::Dataset d{vi::standard_normal(rng, n, 2), Eigen::MatrixXd(n, 1)};
    d.Y.col(0) = ((2.0 * d.X.col(0) - d.X.col(1)).array() + 0.5).matrix() +
                 0.5 * vi::standard_normal(rng, n);
    return d;
  };

  // The models: the network in nn/'s layers and a likelihood; make_problem standardises the
  // inputs and targets by the training set and picks the study's epochs and step sizes.
  const nn::Sequential net{nn::Dense(1, 8), nn::Tanh{}, nn::Dense(8, 8), nn::Tanh{},
                           nn::Dense(8, 1)};
  study::Problem p1 =
      study::make_problem("wave", net, nn::GaussianFixedNoise(10.0), wave(160), wave(40));
  p1.title = "y = x sin 2x, a 1-8-8-1 tanh network";
  study::Problem p2 = study::make_problem("linear", nn::Sequential{nn::Dense(2, 1)},
                                          nn::GaussianFixedNoise(4.0), line(100), line(50));
  p2.title = "Linear regression (exact posterior in closed form)";

  try {
    return study::run({p1, p2}, options);
  } catch (const std::exception& e) {
    std::cerr << "study_problem: error: " << e.what() << "\n";
    return 1;
  }
}
