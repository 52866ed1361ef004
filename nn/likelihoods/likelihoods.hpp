// All likelihoods (see likelihood.hpp for the interface they share).
#pragma once

#include <nn/likelihoods/bernoulli_logit.hpp>
#include <nn/likelihoods/gaussian_fixed_noise.hpp>
#include <nn/likelihoods/gaussian_learned_noise.hpp>
#include <nn/likelihoods/heteroscedastic_gaussian.hpp>
#include <nn/likelihoods/likelihood.hpp>
#include <nn/likelihoods/likelihood_base.hpp>
#include <nn/likelihoods/likelihood_variant.hpp>
#include <nn/likelihoods/poisson_log.hpp>
#include <nn/likelihoods/softmax_categorical.hpp>
#include <nn/likelihoods/student_t.hpp>
