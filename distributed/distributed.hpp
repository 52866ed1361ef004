// Umbrella header of the distributed module: data-parallel natural-gradient VI over MPI.
//
// Built only when CMake finds MPI (NGVI_WITH_MPI); see docs/user-guide.md, "Beyond one machine".
#pragma once

#include <distributed/mpi_reducer.hpp>
#include <distributed/mpi_session.hpp>
