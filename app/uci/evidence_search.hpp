// map_laplace's hyperparameters on a UCI split (app/uci/uci_protocol.hpp), from the evidence:
// either type-II maximum likelihood on the whole training set over the ratio r = δ/τ, each MAP +
// Laplace fit's evidence maximised over the scale in closed form, or (--hyperparameters evidence)
// learned during one fit by the evidence's gradient; then the linearised predictive of the fit
// (and of an ensemble's further members) scored on the test set.
#pragma once

#include <Eigen/Core>
#include <app/uci/uci_protocol.hpp>
#include <io/uci_folder.hpp>

namespace ngvi::app {

// Runs the evidence search and the test scoring on split `split` (`data`) with `hidden` hidden
// units. Cost: up to max_tuning_fits + ensemble − 1 MAP fits and P×P Laplace approximations on
// the whole training set, and the test predictives.
SplitResult evidence_search(const UciProtocolOptions& o, const io::UciSplit& data, int split,
                            Eigen::Index hidden);

// map_laplace with o.method.hyperparameters = evidence: one MAP fit on the whole training set
// that learns δ_b and τ from the evidence's gradient (starting at o.method.prior_precision and
// o.initial_noise_precision), its Laplace approximation at them scored on the test set by the
// linearised predictive (and o.ensemble − 1 more such fits). Cost: o.ensemble such fits (a MAP
// fit, 16 GGNs over the training set and 316 P×P Cholesky factorisations each) and the test
// predictives.
SplitResult evidence_gradient_fit(const UciProtocolOptions& o, const io::UciSplit& data, int split,
                                  Eigen::Index hidden);

}  // namespace ngvi::app
