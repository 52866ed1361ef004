// Report: the content of a report folder's report.html and report.md, as plain data.
//
// A report is a title, an introduction and sections; a section holds, in order, paragraphs,
// bulleted lists whose items may link to a place in the report, tables, figures (drawn files in
// the report folder, app/plot/render.hpp) and verdicts (a claim, whether the numbers confirm it,
// and the numbers). Sections, figures and verdicts may carry an id, the target of such links
// (HTML: the element's id; Markdown: an <a id> before it). app/report/html_report.hpp and
// markdown_report.hpp render the same Report, so the two files never disagree.
#pragma once

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace ngvi::app::report {

struct Paragraph {
  std::string text;  // plain text; rendering escapes it
};

// One bullet: its text, then, when `target` is set, a link to the block or section with that id.
struct Item {
  std::string text;       // plain text; rendering escapes it
  std::string link_text;  // the link's words (empty: none)
  std::string target;     // the id linked to
};

struct List {
  std::vector<Item> items;
};

struct Table {
  std::string caption;                         // empty: none
  std::vector<std::string> header;             // column titles
  std::vector<std::vector<std::string>> rows;  // each as many cells as the header
};

struct Figure {
  std::string caption;
  std::filesystem::path svg;  // relative to the report folder; empty: none
  std::filesystem::path png;  // relative to the report folder; empty: none (at least one is set)
  std::string id{};           // link target; empty: none
};

struct Verdict {
  std::string claim;          // e.g. "the GGN approaches the Hessian as training goes on"
  bool confirmed = false;     // whether the numbers support the claim (a check: whether it passed)
  std::string evidence;       // the numbers
  bool check = false;         // an identity that holds by construction, not a finding
  std::string citation;       // where the claim comes from (authors, year); empty: none
  bool inconclusive = false;  // a finding the numbers cannot decide (confirmed is then false)
  // The statistic the status rests on, with its interval over seeds ("ELBO difference 0.35,
  // 95% interval [0.1, 0.6]"); empty: not given.
  std::string statistic{};
  int seeds = 0;          // seeds the claim was judged on; 0: not said
  int seeds_holding = 0;  // of them, those on which the claim holds individually
  std::string id{};       // link target; empty: none
  // The figure the verdict rests on (its id and words, shown as a link); empty: none.
  std::string figure_id{};
  std::string figure_text{};

  // "Confirmed" / "Refuted" / "Inconclusive" for a finding, "Check passed" / "Check failed" for
  // a check.
  std::string status() const {
    if (check) return confirmed ? "Check passed" : "Check failed";
    return inconclusive ? "Inconclusive" : confirmed ? "Confirmed" : "Refuted";
  }
  // The CSS class of its colour: confirmed, refuted or inconclusive.
  std::string css_class() const {
    return inconclusive ? "inconclusive" : confirmed ? "confirmed" : "refuted";
  }
  // "<statistic>; k of n seeds. " from what is given; empty when neither is.
  std::string over_seeds() const {
    std::string seeds_text;
    if (seeds > 0)
      seeds_text = std::to_string(seeds_holding) + " of " + std::to_string(seeds) +
                   (seeds == 1 ? " seed" : " seeds");
    if (statistic.empty() && seeds_text.empty()) return "";
    return statistic + (statistic.empty() || seeds_text.empty() ? "" : "; ") + seeds_text + ". ";
  }
  // The evidence, then the citation in parentheses.
  std::string evidence_cited() const {
    return citation.empty() ? evidence : evidence + " (" + citation + ")";
  }
};

using Block = std::variant<Paragraph, List, Table, Figure, Verdict>;

struct Section {
  std::string heading;
  std::vector<Block> blocks;
  std::string id{};  // link target; empty: "s<position from 1>"
};

struct Report {
  std::string title;
  std::vector<Paragraph> introduction;
  std::vector<Section> sections;
};

}  // namespace ngvi::app::report
