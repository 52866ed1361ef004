// render: draws a Figure (app/plot/figure.hpp) as SVG and/or PNG files through gnuplot.
//
// The figure's data go to text files and its commands to one gnuplot script, both in a fresh
// scratch folder under the system temp dir; gnuplot (app/plot/gnuplot.hpp) draws every requested
// format in one run — SVG with the svg terminal (standalone, no JavaScript, nothing fetched),
// PNG with the cairo terminal — and each result is checked (SVG markup, PNG signature) and moved
// to <stem>.svg / <stem>.png atomically, so a failed plot never leaves a truncated image. The
// scratch folder is removed afterwards. Numbers are written with 17 significant digits, so the
// drawing shows exactly the values passed; non-finite values become gaps, as do non-positive
// ones on a logarithmic axis. Series without a colour take the next colour of a fixed palette
// by position, so the n-th method has the same colour in every figure.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <app/plot/figure.hpp>
#include <app/plot/gnuplot.hpp>
#include <fmt/format.h>
#include <io/atomic_write.hpp>
#include <unistd.h>

namespace ngvi::app::plot {

enum class Format { svg, png };

inline const char* extension(Format f) { return f == Format::svg ? ".svg" : ".png"; }

namespace detail {

// The palette (Tableau 10) colours are taken from by position.
inline std::string palette_color(std::size_t i) {
  static const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return colors[i % 10];
}

// A gnuplot single-quoted string: no escapes are processed inside, '' stands for one quote.
// Line breaks would end the command, so they become spaces.
inline std::string gp_string(std::string_view s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "''";
    else if (c == '\n' || c == '\r')
      q += ' ';
    else
      q += c;
  }
  return q + "'";
}

inline void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("ngvi::app::plot::render: " + what);
}

// A scratch folder removed when it goes out of scope.
struct Scratch {
  std::filesystem::path path;
  Scratch() {
    static std::atomic<unsigned long> counter{0};
    path = std::filesystem::temp_directory_path() /
           ("ngvi-plot-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Writes data files into the scratch folder and collects the plot clauses that read them.
class ScriptBuilder {
 public:
  ScriptBuilder(const std::filesystem::path& dir, const Axes& axes) : dir_(dir), axes_(axes) {}

  std::string number(double v, bool on_log_axis) const {
    if (!std::isfinite(v) || (on_log_axis && v <= 0.0)) return "NaN";
    return fmt::format("{:.17g}", v);
  }
  // A new data file with `text`; returns its quoted path.
  std::string data_file(const std::string& text) {
    const std::filesystem::path p = dir_ / ("d" + std::to_string(files_++) + ".dat");
    std::ofstream(p, std::ios::binary) << text;
    return gp_string(p.string());
  }
  void add_clause(std::string clause) { clauses_.push_back(std::move(clause)); }
  std::vector<std::string> settings;

  void add_series(const Series& s, std::size_t index) {
    require(s.x.size() == s.y.size(), "series " + gp_string(s.label) + " has " +
                                          std::to_string(s.x.size()) + " x values but " +
                                          std::to_string(s.y.size()) + " y values");
    std::string text;
    for (std::size_t i = 0; i < s.x.size(); ++i)
      text += number(s.x[i], axes_.log_x) + " " + number(s.y[i], axes_.log_y) + "\n";
    const std::string color = s.color.empty() ? palette_color(index) : s.color;
    const char* with = s.style == Style::lines    ? "lines lw 2"
                       : s.style == Style::points ? "points pt 7 ps 0.6"
                                                  : "linespoints lw 2 pt 7 ps 0.6";
    add_clause(data_file(text) + " using 1:2 with " + with + " lc rgb " + gp_string(color) + " " +
               title(s.label));
  }
  static std::string title(const std::string& label) {
    return label.empty() ? "notitle" : "title " + gp_string(label);
  }

  // The whole script: for each format its terminal and output, the settings and the plot.
  std::string script(const std::vector<std::pair<Format, std::filesystem::path>>& outputs) const {
    std::string s = "set encoding utf8\n";
    for (const auto& [format, path] : outputs) {
      if (format == Format::svg)
        s += fmt::format(
            "set terminal svg size {},{} noenhanced font 'sans,12' background rgb 'white'\n",
            axes_.width, axes_.height);
      else
        s += fmt::format(
            "set terminal pngcairo size {},{} noenhanced font 'sans,10' background rgb 'white'\n",
            axes_.width, axes_.height);
      s += "set output " + gp_string(path.string()) + "\n";
      if (!axes_.title.empty()) s += "set title " + gp_string(axes_.title) + "\n";
      if (!axes_.xlabel.empty()) s += "set xlabel " + gp_string(axes_.xlabel) + "\n";
      if (!axes_.ylabel.empty()) s += "set ylabel " + gp_string(axes_.ylabel) + "\n";
      if (axes_.log_x) s += "set logscale x\n";
      if (axes_.log_y) s += "set logscale y\n";
      if (std::isfinite(axes_.y_min) && std::isfinite(axes_.y_max)) {
        require(axes_.y_min < axes_.y_max,
                fmt::format("the y-range [{}, {}] of {} is empty", axes_.y_min, axes_.y_max,
                            gp_string(axes_.title)));
        s += fmt::format("set yrange [{:.17g}:{:.17g}]\n", axes_.y_min, axes_.y_max);
      }
      s += "set grid\nset key outside right top box opaque\n";
      for (const std::string& line : settings) s += line + "\n";
      require(!clauses_.empty(), "the figure " + gp_string(axes_.title) + " has nothing to draw");
      s += "plot ";
      for (std::size_t i = 0; i < clauses_.size(); ++i) s += (i ? ", \\\n     " : "") + clauses_[i];
      s += "\nunset output\n";
    }
    return s;
  }

 private:
  std::filesystem::path dir_;
  const Axes& axes_;
  std::vector<std::string> clauses_;
  int files_ = 0;
};

inline void build(ScriptBuilder& b, const LinePlot& p) {
  for (std::size_t i = 0; i < p.series.size(); ++i) b.add_series(p.series[i], i);
}

inline void build(ScriptBuilder& b, const BandPlot& p) {
  require(p.k > 0.0 && std::isfinite(p.k),
          "the band half-width k must be positive, not " + fmt::format("{}", p.k));
  for (std::size_t i = 0; i < p.bands.size(); ++i) {
    const Band& band = p.bands[i];
    require(band.mean.size() == band.x.size() && band.sd.size() == band.x.size(),
            "band " + gp_string(band.label) + " has " + std::to_string(band.x.size()) + " x, " +
                std::to_string(band.mean.size()) + " mean and " + std::to_string(band.sd.size()) +
                " sd values");
    std::string text;
    for (std::size_t j = 0; j < band.x.size(); ++j) {
      const double sd = band.sd[j];
      require(!(sd < 0.0), "band " + gp_string(band.label) + " has a negative sd " +
                               fmt::format("{}", sd) + " at index " + std::to_string(j));
      text += b.number(band.x[j], false) + " " + b.number(band.mean[j], false) + " " +
              b.number(band.mean[j] - p.k * sd, false) + " " +
              b.number(band.mean[j] + p.k * sd, false) + "\n";
    }
    const std::string color = gp_string(band.color.empty() ? palette_color(i) : band.color);
    const std::string file = b.data_file(text);
    b.add_clause(file + " using 1:3:4 with filledcurves fs transparent solid 0.2 noborder lc rgb " +
                 color + " " +
                 ScriptBuilder::title(
                     band.label.empty() ? "" : fmt::format("{} ± {:g} sd", band.label, p.k)));
    b.add_clause(file + " using 1:2 with lines lw 2 lc rgb " + color + " " +
                 ScriptBuilder::title(band.label.empty() ? "" : band.label + " mean"));
  }
  for (std::size_t i = 0; i < p.overlays.size(); ++i)
    b.add_series(p.overlays[i], p.bands.size() + i);
}

inline void build(ScriptBuilder& b, const Heatmap& p) {
  const std::size_t nx = p.x.size(), ny = p.y.size();
  require(nx >= 2 && ny >= 2, "a heatmap needs at least 2×2 grid points, not " +
                                  std::to_string(nx) + "×" + std::to_string(ny));
  require(static_cast<std::size_t>(p.z.rows()) == ny && static_cast<std::size_t>(p.z.cols()) == nx,
          "heatmap values are " + std::to_string(p.z.rows()) + "×" + std::to_string(p.z.cols()) +
              " but the grid is ny×nx = " + std::to_string(ny) + "×" + std::to_string(nx));
  // gnuplot's `with image` draws one pixel per grid point: the spacing must be uniform.
  for (const auto* v : {&p.x, &p.y}) {
    const double step = ((*v).back() - (*v).front()) / double(v->size() - 1);
    for (std::size_t j = 0; j < v->size(); ++j)
      require(std::isfinite((*v)[j]) &&
                  std::abs((*v)[j] - ((*v).front() + double(j) * step)) <= 1e-9 * std::abs(step) &&
                  step > 0.0,
              "heatmap grid coordinates must be finite, increasing and evenly spaced (index " +
                  std::to_string(j) + ")");
  }
  std::string text;
  for (std::size_t i = 0; i < ny; ++i) {
    for (std::size_t j = 0; j < nx; ++j)
      text += b.number(p.x[j], false) + " " + b.number(p.y[i], false) + " " +
              b.number(p.z(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)), false) +
              "\n";
    text += "\n";
  }
  b.settings.push_back(
      "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')");
  b.settings.push_back(
      fmt::format("set xrange [{:.17g}:{:.17g}] noextend", p.x.front(), p.x.back()));
  b.settings.push_back(
      fmt::format("set yrange [{:.17g}:{:.17g}] noextend", p.y.front(), p.y.back()));
  if (p.z_min || p.z_max)
    b.settings.push_back("set cbrange [" +
                         (p.z_min ? fmt::format("{:.17g}", *p.z_min) : std::string("*")) + ":" +
                         (p.z_max ? fmt::format("{:.17g}", *p.z_max) : std::string("*")) + "]");
  if (!p.value_label.empty()) b.settings.push_back("set cblabel " + gp_string(p.value_label));
  b.add_clause(b.data_file(text) + " using 1:2:3 with image notitle");
  for (std::size_t i = 0; i < p.overlays.size(); ++i) b.add_series(p.overlays[i], i);
}

inline void build(ScriptBuilder& b, const HistogramPlot& p) {
  for (std::size_t h = 0; h < p.histograms.size(); ++h) {
    const Histogram& hist = p.histograms[h];
    std::vector<double> v;
    std::copy_if(hist.samples.begin(), hist.samples.end(), std::back_inserter(v),
                 [](double s) { return std::isfinite(s); });
    require(!v.empty(), "histogram " + gp_string(hist.label) + " has no finite sample");
    require(hist.bins >= 0, "histogram " + gp_string(hist.label) + " asks for " +
                                std::to_string(hist.bins) + " bins");
    const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
    double lo = *lo_it, hi = *hi_it;
    if (!(hi > lo)) {
      lo -= 0.5;
      hi += 0.5;
    }
    const int bins =
        hist.bins > 0
            ? hist.bins
            : std::clamp(static_cast<int>(std::lround(std::sqrt(double(v.size())))), 10, 60);
    const double width = (hi - lo) / bins;
    std::vector<double> count(static_cast<std::size_t>(bins), 0.0);
    for (double s : v)
      count[static_cast<std::size_t>(std::min(bins - 1, static_cast<int>((s - lo) / width)))] +=
          1.0;
    std::string text;
    for (int k = 0; k < bins; ++k)
      text += b.number(lo + (k + 0.5) * width, false) + " " +
              b.number(count[static_cast<std::size_t>(k)] / (double(v.size()) * width), false) +
              " " + b.number(width, false) + "\n";
    const std::string color = gp_string(hist.color.empty() ? palette_color(h) : hist.color);
    b.add_clause(b.data_file(text) +
                 " using 1:2:3 with boxes fs transparent solid 0.35 border lc rgb " + color +
                 " lc rgb " + color + " " + ScriptBuilder::title(hist.label));
  }
  for (std::size_t i = 0; i < p.curves.size(); ++i)
    b.add_series(p.curves[i], p.histograms.size() + i);
}

inline const Axes& axes_of(const Figure& f) {
  return std::visit([](const auto& p) -> const Axes& { return p.axes; }, f);
}

inline std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace detail

// Draws `figure` into <stem>.svg and/or <stem>.png (each written atomically) and returns the
// paths written. Throws std::invalid_argument for inconsistent figure data (naming the series
// and sizes), io::FileError if <stem>'s folder does not exist, PlotError if gnuplot is missing or
// fails. Cost: one gnuplot process; data files of the figure's size.
inline std::vector<std::filesystem::path> render(const Figure& figure,
                                                 const std::filesystem::path& stem,
                                                 const std::vector<Format>& formats = {
                                                     Format::svg, Format::png}) {
  namespace fs = std::filesystem;
  const fs::path dir = stem.has_parent_path() ? stem.parent_path() : fs::path(".");
  if (!fs::is_directory(dir))
    throw io::FileError("cannot draw " + stem.string() + ": directory " + dir.string() +
                        " does not exist");
  const Axes& axes = detail::axes_of(figure);
  detail::require(
      axes.width >= 64 && axes.height >= 64 && axes.width <= 8192 && axes.height <= 8192,
      fmt::format("figure size {}×{} is outside 64..8192", axes.width, axes.height));
  detail::Scratch scratch;
  detail::ScriptBuilder builder(scratch.path, axes);
  std::visit([&](const auto& p) { detail::build(builder, p); }, figure);
  std::vector<std::pair<Format, fs::path>> outputs;
  for (Format f : formats)
    outputs.emplace_back(f, scratch.path / (std::string("figure") + extension(f)));
  const fs::path script = scratch.path / "figure.gp";
  std::ofstream(script, std::ios::binary) << builder.script(outputs);
  run_gnuplot(script, scratch.path / "gnuplot.log");

  std::vector<fs::path> written;
  for (const auto& [format, produced] : outputs) {
    const std::string bytes = detail::read_all(produced);
    const bool valid = format == Format::svg
                           ? bytes.find("<svg") != std::string::npos
                           : bytes.size() > 8 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
    if (!valid)
      throw PlotError("gnuplot reported success but " + produced.filename().string() + " is " +
                      (bytes.empty() ? std::string("empty or missing") : "not a valid image") +
                      " (drawing " + stem.string() + ")");
    fs::path target = stem;
    target += extension(format);
    io::write_file_atomically(target, bytes);
    written.push_back(target);
  }
  return written;
}

}  // namespace ngvi::app::plot
