// Tests of app/plot/render.hpp (and gnuplot.hpp): every figure kind becomes a valid SVG and a PNG
// of the requested size; inconsistent data, a missing folder, a missing or failing gnuplot are
// clear errors that leave no image behind.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <app/plot/render.hpp>
#include <boost/test/unit_test.hpp>

#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(render_test)

namespace fs = std::filesystem;
namespace plot = ngvi::app::plot;
using ngvi::test::contains;
using ngvi::test::read_file;
using ngvi::test::TempDir;

namespace {

// Width and height from a PNG's IHDR chunk (big-endian at bytes 16..23).
std::pair<int, int> png_size(const std::string& png) {
  auto be32 = [&](std::size_t at) {
    int v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(png[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

// Renders `f` into dir/name and checks both files.
void check_renders(const plot::Figure& f, const TempDir& dir, const std::string& name,
                   const std::string& text) {
  const auto written = plot::render(f, dir.path / name);
  BOOST_REQUIRE(written.size() == 2u);
  const std::string svg = read_file(dir.path / (name + ".svg"));
  BOOST_TEST(contains(svg, "<svg"), name);
  BOOST_TEST(contains(svg, text), name << ": the SVG lacks " << text);
  BOOST_TEST(!contains(svg, "<script"), name << ": the SVG must hold no script");
  const std::string png = read_file(dir.path / (name + ".png"));
  BOOST_REQUIRE(png.size() > 24u);
  BOOST_TEST(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0, name);
  const plot::Axes& axes = std::visit([](const auto& p) -> const plot::Axes& { return p.axes; }, f);
  BOOST_TEST(png_size(png).first == axes.width, name);
  BOOST_TEST(png_size(png).second == axes.height, name);
}

// Sets an environment variable for the life of the object.
struct ScopedEnv {
  std::string name;
  std::string old;
  bool had;
  ScopedEnv(const std::string& n, const std::string& value) : name(n) {
    const char* o = std::getenv(n.c_str());
    had = o != nullptr;
    if (had) old = o;
    ::setenv(n.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had)
      ::setenv(name.c_str(), old.c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};

plot::LinePlot two_lines() {
  plot::LinePlot p;
  p.axes = {"ELBO it's <b>&", "iteration", "value", false, true, 640, 400};
  p.series.push_back({"VON", {1, 2, 3, 4}, {10, 5, 2.5, 1.25}, plot::Style::lines, ""});
  p.series.push_back(
      {"VOGN", {1, 2, 3, 4}, {8, 4, 0.0, NAN}, plot::Style::lines_points, "#000000"});
  return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_figure_kind_renders) {
  TempDir dir;
  check_renders(two_lines(), dir, "lines",
                "ELBO it's &lt;b>&amp;");  // text escaped for XML by gnuplot

  plot::BandPlot band;
  band.axes.title = "predictive";
  std::vector<double> x, mean, sd;
  for (int i = 0; i <= 40; ++i) {
    x.push_back(-2.0 + 0.1 * i);
    mean.push_back(std::sin(x.back()));
    sd.push_back(0.1 + 0.05 * std::abs(x.back()));
  }
  band.bands.push_back({"VON", x, mean, sd, ""});
  band.overlays.push_back({"data", {-1, 0, 1}, {-0.8, 0.1, 0.9}, plot::Style::points, "#000000"});
  check_renders(band, dir, "band", "VON ± 2 sd");

  plot::Heatmap heat;
  heat.axes = {"p(y = 1 | x)", "x1", "x2", false, false, 500, 450};
  heat.value_label = "probability";
  for (int i = 0; i < 20; ++i) heat.x.push_back(-1.0 + 0.1 * i);
  for (int i = 0; i < 15; ++i) heat.y.push_back(-0.5 + 0.1 * i);
  heat.z.resize(15, 20);
  for (int i = 0; i < 15; ++i)
    for (int j = 0; j < 20; ++j) heat.z(i, j) = 1.0 / (1.0 + std::exp(-(heat.x[j] - heat.y[i])));
  heat.z_min = 0.0;
  heat.z_max = 1.0;
  heat.overlays.push_back({"class 1", {0.1, 0.2}, {0.0, 0.3}, plot::Style::points, ""});
  check_renders(heat, dir, "heat", "class 1");

  plot::HistogramPlot hist;
  hist.axes.title = "marginal of w1";
  std::vector<double> samples;
  for (int i = 0; i < 400; ++i) samples.push_back(std::sin(0.37 * i) + std::cos(1.3 * i));
  hist.histograms.push_back({"VON samples", samples, 0, ""});
  hist.curves.push_back({"exact", {-2, 0, 2}, {0.05, 0.4, 0.05}, plot::Style::lines, ""});
  check_renders(hist, dir, "hist", "exact");
}

BOOST_AUTO_TEST_CASE(only_the_requested_formats) {
  TempDir dir;
  const auto written = plot::render(two_lines(), dir.path / "only", {plot::Format::svg});
  BOOST_TEST(written.size() == 1u);
  BOOST_TEST(fs::exists(dir.path / "only.svg"));
  BOOST_TEST(!fs::exists(dir.path / "only.png"));
}

BOOST_AUTO_TEST_CASE(a_fixed_y_range_clips_an_outlier) {
  // One point at 10⁶ among values near 1: autoscaled, the axis runs to 1e+06; with the range
  // fixed to [−2, 3] its ticks are those of that range and the outlier is clipped.
  TempDir dir;
  plot::LinePlot p;
  p.axes = {"clip", "x", "y", false, false, 400, 300};
  p.series.push_back({"a", {0.0, 1.0, 2.0}, {0.0, 1e6, 1.0}, plot::Style::lines, ""});
  plot::render(p, dir.path / "auto", {plot::Format::svg});
  BOOST_TEST(contains(read_file(dir.path / "auto.svg"), "1e+06</text>"));
  p.axes.y_min = -2.0;
  p.axes.y_max = 3.0;
  plot::render(p, dir.path / "fixed", {plot::Format::svg});
  const std::string svg = read_file(dir.path / "fixed.svg");
  BOOST_TEST(contains(svg, ">-2</text>"));
  BOOST_TEST(!contains(svg, "1e+06"));
  p.axes.y_max = -2.0;
  BOOST_CHECK_THROW(plot::render(p, dir.path / "empty_range"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(bad_figures_are_errors) {
  TempDir dir;
  plot::LinePlot ragged = two_lines();
  ragged.series[1].y.pop_back();
  try {
    plot::render(ragged, dir.path / "ragged");
    BOOST_FAIL("no error");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(contains(e.what(), "series 'VOGN' has 4 x values but 3 y values"), e.what());
  }
  plot::Heatmap uneven;
  uneven.x = {0, 1, 3};
  uneven.y = {0, 1};
  uneven.z = Eigen::MatrixXd::Zero(2, 3);
  BOOST_CHECK_THROW(plot::render(uneven, dir.path / "uneven"), std::invalid_argument);
  uneven.x = {0, 1, 2};
  uneven.z = Eigen::MatrixXd::Zero(3, 2);
  BOOST_CHECK_THROW(plot::render(uneven, dir.path / "shape"), std::invalid_argument);
  plot::BandPlot negative;
  negative.bands.push_back({"b", {0, 1}, {0, 0}, {1, -1}, ""});
  BOOST_CHECK_THROW(plot::render(negative, dir.path / "negative"), std::invalid_argument);
  BOOST_CHECK_THROW(plot::render(plot::LinePlot{}, dir.path / "empty"), std::invalid_argument);
  BOOST_CHECK_THROW(plot::render(two_lines(), dir.path / "missing" / "x"), ngvi::io::FileError);
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path)) ++files;
  BOOST_TEST(files == 0);
}

BOOST_AUTO_TEST_CASE(missing_or_failing_gnuplot) {
  TempDir dir;
  {
    const ScopedEnv env("NGVI_GNUPLOT", (dir.path / "no-gnuplot").string());
    try {
      plot::render(two_lines(), dir.path / "a");
      BOOST_FAIL("no PlotError");
    } catch (const plot::PlotError& e) {
      BOOST_TEST(contains(e.what(), "not an executable program"), e.what());
    }
  }
  {
    const ScopedEnv env("NGVI_GNUPLOT", "");
    const ScopedEnv path("PATH", dir.path.string());
    try {
      plot::render(two_lines(), dir.path / "a");
      BOOST_FAIL("no PlotError");
    } catch (const plot::PlotError& e) {
      BOOST_TEST(contains(e.what(), "gnuplot was not found on PATH"), e.what());
      BOOST_TEST(contains(e.what(), "gnuplot-nox"), e.what());
    }
  }
  {
    const fs::path fake = dir.write(
        "fake-gnuplot", "#!/bin/sh\nprintf 'line 1: bad \\001\\377 command\\n' >&2\nexit 3\n");
    fs::permissions(fake, fs::perms::owner_all);
    const ScopedEnv env("NGVI_GNUPLOT", fake.string());
    try {
      plot::render(two_lines(), dir.path / "a");
      BOOST_FAIL("no PlotError");
    } catch (const plot::PlotError& e) {
      BOOST_TEST(contains(e.what(), "exited with status 3"), e.what());
      BOOST_TEST(contains(e.what(), R"(bad \x01\xff command)"), e.what());
      BOOST_TEST(ngvi::test::printable_ascii(e.what()), e.what());
    }
  }
  BOOST_TEST(!fs::exists(dir.path / "a.svg"));
  BOOST_TEST(!fs::exists(dir.path / "a.png"));
}

BOOST_AUTO_TEST_SUITE_END()
