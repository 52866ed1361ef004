// render_html: a Report (app/report/report.hpp) as one self-contained HTML page.
//
// Everything the page shows is inside it: figures are inlined as data: URIs (the SVG when there
// is one, else the PNG), the style sheet is inline, and there is no script. A Content Security
// Policy (default-src 'none'; img-src data:) makes the browser refuse any fetch, so the page
// reads the same offline, from an e-mail attachment or years later; the browser test
// (test/app/report/) checks that every figure decodes and nothing is fetched. All text is HTML
// escaped.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <variant>

#include <app/report/report.hpp>
#include <io/atomic_write.hpp>
#include <io/base64.hpp>

namespace ngvi::app::report {

namespace detail {

inline std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A figure file of the report folder as a data: URI. Throws io::FileError if it cannot be read.
inline std::string data_uri(const std::filesystem::path& folder, const std::filesystem::path& file,
                            bool svg) {
  std::ifstream in(folder / file, std::ios::binary);
  if (!in) throw io::FileError("report: cannot read the figure " + (folder / file).string());
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty())
    throw io::FileError("report: the figure " + (folder / file).string() + " is empty");
  return std::string(svg ? "data:image/svg+xml;base64," : "data:image/png;base64,") +
         io::base64(bytes);
}

// A section's id: its own, else "s<position from 1>".
inline std::string anchor(const Section& sec, std::size_t i) {
  return sec.id.empty() ? "s" + std::to_string(i + 1) : sec.id;
}

inline std::string id_attribute(const std::string& id) {
  return id.empty() ? std::string() : " id=\"" + html_escape(id) + "\"";
}

struct HtmlBlock {
  const std::filesystem::path& folder;
  std::string operator()(const Paragraph& p) const {
    return "<p>" + html_escape(p.text) + "</p>\n";
  }
  std::string operator()(const List& l) const {
    std::string s = "<ul>\n";
    for (const Item& i : l.items) {
      s += "<li>" + html_escape(i.text);
      if (!i.target.empty() && !i.link_text.empty())
        s += " <a href=\"#" + html_escape(i.target) + "\">" + html_escape(i.link_text) + "</a>";
      s += "</li>\n";
    }
    return s + "</ul>\n";
  }
  std::string operator()(const Table& t) const {
    std::string s = "<table>\n";
    if (!t.caption.empty()) s += "<caption>" + html_escape(t.caption) + "</caption>\n";
    s += "<thead><tr>";
    for (const auto& h : t.header) s += "<th>" + html_escape(h) + "</th>";
    s += "</tr></thead>\n<tbody>\n";
    for (const auto& row : t.rows) {
      s += "<tr>";
      for (const auto& cell : row) s += "<td>" + html_escape(cell) + "</td>";
      s += "</tr>\n";
    }
    return s + "</tbody>\n</table>\n";
  }
  std::string operator()(const Figure& f) const {
    if (f.svg.empty() && f.png.empty())
      throw io::FileError("report: the figure '" + f.caption + "' has no file");
    const bool svg = !f.svg.empty();
    return "<figure" + id_attribute(f.id) + "><img src=\"" +
           data_uri(folder, svg ? f.svg : f.png, svg) + "\" alt=\"" + html_escape(f.caption) +
           "\"><figcaption>" + html_escape(f.caption) + "</figcaption></figure>\n";
  }
  std::string operator()(const Verdict& v) const {
    return "<p class=\"verdict " + v.css_class() + (v.check ? " check" : "") + "\"" +
           id_attribute(v.id) + "><strong>" + v.status() + ":</strong> " + html_escape(v.claim) +
           ". " + (v.over_seeds().empty() ? "" : "<em>" + html_escape(v.over_seeds()) + "</em>") +
           html_escape(v.evidence_cited()) +
           (v.figure_id.empty() ? ""
                                : " <a href=\"#" + html_escape(v.figure_id) +
                                      "\">plot: " + html_escape(v.figure_text) + "</a>") +
           "</p>\n";
  }
};

}  // namespace detail

// The page for `report`, whose figure paths are relative to `folder`. Throws io::FileError if a
// figure cannot be read. Cost: O(size of the text and the figures).
inline std::string render_html(const Report& report, const std::filesystem::path& folder) {
  using detail::html_escape;
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
      "style-src "
      "'unsafe-inline'\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>" +
      html_escape(report.title) +
      "</title>\n<style>\n"
      "body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 "
      "1rem;line-height:1.5;"
      "color:#222}\n"
      "table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #ccc;padding:.25rem "
      ".6rem;"
      "text-align:right}\n"
      "th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}caption{text-align:left;"
      "font-style:italic}\n"
      "figure{margin:1rem 0}figure img{max-width:100%;height:auto;border:1px solid #eee}\n"
      "figcaption{font-size:.9rem;color:#555}.verdict{padding:.5rem .8rem;border-left:4px solid}\n"
      ".confirmed{border-color:#2ca02c;background:#f0faf0}.refuted{border-color:#d62728;background:"
      "#fdf0f0}.inconclusive{border-color:#999;background:#f5f5f5}\n"
      "</style>\n</head>\n<body>\n<h1>" +
      html_escape(report.title) + "</h1>\n";
  for (const Paragraph& p : report.introduction) s += "<p>" + html_escape(p.text) + "</p>\n";
  if (report.sections.size() > 1) {
    s += "<nav><ul>\n";
    for (std::size_t i = 0; i < report.sections.size(); ++i)
      s += "<li><a href=\"#" + detail::anchor(report.sections[i], i) + "\">" +
           html_escape(report.sections[i].heading) + "</a></li>\n";
    s += "</ul></nav>\n";
  }
  const detail::HtmlBlock block{folder};
  for (std::size_t i = 0; i < report.sections.size(); ++i) {
    const Section& sec = report.sections[i];
    s += "<section id=\"" + detail::anchor(sec, i) + "\">\n<h2>" + html_escape(sec.heading) +
         "</h2>\n";
    for (const Block& b : sec.blocks) s += std::visit(block, b);
    s += "</section>\n";
  }
  return s + "</body>\n</html>\n";
}

}  // namespace ngvi::app::report
