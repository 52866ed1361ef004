// render_markdown: a Report (app/report/report.hpp) as report.md, for reading in a terminal,
// a diff or a code-hosting site. Figures are links to the drawn files beside it (relative
// paths, SVG preferred), tables are pipe tables with '|' escaped, lists are bullets; a block or
// section with an id gets an <a id="..."></a> before it, the target of the "#id" links of list
// items and verdicts.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include <app/report/report.hpp>

namespace ngvi::app::report {

namespace detail {

inline std::string md_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

inline std::string md_anchor(const std::string& id) {
  return id.empty() ? std::string() : "<a id=\"" + id + "\"></a>";
}

struct MarkdownBlock {
  std::string operator()(const Paragraph& p) const { return p.text + "\n\n"; }
  std::string operator()(const List& l) const {
    std::string s;
    for (const Item& i : l.items) {
      s += "- " + md_cell(i.text);
      if (!i.target.empty() && !i.link_text.empty())
        s += " [" + md_cell(i.link_text) + "](#" + i.target + ")";
      s += "\n";
    }
    return s + "\n";
  }
  std::string operator()(const Table& t) const {
    std::string s;
    if (!t.caption.empty()) s += "*" + md_cell(t.caption) + "*\n\n";
    s += "|";
    for (const auto& h : t.header) s += " " + md_cell(h) + " |";
    s += "\n|";
    for (std::size_t c = 0; c < t.header.size(); ++c) s += c == 0 ? " --- |" : " ---: |";
    s += "\n";
    for (const auto& row : t.rows) {
      s += "|";
      for (const auto& cell : row) s += " " + md_cell(cell) + " |";
      s += "\n";
    }
    return s + "\n";
  }
  std::string operator()(const Figure& f) const {
    std::string s = md_anchor(f.id) + "![" + md_cell(f.caption) + "](" +
                    (f.svg.empty() ? f.png : f.svg).generic_string() + ")";
    if (!f.svg.empty() && !f.png.empty()) s += " ([PNG](" + f.png.generic_string() + "))";
    return s + "\n\n";
  }
  std::string operator()(const Verdict& v) const {
    const std::string seeds = v.over_seeds();
    return "> " + md_anchor(v.id) + "**" + v.status() + ":** " + v.claim + ". " +
           (seeds.empty() ? "" : "*" + seeds.substr(0, seeds.size() - 1) + "* ") +
           v.evidence_cited() +
           (v.figure_id.empty()
                ? ""
                : " (plot: [" + md_cell(v.figure_text) + "](#" + v.figure_id + "))") +
           "\n\n";
  }
};

}  // namespace detail

// Cost: O(size of the text).
inline std::string render_markdown(const Report& report) {
  std::string s = "# " + report.title + "\n\n";
  for (const Paragraph& p : report.introduction) s += p.text + "\n\n";
  for (const Section& sec : report.sections) {
    if (!sec.id.empty()) s += detail::md_anchor(sec.id) + "\n\n";
    s += "## " + sec.heading + "\n\n";
    for (const Block& b : sec.blocks) s += std::visit(detail::MarkdownBlock{}, b);
  }
  return s;
}

}  // namespace ngvi::app::report
