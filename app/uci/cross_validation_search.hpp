// The hyperparameter search of a UCI split for every method but map_laplace (steps 1–3 of
// app/uci/uci_protocol.hpp): the inner validation split(s) of the training set, the search over
// the noise precision τ (and ν for student-t) and the prior precision δ by the validation
// log-likelihood, which also chooses the epochs, then the final fit(s) on the whole training set
// scored on the test set.
#pragma once

#include <Eigen/Core>
#include <app/uci/uci_protocol.hpp>
#include <io/uci_folder.hpp>

namespace ngvi::app {

// Runs the search and the final fit(s) on split `split` (`data`) with `hidden` hidden units.
// Throws std::invalid_argument if the training set is too small for the inner split. Cost: up to
// max_tuning_fits settings of validation_folds fits each on part of the training set (per ν of
// student-t), `ensemble` fits on all of it, and their validation and test predictives.
SplitResult cross_validation_search(const UciProtocolOptions& o, const io::UciSplit& data,
                                    int split, Eigen::Index hidden);

}  // namespace ngvi::app
