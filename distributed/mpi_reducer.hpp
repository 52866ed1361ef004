// MpiReducer: the minibatch sums of a step spread across the ranks of an MPI communicator.
//
// A vi::BatchReducer (inference/batch_reducer.hpp) whose fixed blocks B_0, ..., B_{K−1} of the
// minibatch are dealt to the R ranks in contiguous runs — rank r computes the block sums S_k for
// k ∈ [⌊r·K/R⌋, ⌊(r+1)·K/R⌋), its blocks in parallel on its own oneTBB threads — after which
// every rank receives every S_k (MPI_Allgatherv) and adds them in block order,
// ((S_0 + S_1) + S_2) + .... Every rank thus ends the step with the same sum, bit for bit the one
// vi::BlockedReducer(K) forms in one process, for any number of ranks and threads. Each rank runs
// the same fit with the same seed, so the minibatches and posterior samples, drawn from that one
// stream, agree on every rank without being sent (the draws rank 0 makes are the draws every
// rank makes); every rank holds the data, and the work on it is what is split.
//
// Built over vi::RowBlocks instead, the blocks are those of the data rows (batch_reducer.hpp):
// rank r sums the batch's examples in the rows of its blocks, RowBlocks::rows_of(r, R), and
// needs no others — its model may hold those rows alone (nn::RowWindow), read by that rank
// alone — and the sum is bit for bit vi::BlockedReducer(RowBlocks) in one process.
//
// A rank whose blocks throw does not leave the others waiting: the ranks first exchange a
// status (MPI_Allgather of one int and a fixed-length message), and if any failed every rank
// throws RankFailure naming the lowest failed rank and its error.
//
// Cost per call: add over ~M/R examples on this rank, plus one MPI_Allgather of status (R ints
// and R·message_bytes) and one MPI_Allgatherv of K·L doubles in total (L = the sum's length: 2P
// for diagonal VOGN, P + P² for full covariance), then K·L additions.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <mpi.h>

#include <inference/batch_reducer.hpp>

namespace ngvi::distributed {

// What every rank throws when one rank's part of a step failed. code() is the status that rank
// reported (agree_on_failure): 1 unless its caller told it more, e.g. a program's exit code.
class RankFailure : public std::runtime_error {
 public:
  RankFailure(int rank, const std::string& message, int code = 1)
      : std::runtime_error("ngvi::distributed: rank " + std::to_string(rank) +
                           " failed: " + message),
        rank_(rank),
        code_(code),
        cause_(message) {}
  int rank() const { return rank_; }
  int code() const { return code_; }
  // The failed rank's own message, without the "rank r failed" prefix.
  const std::string& cause() const { return cause_; }

 private:
  int rank_;
  int code_;
  std::string cause_;
};

// Throws std::runtime_error naming `call` if an MPI call did not return MPI_SUCCESS.
inline void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string("ngvi::distributed: ") + call +
                           " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

inline int rank_of(MPI_Comm comm) {
  int r = 0;
  check_mpi(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}
inline int size_of(MPI_Comm comm) {
  int r = 0;
  check_mpi(MPI_Comm_size(comm, &r), "MPI_Comm_size");
  return r;
}

// Every rank learns whether any rank failed; if one did, every rank throws RankFailure for the
// lowest failed rank with its status and message (cut to 480 bytes). `status` is this rank's: 0
// if it succeeded, else a code in [1, 127] passed on as RankFailure::code; `error` says why.
// Cost: one MPI_Allgather of R·512 bytes.
inline void agree_on_failure(MPI_Comm comm, int status, const std::string& error) {
  constexpr int bytes = 512;
  char mine[bytes] = {};
  mine[0] = static_cast<char>(std::clamp(status, 0, 127));
  std::memcpy(mine + 1, error.data(), std::min<std::size_t>(error.size(), 480));
  std::vector<char> all(static_cast<std::size_t>(bytes) * static_cast<std::size_t>(size_of(comm)));
  check_mpi(MPI_Allgather(mine, bytes, MPI_CHAR, all.data(), bytes, MPI_CHAR, comm),
            "MPI_Allgather");
  for (int r = 0; r < size_of(comm); ++r) {
    const char* theirs = all.data() + static_cast<std::size_t>(r) * bytes;
    if (theirs[0] != 0) throw RankFailure(r, std::string(theirs + 1), theirs[0]);
  }
}

// What an MpiReducer did so far on this rank: how the time of its sums splits into the own
// blocks' work and the exchange (status, block sums and the wait for the slowest rank), and the
// bytes of block sums this rank sent and received.
struct MpiReducerStats {
  long long sums = 0;
  double seconds_blocks = 0.0;
  double seconds_exchange = 0.0;
  double bytes_sent = 0.0;
  double bytes_received = 0.0;
};

class MpiReducer final : public vi::BatchReducer {
 public:
  // blocks: K (header); at least the number of ranks, so every rank has work. Throws
  // std::invalid_argument for blocks < 1. The communicator must outlive the reducer.
  explicit MpiReducer(MPI_Comm comm, Eigen::Index blocks = 16)
      : comm_(comm), blocks_(vi::BatchBlocks::checked(blocks)) {}
  // Over the row blocks of `rows` (header comment); rank r needs the rows rows.rows_of(r, R).
  MpiReducer(MPI_Comm comm, const vi::RowBlocks& rows)
      : comm_(comm), blocks_(rows.count()), rows_(rows) {}

  Eigen::VectorXd sum(std::span<const Eigen::Index> batch, Eigen::Index length,
                      const ad::ParallelOptions& parallel,
                      const vi::AddContributions& add) const override {
    const std::size_t k = rows_ ? static_cast<std::size_t>(rows_->count())
                                : vi::BatchBlocks(batch.size(), blocks_).count();
    return exchange(k, length, [&](std::size_t first, std::size_t last) {
      return rows_ ? vi::row_block_sums(batch, *rows_, first, last, length, parallel, add)
                   : vi::block_sums(batch, vi::BatchBlocks(batch.size(), blocks_), first, last,
                                    length, parallel, add);
    });
  }
  Eigen::VectorXd sum_all(Eigen::Index n, Eigen::Index length, const ad::ParallelOptions& parallel,
                          const vi::AddContributions& add) const override {
    if (!rows_) return vi::BatchReducer::sum_all(n, length, parallel, add);
    vi::check_all_rows(*rows_, n, "ngvi::distributed::MpiReducer::sum_all");
    return exchange(static_cast<std::size_t>(rows_->count()), length,
                    [&](std::size_t first, std::size_t last) {
                      return vi::all_rows_block_sums(*rows_, first, last, length, parallel, add);
                    });
  }
  const vi::RowBlocks* row_blocks() const override { return rows_ ? &*rows_ : nullptr; }

  // Counters of the sums so far (not thread-safe: read them from the thread that fits).
  const MpiReducerStats& stats() const { return stats_; }

 private:
  // The sum of k blocks: this rank's, own(first, last) for its run of blocks, then every
  // rank's exchanged and added in block order (the header comment).
  template <class Own>
  Eigen::VectorXd exchange(std::size_t k, Eigen::Index length, const Own& own) const {
    const int ranks = size_of(comm_), rank = rank_of(comm_);
    auto first = [&](int r) {
      return static_cast<std::size_t>(r) * k / static_cast<std::size_t>(ranks);
    };
    Eigen::MatrixXd mine;
    int status = 0;
    std::string error;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      mine = own(first(rank), first(rank + 1));
    } catch (const std::exception& e) {
      status = 1;
      error = e.what();
    }
    const auto t1 = std::chrono::steady_clock::now();
    agree_on_failure(comm_, status, error);
    std::vector<int> counts(static_cast<std::size_t>(ranks)),
        offsets(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      counts[static_cast<std::size_t>(r)] =
          static_cast<int>((first(r + 1) - first(r)) * static_cast<std::size_t>(length));
      offsets[static_cast<std::size_t>(r)] =
          static_cast<int>(first(r) * static_cast<std::size_t>(length));
    }
    Eigen::MatrixXd all(length, static_cast<Eigen::Index>(k));
    check_mpi(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                             counts.data(), offsets.data(), MPI_DOUBLE, comm_),
              "MPI_Allgatherv");
    const auto t2 = std::chrono::steady_clock::now();
    ++stats_.sums;
    stats_.seconds_blocks += std::chrono::duration<double>(t1 - t0).count();
    stats_.seconds_exchange += std::chrono::duration<double>(t2 - t1).count();
    stats_.bytes_sent += 8.0 * static_cast<double>(mine.size());
    stats_.bytes_received += 8.0 * static_cast<double>(all.size() - mine.size());
    return vi::sum_in_block_order(all);
  }

  MPI_Comm comm_;
  Eigen::Index blocks_;
  std::optional<vi::RowBlocks> rows_;
  mutable MpiReducerStats stats_;
};

}  // namespace ngvi::distributed
