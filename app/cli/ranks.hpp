// Ranks: the processes one ngvi command runs as — one, or K started by `mpirun -np K ngvi ...`.
//
// main() makes one Ranks before it parses the command line. Started by mpirun (Open MPI sets
// OMPI_COMM_WORLD_SIZE; PMIx and PMI launchers set PMIX_RANK or PMI_RANK) and built with MPI
// (NGVI_WITH_MPI, docs/user-guide.md, "Beyond one machine"), it starts MPI and this process learns
// its rank; otherwise the command is one rank of one. The subcommands that run unchanged under
// mpirun use it so:
//  - every rank reads and checks the inputs itself, inside on_every_rank: a rank whose file is
//    bad stops every rank with one error naming that rank and the cause (exit code 2);
//  - `ngvi fit` forms each step's minibatch sums through reducer(): fixed blocks dealt to the
//    ranks (distributed::MpiReducer), or all in this process (vi::BlockedReducer) — the same
//    bits on any number of ranks and threads, and without mpirun; with --divide-data through
//    row_reducer(), each rank reading and holding the rows of its row blocks alone;
//  - `ngvi uci` deals its splits to the ranks and collects the results with all_gather;
//  - rank 0 alone prints and writes files: on the other ranks standard output and standard error
//    go to /dev/null, and only the tool's error line reaches the terminal (errors()).
// `ngvi study` and `ngvi verify` run on rank 0 alone; the other ranks exit at once with 0.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <inference/batch_reducer.hpp>

namespace ngvi::app {

class Ranks {
 public:
  // Starts MPI if a launcher started this process and the tool has MPI. Throws UsageError if a
  // launcher started it as one of several processes but the tool was built without MPI (each
  // would run the whole command and write the same files).
  Ranks(int& argc, char**& argv);
  ~Ranks();
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Rank 0: the one that prints and writes.
  bool leader() const { return rank_ == 0; }
  // " (rank r of K)" when there are several ranks, else empty: for messages.
  std::string tag() const;
  // Where the tool's error line goes: stderr (also on ranks > 0, whose stderr is otherwise
  // silenced).
  std::FILE* errors() const { return errors_; }

  // The reducer of a fit's minibatch sums over `blocks` fixed blocks: an MpiReducer across the
  // ranks under MPI, a BlockedReducer in this process otherwise — the same bits either way.
  std::shared_ptr<const vi::BatchReducer> reducer(Eigen::Index blocks = 16) const;
  // The same over the row blocks `rows` (`ngvi fit --divide-data`): rank r holds and sums the
  // rows rows.rows_of(r, size()).
  std::shared_ptr<const vi::BatchReducer> row_reducer(const vi::RowBlocks& rows) const;

  // Runs `body` on every rank. If it threw on any rank, every rank throws, for the lowest such
  // rank r: UsageError("rank r of K: <its message>") if its error was bad usage or bad input
  // (io::DataError, UsageError: exit code 2), std::runtime_error with the same text otherwise.
  // Without MPI, `body`'s exception passes unchanged. Cost: that of `body`, plus one exchange
  // of K·512 bytes under MPI.
  void on_every_rank(const std::function<void()>& body) const;

  // Throws on every rank, as on_every_rank does for bad input, unless every rank's `mine` equals
  // rank 0's: `what` names what must agree (e.g. "the training data and settings"), `mine` is
  // this rank's short description of it (sizes, a checksum). Cost: an all_gather of `mine`.
  void require_same(const std::string& what, const std::string& mine) const;

  // Every rank's `mine`, in rank order, on every rank ({mine} without MPI). Cost: two
  // all-gathers, of K ints and of the strings.
  std::vector<std::string> all_gather(const std::string& mine) const;

 private:
  struct Mpi;
  std::unique_ptr<Mpi> mpi_;
  int rank_ = 0;
  int size_ = 1;
  std::FILE* errors_ = stderr;
};

}  // namespace ngvi::app
