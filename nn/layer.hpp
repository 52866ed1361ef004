// Layer: the closed set of layer kinds a Sequential network is made of.
//
// A std::variant rather than a class hierarchy, so that a layer's forward pass can be a
// template over the scalar type (double, Var<double>, Var<Dual<double, K>>) — virtual
// functions cannot be templates — while the architecture stays a run-time value that a
// command-line tool can build from a configuration (one hidden layer of 50 or of 100 units).
#pragma once

#include <string>
#include <type_traits>
#include <variant>

#include <nn/activations.hpp>
#include <nn/dense.hpp>

namespace ngvi::nn {

using Layer = std::variant<Dense, Tanh, Relu, Sigmoid, Softplus, Identity>;

// "dense(13->50)", "dense(50->1, no bias)", "tanh", ...: for messages and summaries.
inline std::string describe(const Layer& layer) {
  return std::visit(
      [](const auto& l) -> std::string {
        using L = std::decay_t<decltype(l)>;
        if constexpr (std::is_same_v<L, Dense>)
          return "dense(" + std::to_string(l.in) + "->" + std::to_string(l.out) +
                 (l.has_bias() ? ")" : ", no bias)");
        else
          return std::string(L::name);
      },
      layer);
}

}  // namespace ngvi::nn
