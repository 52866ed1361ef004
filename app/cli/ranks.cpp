// Ranks (app/cli/ranks.hpp): MPI for the tool when it has it (NGVI_WITH_MPI), one rank otherwise.
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include <app/cli/exit_codes.hpp>
#include <app/cli/ranks.hpp>
#include <fcntl.h>
#include <io/data_error.hpp>
#include <unistd.h>

#ifdef NGVI_WITH_MPI
#include <distributed/distributed.hpp>
#endif

namespace ngvi::app {
namespace {

// The size of the job a launcher started this process in, from its environment; 0 if no
// launcher did (or it says nothing of the size).
int launched_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return std::getenv("PMIX_RANK") != nullptr ? 1 : 0;
}

}  // namespace

#ifdef NGVI_WITH_MPI

struct Ranks::Mpi {
  distributed::MpiSession session;
  Mpi(int& argc, char**& argv) : session(argc, argv) {}
};

Ranks::Ranks(int& argc, char**& argv) {
  if (launched_size() == 0) return;
  mpi_ = std::make_unique<Mpi>(argc, argv);
  rank_ = mpi_->session.rank();
  size_ = mpi_->session.size();
  if (rank_ == 0) return;
  // Rank 0 prints; the others keep a stream for their error line and silence the rest.
  std::fflush(stdout);
  std::fflush(stderr);
  if (std::FILE* own = fdopen(dup(STDERR_FILENO), "w")) errors_ = own;
  const int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    close(null);
  }
}

Ranks::~Ranks() {
  if (errors_ != stderr) std::fclose(errors_);
}

std::shared_ptr<const vi::BatchReducer> Ranks::reducer(Eigen::Index blocks) const {
  if (mpi_) return std::make_shared<distributed::MpiReducer>(mpi_->session.world(), blocks);
  return std::make_shared<vi::BlockedReducer>(blocks);
}

std::shared_ptr<const vi::BatchReducer> Ranks::row_reducer(const vi::RowBlocks& rows) const {
  if (mpi_) return std::make_shared<distributed::MpiReducer>(mpi_->session.world(), rows);
  return std::make_shared<vi::BlockedReducer>(rows);
}

void Ranks::on_every_rank(const std::function<void()>& body) const {
  if (!mpi_) {
    body();
    return;
  }
  int status = 0;
  std::string error;
  try {
    body();
  } catch (const io::DataError& e) {
    status = exit_code::usage;
    error = e.what();
  } catch (const UsageError& e) {
    status = exit_code::usage;
    error = e.what();
  } catch (const std::exception& e) {
    status = exit_code::failed;
    error = e.what();
  }
  try {
    distributed::agree_on_failure(mpi_->session.world(), status, error);
  } catch (const distributed::RankFailure& f) {
    const std::string what =
        "rank " + std::to_string(f.rank()) + " of " + std::to_string(size_) + ": " + f.cause();
    if (f.code() == exit_code::usage) throw UsageError(what);
    throw std::runtime_error(what);
  }
}

std::vector<std::string> Ranks::all_gather(const std::string& mine) const {
  if (!mpi_) return {mine};
  const MPI_Comm world = mpi_->session.world();
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_)), offsets(lengths.size());
  distributed::check_mpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, world),
                         "MPI_Allgather");
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  distributed::check_mpi(MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(),
                                        offsets.data(), MPI_CHAR, world),
                         "MPI_Allgatherv");
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    out.push_back(
        all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return out;
}

#else

struct Ranks::Mpi {};

Ranks::Ranks(int&, char**&) {
  if (const int k = launched_size(); k > 1)
    throw UsageError("an MPI launcher started this ngvi as one of " + std::to_string(k) +
                     " processes, but it was built without MPI (NGVI_WITH_MPI=OFF), so each "
                     "would run the whole command alone: install Open MPI (libopenmpi-dev) and "
                     "rebuild (docs/user-guide.md, \"Beyond one machine\")");
}

Ranks::~Ranks() = default;

std::shared_ptr<const vi::BatchReducer> Ranks::reducer(Eigen::Index blocks) const {
  return std::make_shared<vi::BlockedReducer>(blocks);
}

std::shared_ptr<const vi::BatchReducer> Ranks::row_reducer(const vi::RowBlocks& rows) const {
  return std::make_shared<vi::BlockedReducer>(rows);
}

void Ranks::on_every_rank(const std::function<void()>& body) const { body(); }

std::vector<std::string> Ranks::all_gather(const std::string& mine) const { return {mine}; }

#endif

void Ranks::require_same(const std::string& what, const std::string& mine) const {
  if (size_ == 1) return;
  const std::vector<std::string> all = all_gather(mine);
  on_every_rank([&] {
    if (mine != all.front())
      throw UsageError(what + " differ from rank 0's: here " + mine + "; on rank 0 " + all.front() +
                       ". Every rank must read the same files with the same options");
  });
}

std::string Ranks::tag() const {
  return size_ > 1 ? " (rank " + std::to_string(rank_) + " of " + std::to_string(size_) + ")"
                   : std::string();
}

}  // namespace ngvi::app
