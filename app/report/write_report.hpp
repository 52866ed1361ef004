// write_report: report.html and report.md of a report folder, each written atomically.
//
// Both are rendered in memory first (html_report.hpp reads every figure), so a missing figure
// fails before either file is touched.
#pragma once

#include <filesystem>
#include <string>

#include <app/report/html_report.hpp>
#include <app/report/markdown_report.hpp>
#include <app/report/report.hpp>
#include <io/atomic_write.hpp>

namespace ngvi::app::report {

// Writes <folder>/report.html and <folder>/report.md. Throws io::FileError. Cost: O(size of the
// text and the figures).
inline void write_report(const Report& report, const std::filesystem::path& folder) {
  const std::string html = render_html(report, folder);
  const std::string md = render_markdown(report);
  io::write_file_atomically(folder / "report.html", html);
  io::write_file_atomically(folder / "report.md", md);
}

}  // namespace ngvi::app::report
