// write_study_folder: the report folder of `ngvi study` — results.json, one history CSV per
// problem, seed and method, the plots of the base seed's run (SVG and PNG, drawn by gnuplot
// through app/plot), report.html and report.md (app/report) with tables of mean ± sd over the
// seeds.
//
// The plots are drawn in parallel (one gnuplot process per figure, two per thread at a time);
// every file is written atomically, and report.html/report.md last, after every figure they
// show exists. The figures and the report's sections are described in app/study/README.md.
#pragma once

#include <filesystem>

#include <app/study/study_json.hpp>

namespace ngvi::app::study {

// Throws io::FileError (a file could not be written) or plot::PlotError (gnuplot missing or
// failing). Cost: one gnuplot run per figure (about 100 for the full study) and O(size of the
// records).
void write_study_folder(const StudyRun& run, const std::filesystem::path& out, int threads);

}  // namespace ngvi::app::study
