// The refits of VON and VOGN for S = 1, 4, 16, 64 (sample_size_study.hpp).
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <app/methods/method_table.hpp>
#include <app/study/gaussian_kl.hpp>
#include <app/study/sample_size_study.hpp>
#include <fmt/format.h>

#include <inference/fit.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>

namespace ngvi::app::study {
namespace {

// Accumulates KL(q_t ‖ q*) over the iterations t ≥ from.
struct KlAccumulator {
  const Eigen::VectorXd* mean;
  const Eigen::MatrixXd* covariance;
  Eigen::Index from = 0;
  double sum = 0.0;
  Eigen::Index count = 0;

  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    if (ctx.iteration() < from) return false;
    const auto q = ctx.posterior();
    sum += gaussian_kl(q.mean(), q.covariance(), *mean, *covariance);
    ++count;
    return false;
  }
};

template <class Options>
SampleSizeRun refit(const ProblemSetup& s, const std::string& key, Options options,
                    const Eigen::VectorXd& mean, const Eigen::MatrixXd& covariance) {
  SampleSizeRun run;
  run.method = key;
  const Eigen::Index n = s.train->num_examples();
  const Eigen::Index m = s.loop.minibatch > 0 && s.loop.minibatch < n ? s.loop.minibatch : n;
  const Eigen::Index total = s.loop.epochs * ((n + m - 1) / m);
  run.from_iteration = total / 2 + 1;
  // One history row, at the end, with the ELBO at the mean: the refits measure q_t only.
  options.loop.history_every = total;
  options.loop.elbo_samples = 0;
  for (const int samples : sample_size_values) {
    options.mc_samples = samples;
    KlAccumulator kl{&mean, &covariance, run.from_iteration};
    vi::Rng rng(s.seed);
    const auto result = vi::fit(*s.train, options, rng, kl);
    run.samples.push_back(samples);
    run.status.push_back(vi::to_string(result.status));
    const bool finished = result.status == vi::FitStatus::finished && kl.count > 0;
    run.error.push_back(finished ? std::sqrt(kl.sum / static_cast<double>(kl.count))
                                 : std::numeric_limits<double>::quiet_NaN());
  }
  run.slope = log_log_slope(run.samples, run.error);
  return run;
}

}  // namespace

std::vector<SampleSizeRun> run_sample_size_study(const ProblemSetup& s,
                                                 const GaussianOptimum& optimum) {
  const Eigen::Index p = s.train->num_params();
  if (optimum.mean.size() != p || optimum.covariance.rows() != p ||
      optimum.mean_field_mean.size() != p || optimum.mean_field_sd.size() != p)
    throw std::invalid_argument(
        fmt::format("ngvi::app::study::run_sample_size_study: the optimum has {} means and a {}×{} "
                    "covariance, {} mean-field means and {} sds for a problem with P = {}",
                    optimum.mean.size(), optimum.covariance.rows(), optimum.covariance.cols(),
                    optimum.mean_field_mean.size(), optimum.mean_field_sd.size(), p));
  std::vector<SampleSizeRun> out;
  out.push_back(
      refit(s, "von", study_options<vi::VonOptions>("von", s), optimum.mean, optimum.covariance));
  const auto vogn = study_options<vi::VognOptions>("vogn_ggn", s);
  const Eigen::MatrixXd mean_field_covariance =
      optimum.mean_field_sd.cwiseAbs2().asDiagonal().toDenseMatrix();
  out.push_back(refit(s, "vogn_ggn", vogn, optimum.mean_field_mean, mean_field_covariance));
  return out;
}

}  // namespace ngvi::app::study
