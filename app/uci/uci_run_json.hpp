// A UCI run (app/uci/uci_protocol.hpp) as bytes and back, to send it between the ranks of
// `ngvi uci` under mpirun: the run as JSON, encoded as CBOR, so every number is exact, NaN and ±∞
// included.
#pragma once

#include <string>

#include <app/uci/uci_protocol.hpp>

namespace ngvi::app {

// The run's bytes. Cost: O(splits × tuning fits).
std::string encode_uci_run(const UciRun& run);
// The run encode_uci_run wrote, its means and standard errors recomputed (summarise_uci_run).
// Throws nlohmann::json's exceptions for bytes encode_uci_run did not write.
UciRun decode_uci_run(const std::string& bytes);

}  // namespace ngvi::app
