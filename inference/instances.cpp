// The compiled library ngvi::instances: the explicit instantiation definitions of every
// declaration in inference/instances.hpp (with NGVI_INSTANCES_EXTERN empty, each `extern
// template` there becomes a `template` here, so the two lists cannot drift apart), and the tag
// function that lets a program compiled with another Eigen alignment or checked mode fail to
// link rather than run.
#define NGVI_INSTANCES_EXTERN
#include <inference/instances.hpp>

namespace ngvi::vi::instances {

int NGVI_INSTANCES_TAG(EIGEN_MAX_ALIGN_BYTES, NGVI_INSTANCES_MODE)() { return 0; }

}  // namespace ngvi::vi::instances
