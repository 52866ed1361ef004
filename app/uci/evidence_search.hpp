// map_laplace's hyperparameter search of a UCI split (app/uci/uci_protocol.hpp): type-II maximum
// likelihood on the whole training set over the ratio r = δ/τ, each MAP + Laplace fit's evidence
// maximised over the scale in closed form, then the linearised predictive of the best fit (and of
// an ensemble's further members) scored on the test set.
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

}  // namespace ngvi::app
