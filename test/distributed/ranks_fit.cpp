// ranks_fit: the program behind the distributed tests (same_bits_any_ranks.cmake,
// rank_failure.cmake, resume_any_ranks.cmake). It runs small fits — diagonal VOGN with the
// empirical and the MC Fisher, full VOGN with the GGN, full VON with clipping, IVON, noisy Adam
// with either Fisher, MAP — and the Laplace approximations (GGN and exact Hessian, full and
// diagonal, with their evidence) on a fixed synthetic regression problem, every sum over examples
// through
//   an MpiReducer over MPI_COMM_WORLD (run under mpirun), or
//   a BlockedReducer with the same blocks in this one process (--reference, no MPI),
// and writes each posterior's mean and precision in hexadecimal floating point, one line per
// fit, to --out (rank r > 0 to <out>.rank<r>, so the test can check that every rank ended with
// the same posterior). --fail-rank R makes every loss evaluation on rank R throw, as a rank with
// a bad data shard would: every rank must then stop with the error naming rank R. --kill-rank R
// makes rank R kill itself (SIGKILL) after its first fit, while the others are in the second:
// mpirun must then stop the job and name rank R, not hang.
// --divide-data sums by data rows instead (vi::RowBlocks of the 60 rows into the same 8 blocks):
// each rank's models hold only the rows of its blocks (nn::RowWindow), the minibatches are
// stratified over the blocks, and the reference is a BlockedReducer over the same row blocks
// with the whole data in one process.
// Exit codes: 0 ok, 1 a fit failed or a rank threw, 2 bad usage.
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <app/cli/allocator.hpp>
#include <distributed/distributed.hpp>

#include <inference/batch_reducer.hpp>
#include <inference/fit.hpp>
#include <inference/ivon.hpp>
#include <inference/laplace.hpp>
#include <inference/map.hpp>
#include <inference/noisy_adam.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>
#include <nn/activations.hpp>
#include <nn/dataset.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/model_concept.hpp>
#include <nn/sequential.hpp>
#include <nn/supervised.hpp>

namespace {

using namespace ngvi;

constexpr Eigen::Index blocks = 8;

// 60 examples of 3 inputs on a smooth nonlinear surface, no random draws: the same on every rank.
nn::Dataset problem_data() {
  const Eigen::Index n = 60;
  Eigen::MatrixXd x(n, 3);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < 3; ++j) x(i, j) = std::sin(0.37 * double(i) + 1.3 * double(j));
    y(i) = std::tanh(x(i, 0) - 0.5 * x(i, 1)) + 0.3 * x(i, 2) * x(i, 2);
  }
  return nn::Dataset{x, y};
}

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

template <class Q>
std::string line(const std::string& name, const Q& q) {
  std::string s = name;
  for (Eigen::Index i = 0; i < q.mean().size(); ++i) s += " " + hex(q.mean()(i));
  if constexpr (requires { q.precision(); }) {
    const auto& p = q.precision();
    for (Eigen::Index j = 0; j < p.cols(); ++j)
      for (Eigen::Index i = 0; i < p.rows(); ++i) s += " " + hex(p(i, j));
  }
  return s + "\n";
}

// Writes `text` to `path` through a temporary file and a rename, so that a reader sees the whole
// file or none.
void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Args {
  std::string out;
  bool reference = false;
  int threads = 1;
  int fail_rank = -1;
  int kill_rank = -1;
  bool divide_data = false;
  Eigen::Index checkpoint_at = 0;  // > 0: save the checkpointed fits after this iteration
  std::string checkpoint;          // their files are <checkpoint>.<fit name>
  std::string resume;              // non-empty: resume the checkpointed fits from these files
};

// Saves the encoded checkpoint after iteration `at` to `path` (rank 0 only, atomically).
struct SaveCheckpoint {
  Eigen::Index at = 0;
  std::string path;
  bool writer = false;
  template <class Ctx>
  bool on_iteration(const Ctx& ctx) {
    if (ctx.iteration() == at && writer) write_atomically(path, ctx.checkpoint().encode());
    return false;
  }
};

struct Runner {
  const Args& args;
  std::shared_ptr<const vi::BatchReducer> reducer;
  int rank = 0;
  int ranks = 1;

  // One fit (or, with --resume, its continuation from the checkpoint; `resumable` fits only),
  // as a line of text.
  template <class Model, class Options>
  std::string run(const std::string& name, const Model& model, Options o,
                  bool resumable = false) const {
    o.loop.epochs = 4;
    o.loop.minibatch = 24;
    o.loop.elbo_samples = 2;
    o.loop.threads = args.threads;
    o.loop.reducer = reducer;
    if (!args.resume.empty()) {
      if (!resumable) return "";
      const auto r =
          vi::resume(model, o, vi::FitCheckpoint::decode(read_file(args.resume + "." + name)));
      return checked(name, r);
    }
    vi::Rng rng(20261124);
    if (resumable && args.checkpoint_at > 0)
      return checked(name, vi::fit(model, o, rng,
                                   SaveCheckpoint{args.checkpoint_at, args.checkpoint + "." + name,
                                                  rank == 0}));
    return checked(name, vi::fit(model, o, rng));
  }

  template <class R>
  static std::string checked(const std::string& name, const R& r) {
    if (r.status != vi::FitStatus::finished)
      throw std::runtime_error(name + " did not finish: " + r.message);
    return line(name, r.posterior);
  }
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--reference") {
      a.reference = true;
    } else if (k == "--divide-data") {
      a.divide_data = true;
    } else if (i + 1 < argc && k == "--out") {
      a.out = argv[++i];
    } else if (i + 1 < argc && k == "--threads") {
      a.threads = std::stoi(argv[++i]);
    } else if (i + 1 < argc && k == "--fail-rank") {
      a.fail_rank = std::stoi(argv[++i]);
    } else if (i + 1 < argc && k == "--kill-rank") {
      a.kill_rank = std::stoi(argv[++i]);
    } else if (i + 2 < argc && k == "--checkpoint-at") {
      a.checkpoint_at = std::stoi(argv[++i]);
      a.checkpoint = argv[++i];
    } else if (i + 1 < argc && k == "--resume") {
      a.resume = argv[++i];
    } else {
      throw std::invalid_argument("unknown argument '" + k + "'");
    }
  }
  if (a.out.empty()) throw std::invalid_argument("--out FILE is required");
  return a;
}

// The data this rank's models hold: all rows, or with --divide-data under MPI the rows of its
// row blocks, as a window of the 60.
std::shared_ptr<const nn::Dataset> held_rows(const Runner& r, nn::RowWindow& window) {
  const nn::Dataset data = problem_data();
  if (!r.args.divide_data || r.args.reference) return std::make_shared<const nn::Dataset>(data);
  const auto [first, last] = vi::RowBlocks(data.size(), blocks).rows_of(r.rank, r.ranks);
  std::vector<Eigen::Index> rows(static_cast<std::size_t>(last - first));
  std::iota(rows.begin(), rows.end(), first);
  window = nn::RowWindow{first, data.size()};
  return std::make_shared<const nn::Dataset>(data.subset(rows));
}

std::string all_fits(const Runner& r, int fail_rank) {
  nn::RowWindow window;
  const std::shared_ptr<const nn::Dataset> data = held_rows(r, window);
  const auto small = nn::Supervised(nn::Sequential::mlp({3, 6, 1}, nn::Tanh{}),
                                    nn::GaussianFixedNoise(20.0), data, window);
  const auto tiny = nn::Supervised(nn::Sequential::mlp({3, 3, 1}, nn::Tanh{}),
                                   nn::GaussianFixedNoise(20.0), data, window);
  std::string s;
  if (fail_rank >= 0) {
    // On rank fail_rank every loss throws, as on a rank whose data shard could not be read; the
    // other ranks evaluate the real loss and must not be left waiting.
    const bool poisoned = r.rank == fail_rank;
    const nn::CallableModel shard(
        [&small, poisoned](const auto& theta, Eigen::Index i) {
          if (poisoned)
            throw std::runtime_error("its data shard is unreadable (example " + std::to_string(i) +
                                     ")");
          return small.example_loss(theta, i);
        },
        small.num_examples(), small.num_params());
    s += r.run("vogn_ef_shard", shard, vi::VognOptions{});
  }
  s += r.run("vogn_ef", small, vi::VognOptions{}, true);
  if (r.rank == r.args.kill_rank) std::raise(SIGKILL);
  s += r.run("vogn_mc_fisher", small, vi::VognOptions{.curvature = vi::VognCurvature::mc_fisher});
  s += r.run("vogn_full_ggn", tiny, vi::FullVognOptions{.curvature = vi::VognCurvature::ggn});
  s += r.run("von_full_clip", tiny, vi::VonOptions{}, true);
  s += r.run("ivon", small, vi::IvonOptions{});
  s += r.run("noisy_adam_sampled", small, vi::NoisyAdamOptions{});
  s += r.run("noisy_adam_empirical", small,
             vi::NoisyAdamOptions{.fisher = vi::NoisyAdamFisher::empirical_fisher});
  s += r.run("map", small, vi::MapOptions{});
  if (r.args.resume.empty()) {
    // The Laplace approximations at a fixed θ (the reducer sums the data term's gradient and
    // its GGN or exact Hessian over all N examples), with their evidence.
    const Eigen::VectorXd theta = Eigen::VectorXd::LinSpaced(tiny.num_params(), -0.8, 0.9);
    for (const auto curvature : {vi::LaplaceCurvature::ggn, vi::LaplaceCurvature::exact_hessian}) {
      // θ is no minimum, so the exact Hessian is indefinite there (smallest eigenvalue about
      // −2000): a prior precision beyond that keeps Λ positive definite.
      const vi::LaplaceOptions o{
          .curvature = curvature,
          .prior_precision = curvature == vi::LaplaceCurvature::ggn ? 2.0 : 2500.0,
          .threads = r.args.threads,
          .reducer = r.reducer};
      const std::string name = std::string("laplace_") + vi::to_string(curvature);
      const auto full = vi::laplace(tiny, theta, o);
      const auto diagonal = vi::diagonal_laplace(tiny, theta, o);
      s += line(name, full.posterior) + line(name + "_diagonal", diagonal.posterior) + name +
           "_evidence " + hex(full.log_marginal_likelihood) + " " +
           hex(diagonal.log_marginal_likelihood) + "\n";
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  ngvi::app::keep_freed_memory();
  Args a;
  try {
    a = parse(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "ranks_fit: " << e.what() << "\n";
    return 2;
  }
  const vi::RowBlocks rows(problem_data().size(), blocks);
  if (a.reference) {
    try {
      const Runner r{a,
                     a.divide_data ? std::make_shared<vi::BlockedReducer>(rows)
                                   : std::make_shared<vi::BlockedReducer>(blocks),
                     0};
      write_atomically(a.out, all_fits(r, -1));
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "ranks_fit: " << e.what() << "\n";
      return 1;
    }
  }
  distributed::MpiSession mpi(argc, argv);
  try {
    const Runner r{a,
                   a.divide_data ? std::make_shared<distributed::MpiReducer>(mpi.world(), rows)
                                 : std::make_shared<distributed::MpiReducer>(mpi.world(), blocks),
                   mpi.rank(), mpi.size()};
    const std::string text = all_fits(r, a.fail_rank);
    write_atomically(mpi.rank() == 0 ? a.out : a.out + ".rank" + std::to_string(mpi.rank()), text);
    return 0;
  } catch (const std::exception& e) {
    // One write per rank, so that the ranks' lines do not interleave on a shared stderr.
    const std::string message = "ranks_fit (rank " + std::to_string(mpi.rank()) + " of " +
                                std::to_string(mpi.size()) + "): " + e.what() + "\n";
    std::fputs(message.c_str(), stderr);
    return 1;
  }
}
