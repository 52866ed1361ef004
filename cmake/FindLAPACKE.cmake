# FindLAPACKE: LAPACKE, the C interface of LAPACK (Debian: liblapacke-dev, which brings the
# reference LAPACK or whichever liblapack.so.3 the system's alternatives select), found by its
# header and its library. Defines LAPACKE_FOUND and the imported target LAPACKE::LAPACKE.
# ngvi uses it for one routine, the MRRR tridiagonal eigensolver dstemr of VON's eigenvalue
# clipping (inference/von_remedy.hpp). Installed with ngvi's package, whose config uses it too.
find_path(LAPACKE_INCLUDE_DIR lapacke.h)
find_library(LAPACKE_LIBRARY lapacke)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LAPACKE REQUIRED_VARS LAPACKE_LIBRARY LAPACKE_INCLUDE_DIR)
mark_as_advanced(LAPACKE_INCLUDE_DIR LAPACKE_LIBRARY)
if(LAPACKE_FOUND AND NOT TARGET LAPACKE::LAPACKE)
  add_library(LAPACKE::LAPACKE UNKNOWN IMPORTED)
  set_target_properties(LAPACKE::LAPACKE PROPERTIES IMPORTED_LOCATION "${LAPACKE_LIBRARY}"
                                                    INTERFACE_INCLUDE_DIRECTORIES "${LAPACKE_INCLUDE_DIR}")
endif()
