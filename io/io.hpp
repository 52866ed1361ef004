// Umbrella header of the io module (namespace ngvi::io): the file formats and their errors.
// DataError and quote_bytes (how a problem with a file is reported), numeric tables and CSV
// tables with named columns (streamed; the lines of their records kept as runs), the training table
// of `ngvi fit --csv`, the UCI folder and its regression problem, JSON files, checkpoint and
// history files, base64, and the atomic writer that every file written goes through. io sits above
// inference (it reads files into the Datasets, problems and checkpoints of nn and inference) and
// below the command-line tool.
#pragma once

#include <io/atomic_write.hpp>
#include <io/base64.hpp>
#include <io/checkpoint_file.hpp>
#include <io/csv_table.hpp>
#include <io/data_error.hpp>
#include <io/history_file.hpp>
#include <io/json_file.hpp>
#include <io/numeric_table.hpp>
#include <io/record_lines.hpp>
#include <io/training_table.hpp>
#include <io/uci_folder.hpp>
