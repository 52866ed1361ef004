// The compiled library ngvi::instances: the explicit instantiation definitions of every
// declaration in inference/instances.hpp (with NGVI_INSTANCES_EXTERN empty, each `extern
// template` there becomes a `template` here, so the two lists cannot drift apart), and the tag
// function that lets a program compiled with another Eigen alignment or checked mode fail to
// link rather than run. The definitions need the loop, the methods and the predictive, which the
// header itself (the light interface a program compiles) leaves out.
#include <inference/fit.hpp>
#include <inference/ivon.hpp>
#include <inference/predictive.hpp>
#include <inference/vogn.hpp>
#include <inference/von.hpp>

#define NGVI_INSTANCES_EXTERN
#include <inference/instances.hpp>

namespace ngvi::vi::instances {

int NGVI_INSTANCES_TAG(EIGEN_MAX_ALIGN_BYTES, NGVI_INSTANCES_MODE)() { return 0; }

}  // namespace ngvi::vi::instances
