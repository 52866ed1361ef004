// The figures the tool draws, as plain data: line plots, predictive bands, heatmaps over the
// plane and histograms/marginal densities.
//
// A figure says what to show, not how: app/plot/render.hpp turns it into a gnuplot script and
// data files and renders SVG and PNG. Every figure has Axes (title, labels, log scales); extra
// Series (lines or points) can be laid over bands, heatmaps and histograms — training data over
// a predictive band or a decision surface, an exact density over sampled marginals. Text is
// shown literally (gnuplot's enhanced-text markup is off), so labels may hold any characters.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <Eigen/Core>

namespace ngvi::app::plot {

struct Axes {
  std::string title;   // above the plot; empty: none
  std::string xlabel;  // empty: none
  std::string ylabel;  // empty: none
  bool log_x = false;  // logarithmic x axis (non-positive x values are left out)
  bool log_y = false;  // logarithmic y axis (non-positive y values are left out)
  int width = 720;     // pixels (PNG) or SVG user units
  int height = 480;
  // A fixed y-range [y_min, y_max] (what lies outside is clipped); NaN: gnuplot's autoscale.
  double y_min = std::numeric_limits<double>::quiet_NaN();
  double y_max = std::numeric_limits<double>::quiet_NaN();
};

enum class Style { lines, points, lines_points };

// One curve or point set. Non-finite values are gaps (gnuplot skips them).
struct Series {
  std::string label;         // legend entry; empty: not in the legend
  std::vector<double> x, y;  // same length
  Style style = Style::lines;
  std::string color;  // "#rrggbb"; empty: the palette colour of the series' position
};

// Several series against a common x (convergence curves, errors over training).
struct LinePlot {
  Axes axes;
  std::vector<Series> series;
};

// A 1-D predictive: mean and a shaded band mean ± k·sd, per model, with overlays (data points).
struct Band {
  std::string label;
  std::vector<double> x, mean, sd;  // same length; x increasing
  std::string color;                // as in Series
};
struct BandPlot {
  Axes axes;
  std::vector<Band> bands;
  double k = 2.0;                // half-width of the band in standard deviations
  std::vector<Series> overlays;  // drawn on top
};

// A scalar field over a regular grid of the plane (predictive probability, its uncertainty).
struct Heatmap {
  Axes axes;
  std::string value_label;             // colour-bar label
  std::vector<double> x, y;            // grid coordinates, increasing, nx and ny of them
  Eigen::MatrixXd z;                   // ny × nx: z(i, j) at (x[j], y[i])
  std::optional<double> z_min, z_max;  // colour range; unset: the data's range
  std::vector<Series> overlays;        // e.g. the training points of each class
};

// Normalised histograms of samples (each integrates to 1) with exact densities as curves.
struct Histogram {
  std::string label;
  std::vector<double> samples;  // at least one finite value
  int bins = 0;                 // 0: √n, clamped to 10..60
  std::string color;
};
struct HistogramPlot {
  Axes axes;
  std::vector<Histogram> histograms;
  std::vector<Series> curves;  // e.g. the exact posterior marginal's density
};

using Figure = std::variant<LinePlot, BandPlot, Heatmap, HistogramPlot>;

}  // namespace ngvi::app::plot
