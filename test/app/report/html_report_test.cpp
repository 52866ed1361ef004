// Tests of app/report/html_report.hpp and write_report.hpp: the page is self-contained (figures
// as data: URIs, a CSP that forbids fetching, no script), text is escaped, a missing figure fails
// before anything is written. (The browser test, test/app/report/browser_check.cmake, loads a
// real report in Chromium.)
#include <filesystem>
#include <string>
#include <variant>

#include <app/report/html_report.hpp>
#include <app/report/write_report.hpp>
#include <boost/test/unit_test.hpp>
#include <io/base64.hpp>

#include <support/temp_dir.hpp>

BOOST_AUTO_TEST_SUITE(html_report_test)

namespace fs = std::filesystem;
namespace report = ngvi::app::report;
using ngvi::test::contains;
using ngvi::test::read_file;
using ngvi::test::TempDir;

namespace {

report::Report sample(const TempDir& dir) {
  dir.write("plots/a.svg", "<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'/>");
  dir.write("plots/b.png", std::string("\x89PNG\r\n\x1a\nfake", 12));
  report::Report r;
  r.title = "Study <1> & \"2\"";
  r.introduction = {{"Intro with <script>alert(1)</script>."}};
  r.sections.push_back({"First",
                        {report::Paragraph{"p1"},
                         report::Table{"cap", {"method", "RMSE"}, {{"VON", "2.9"}, {"a|b", "<3"}}},
                         report::Figure{"svg figure", "plots/a.svg", "plots/b.png"}}});
  r.sections.push_back(
      {"Second",
       {report::Figure{"png figure", "", "plots/b.png"},
        report::Verdict{"GGN approaches H", true, "error 0.5 → 0.01", false, "", false},
        report::Verdict{"EF approaches H", false, "error 0.5 → 0.7", false, "", false},
        report::Verdict{"GGN = H", false, "error 0.1", true, "Martens 2020", false},
        report::Verdict{"VON's ELBO is higher", false, "0.1 ± 0.2", false, "Zhang et al. 2018",
                        true}}});
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(self_contained_and_escaped) {
  TempDir dir;
  const std::string html = report::render_html(sample(dir), dir.path);
  BOOST_TEST(contains(html, "default-src 'none'; img-src data:"));
  BOOST_TEST(!contains(html, "<script"), "the page must hold no script (the intro's is escaped)");
  BOOST_TEST(contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  BOOST_TEST(contains(html, "<title>Study &lt;1&gt; &amp; &quot;2&quot;</title>"));
  const std::string svg_uri =
      "data:image/svg+xml;base64," +
      ngvi::io::base64("<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'/>");
  BOOST_TEST(contains(html, "<img src=\"" + svg_uri + "\""),
             "the SVG is inlined, not the PNG beside it");
  BOOST_TEST(contains(
      html, "data:image/png;base64," + ngvi::io::base64(std::string("\x89PNG\r\n\x1a\nfake", 12))));
  BOOST_TEST(!contains(html, "plots/"), "no figure is referenced by path");
  BOOST_TEST(contains(html, "<td>a|b</td><td>&lt;3</td>"));
  BOOST_TEST(contains(html, "<strong>Confirmed:</strong> GGN approaches H. error 0.5 → 0.01"));
  BOOST_TEST(contains(html, "class=\"verdict refuted\"><strong>Refuted:</strong> EF approaches H"));
  BOOST_TEST(contains(html,
                      "class=\"verdict refuted check\"><strong>Check failed:</strong> GGN = "
                      "H. error 0.1 (Martens 2020)"));
  BOOST_TEST(contains(html, "class=\"verdict inconclusive\"><strong>Inconclusive:</strong> VON"));
  BOOST_TEST(contains(html, "<a href=\"#s2\">Second</a>"));
}

BOOST_AUTO_TEST_CASE(links_to_sections_figures_and_verdicts) {
  TempDir dir;
  report::Report r = sample(dir);
  r.sections[1].id = "problem-x";
  std::get<report::Figure>(r.sections[1].blocks[0]).id = "fig-b";
  auto& v = std::get<report::Verdict>(r.sections[1].blocks[1]);
  v.id = "verdict-1";
  v.figure_id = "fig-b";
  v.figure_text = "the <b> plot";
  r.sections[0].blocks.push_back(
      report::List{{{"VON higher & more", "→ section", "problem-x"}, {"no link", "", ""}}});
  const std::string html = report::render_html(r, dir.path);
  BOOST_TEST(contains(html, "<a href=\"#problem-x\">Second</a>"), "the navigation uses the id");
  BOOST_TEST(contains(html, "<section id=\"problem-x\">"));
  BOOST_TEST(contains(html, "<section id=\"s1\">"), "a section without id keeps s<position>");
  BOOST_TEST(contains(html, "<figure id=\"fig-b\"><img"));
  BOOST_TEST(contains(html, "<p class=\"verdict confirmed\" id=\"verdict-1\"><strong>"));
  BOOST_TEST(
      contains(html, "error 0.5 → 0.01 <a href=\"#fig-b\">plot: the &lt;b&gt; plot</a></p>"));
  BOOST_TEST(contains(html,
                      "<ul>\n<li>VON higher &amp; more <a href=\"#problem-x\">→ "
                      "section</a></li>\n<li>no link</li>\n</ul>\n"));
}

BOOST_AUTO_TEST_CASE(write_report_writes_both_or_nothing) {
  TempDir dir;
  report::write_report(sample(dir), dir.path);
  BOOST_TEST(contains(read_file(dir.path / "report.html"), "<h2>Second</h2>"));
  BOOST_TEST(contains(read_file(dir.path / "report.md"), "## Second"));
  TempDir other;
  report::Report broken = sample(other);
  fs::remove(other.path / "plots" / "b.png");
  try {
    report::write_report(broken, other.path);
    BOOST_FAIL("no FileError");
  } catch (const ngvi::io::FileError& e) {
    BOOST_TEST(contains(e.what(), "b.png"), e.what());
  }
  BOOST_TEST(!fs::exists(other.path / "report.html"));
  BOOST_TEST(!fs::exists(other.path / "report.md"));
}

BOOST_AUTO_TEST_SUITE_END()
