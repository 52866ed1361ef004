// Hyperparameters on a UCI split (app/uci/uci_protocol.hpp) from the evidence: for the Laplace
// methods either type-II maximum likelihood on the whole training set over the ratio r = δ/τ,
// each MAP + Laplace fit's evidence maximised over the scale in closed form, or (--hyperparameters
// evidence) learned during one fit; for the VI methods (--hyperparameters evidence or noise)
// learned during one fit by variational EM. Then the predictive of the fit (and of an ensemble's
// further members) scored on the test set: linearised for the Laplace methods, Monte Carlo for VI.
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

// o.method.hyperparameters = evidence or noise: one fit on the whole training set that learns
// δ_b and τ (starting at o.method.prior_precision and o.initial_noise_precision; fit_method.hpp
// says how for each method), scored on the test set at them (and o.ensemble − 1 more such fits).
// Cost: o.ensemble such fits (map_laplace: a MAP fit, 16 GGNs over the training set and 316 P×P
// Cholesky factorisations each; a VI method: its fit and 15 M-steps) and the test predictives.
SplitResult evidence_gradient_fit(const UciProtocolOptions& o, const io::UciSplit& data, int split,
                                  Eigen::Index hidden);

}  // namespace ngvi::app
