// Tests of app/report/markdown_report.hpp: headings, pipe tables with '|' escaped, figure links
// relative to the report folder (SVG first, PNG beside it), verdicts as block quotes with their
// statistic and "k of n seeds" when given.
#include <string>

#include <app/report/markdown_report.hpp>
#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(markdown_report_test)

namespace report = ngvi::app::report;

BOOST_AUTO_TEST_CASE(renders_every_block) {
  report::Report r;
  r.title = "Study";
  r.introduction = {{"Intro."}};
  r.sections.push_back(
      {"Results",
       {report::Paragraph{"Text."}, report::Table{"cap", {"method", "RMSE"}, {{"a|b", "2.9"}}},
        report::Figure{"fig", "plots/a.svg", "plots/a.png"},
        report::Figure{"png only", "", "plots/b.png"},
        report::Verdict{"claim", false, "numbers", false, "", false},
        report::Verdict{"identity", true, "0", true, "Khan et al. 2018", false}}});
  const std::string expected =
      "# Study\n\nIntro.\n\n## Results\n\nText.\n\n*cap*\n\n| method | RMSE |\n| --- | ---: |\n| "
      "a\\|b | 2.9 |\n\n"
      "![fig](plots/a.svg) ([PNG](plots/a.png))\n\n![png only](plots/b.png)\n\n> **Refuted:** "
      "claim. numbers\n\n> **Check passed:** identity. 0 (Khan et al. 2018)\n\n";
  BOOST_TEST(report::render_markdown(r) == expected);
}

BOOST_AUTO_TEST_CASE(verdict_over_seeds_shows_statistic_and_seed_count) {
  report::Verdict v{"VON's ELBO is higher", true, "seed 1: 0.4", false, "Zhang et al. 2018", false};
  v.statistic = "difference = 0.35, 95% t-interval [0.1, 0.6]";
  v.seeds = 5;
  v.seeds_holding = 4;
  report::Verdict only_seeds = v;
  only_seeds.statistic.clear();
  report::Report r;
  r.title = "S";
  r.sections.push_back({"F", {v, only_seeds}});
  const std::string expected =
      "# S\n\n## F\n\n> **Confirmed:** VON's ELBO is higher. *difference = 0.35, 95% t-interval "
      "[0.1, 0.6]; 4 of 5 seeds.* seed 1: 0.4 (Zhang et al. 2018)\n\n> **Confirmed:** VON's ELBO "
      "is higher. *4 of 5 seeds.* seed 1: 0.4 (Zhang et al. 2018)\n\n";
  BOOST_TEST(report::render_markdown(r) == expected);
}

BOOST_AUTO_TEST_CASE(anchors_and_links) {
  report::Verdict v{"claim", true, "numbers", false, "", false};
  v.id = "verdict-3";
  v.figure_id = "fig-a";
  v.figure_text = "a_plot";
  report::Figure f{"fig", "plots/a.svg", "", "fig-a"};
  report::Report r;
  r.title = "S";
  r.sections.push_back(
      {"Summary", {report::List{{{"VON a|b", "→ section", "p-x"}, {"plain", "", ""}}}}, "summary"});
  r.sections.push_back({"X", {f, v}, "p-x"});
  const std::string expected =
      "# S\n\n<a id=\"summary\"></a>\n\n## Summary\n\n- VON a\\|b [→ section](#p-x)\n- plain\n\n"
      "<a id=\"p-x\"></a>\n\n## X\n\n<a id=\"fig-a\"></a>![fig](plots/a.svg)\n\n> <a "
      "id=\"verdict-3\"></a>**Confirmed:** claim. numbers (plot: [a_plot](#fig-a))\n\n";
  BOOST_TEST(report::render_markdown(r) == expected);
}

BOOST_AUTO_TEST_SUITE_END()
