// MpiSession: MPI for the life of a program (MPI_Init_thread on construction, MPI_Finalize on
// destruction), and what a program needs to know of its place in MPI_COMM_WORLD.
//
// Only the thread that made the session calls MPI (MPI_THREAD_FUNNELED): the oneTBB workers of a
// rank do per-example work and never communicate.
#pragma once

#include <stdexcept>

#include <distributed/mpi_reducer.hpp>
#include <mpi.h>

namespace ngvi::distributed {

class MpiSession {
 public:
  // Throws std::runtime_error if MPI cannot be started or lacks MPI_THREAD_FUNNELED.
  MpiSession(int& argc, char**& argv) {
    int provided = 0;
    check_mpi(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    if (provided < MPI_THREAD_FUNNELED) {
      MPI_Finalize();
      throw std::runtime_error("ngvi::distributed: the MPI library lacks MPI_THREAD_FUNNELED");
    }
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  MPI_Comm world() const { return MPI_COMM_WORLD; }
  int rank() const { return rank_of(MPI_COMM_WORLD); }
  int size() const { return size_of(MPI_COMM_WORLD); }
};

}  // namespace ngvi::distributed
