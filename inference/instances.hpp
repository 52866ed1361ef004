// The double-valued instantiations that the compiled library ngvi::instances ships: a program
// that links it calls them instead of compiling them.
//
// Each line below is an explicit instantiation declaration (`extern template`): a translation
// unit that sees it does not instantiate that function, it calls the copy compiled once into
// libngvi_instances (inference/instances.cpp, which includes this header with
// NGVI_INSTANCES_EXTERN empty and so turns every declaration into a definition). A program
// gets them by linking ngvi::instances, and either includes this header itself or keeps
// <inference/inference.hpp>, which includes it when NGVI_INSTANCES is defined (the target defines
// it). This header includes only what the declarations need — fit's declaration
// (fit_declaration.hpp), the methods' options, the predictive's declarations, the posteriors and
// the problem — and none of the loop or the methods, so a program that includes it alone compiles
// none of them; a call with other template arguments then fails to link. Through the umbrella,
// such a call is compiled header-only as before. The set: the 1-D gap regression's model
// (problems/regression_1d_gap.hpp, an MLP with a fixed-noise Gaussian likelihood) fitted by VON
// (full covariance), VOGN (diagonal) and IVON without callbacks, and the Monte-Carlo regression
// predictive of their posteriors — the calls of examples/vi_tour.cpp, which includes this header
// and compiles in about 10 s at -O3 instead of 53 s header-only (docs/user-guide.md, "The
// compiled instances").
//
// The library's code is compiled once with its own flags, so a program must match it in what
// changes the layout of Eigen's objects or the engine's inline code: Eigen's alignment (set by
// the instruction set, e.g. 16 bytes without -mavx, 64 with -march=native on an AVX-512 machine)
// and the engine's checked mode (NGVI_AD_CHECKED). Mixing them would free memory with the wrong
// allocator, so every program that includes this header references a symbol whose name spells
// both (instances_abi::eigen_align_16_unchecked, say); a program compiled another way fails to
// link, naming the mismatch, instead of running. The installed library is compiled for the
// compiler's default instruction set, never with -march=native.
#pragma once

#include <Eigen/Core>

#include <autodiff/core/config.hpp>
#include <inference/fit_declaration.hpp>
#include <inference/ivon_options.hpp>
#include <inference/posterior/diagonal_gaussian.hpp>
#include <inference/posterior/full_gaussian.hpp>
#include <inference/predictive_declaration.hpp>
#include <inference/problems/regression_1d_gap.hpp>
#include <inference/random.hpp>
#include <inference/vogn_options.hpp>
#include <inference/von_options.hpp>
#include <nn/dataset.hpp>

#ifndef NGVI_INSTANCES_EXTERN
#define NGVI_INSTANCES_EXTERN extern
#endif

#if defined(NGVI_AD_CHECKED) && NGVI_AD_CHECKED
#define NGVI_INSTANCES_MODE checked
#else
#define NGVI_INSTANCES_MODE unchecked
#endif
#define NGVI_INSTANCES_TAG_(align, mode) eigen_align_##align##_##mode
#define NGVI_INSTANCES_TAG(align, mode) NGVI_INSTANCES_TAG_(align, mode)

namespace ngvi::vi {

namespace instances {
// Defined in the library only for the alignment and mode it was compiled with (see above).
int NGVI_INSTANCES_TAG(EIGEN_MAX_ALIGN_BYTES, NGVI_INSTANCES_MODE)();
// Dynamically initialised, so every program that includes this header references the tag.
inline const int checked_at_link_time =
    NGVI_INSTANCES_TAG(EIGEN_MAX_ALIGN_BYTES, NGVI_INSTANCES_MODE)();

using GapModel = problems::Regression1dGap::model_type;
}  // namespace instances

NGVI_INSTANCES_EXTERN template fit_result_t<instances::GapModel, VonOptions>
fit<instances::GapModel, VonOptions>(const instances::GapModel&, const VonOptions&, Rng&);
NGVI_INSTANCES_EXTERN template fit_result_t<instances::GapModel, VognOptions>
fit<instances::GapModel, VognOptions>(const instances::GapModel&, const VognOptions&, Rng&);
NGVI_INSTANCES_EXTERN template fit_result_t<instances::GapModel, IvonOptions>
fit<instances::GapModel, IvonOptions>(const instances::GapModel&, const IvonOptions&, Rng&);

NGVI_INSTANCES_EXTERN template RegressionPredictive
mc_regression_predictive<instances::GapModel, FullGaussian>(const instances::GapModel&,
                                                            const FullGaussian&,
                                                            const nn::Standardizer&, Rng&,
                                                            const PredictiveOptions&);
NGVI_INSTANCES_EXTERN template RegressionPredictive
mc_regression_predictive<instances::GapModel, DiagonalGaussian>(const instances::GapModel&,
                                                                const DiagonalGaussian&,
                                                                const nn::Standardizer&, Rng&,
                                                                const PredictiveOptions&);

}  // namespace ngvi::vi
