// bench_table: turns Google Benchmark's JSON output of bench_ad_workloads into a Markdown table
// of ngvi against the analytic (hand-written Eigen) references — time, ratio, target, the peer
// libraries' ratios from peers/ad/results.md, and whether the target is met.
//
// Usage: bench_table RESULTS.json [--stat median|min|mean] [--load-after "a b c"] [--out FILE.md]
//
// Benchmarks are named "<workload>/<implementation>" (Google Benchmark may append
// "/process_time", "/real_time"). With --benchmark_repetitions the statistic is taken over the
// repetitions (iteration entries; aggregate entries are ignored, so any aggregate flags work);
// with one repetition the single measurement is used. Ratios are given for wall (real) time and
// for process CPU time; targets are judged on CPU time, which time-slicing on a shared machine
// disturbs far less than wall time for single-threaded work.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace {

using json = nlohmann::json;

// ------------------------------------------------------------------------------ what we report

struct Peer {
  const char* name;
  double ratio;  // time / analytic time, wall clock, from peers/ad/results.md
};

struct Row {
  const char* workload;  // benchmark workload id
  const char* impl;      // benchmark implementation name; "name*": the fastest (CPU) of name,
                         // name_K4, name_K16, ... (the tangent widths of a Hessian)
  const char* label;     // what the row measures
  double target;         // ratio target; 0 = none (informational row)
  std::vector<Peer> peers;
};

// Peer figures: ratio to the analytic reference (wall clock, median) as measured by the peer
// harness on this machine (peers/ad/results.md). "Stan" = scalar var on the generic loop code,
// "Stan matrix" = Stan's vectorised matrix functions, "ADOL-C" = tape recorded once and reused,
// "PyTorch" = PyTorch CPU with OpenBLAS, "Sacado" = best Sacado mode.
const std::vector<Row>& rows() {
  static const std::vector<Row> r = {
      {"W1_chain_grad",
       "ngvi_scalar",
       "W1 chain n=1e5, gradient — scalar loop over Var",
       3.5,
       {{"Stan", 12.5}, {"ADOL-C", 13.9}, {"PyTorch", 2.7}}},
      {"W1_chain_grad",
       "ngvi_fused",
       "W1 chain n=1e5, gradient — fused nodes, input as one matrix variable",
       2.0,
       {{"Stan matrix", 11.3}, {"PyTorch", 2.7}}},
      {"W2_mlp_grad",
       "ngvi_fused",
       "W2 MLP 13-50-1 N=455, gradient — fused, written as the user guide shows",
       1.6,
       {{"Stan matrix", 8.9}, {"PyTorch", 2.9}}},
      {"W2_mlp_grad",
       "ngvi_scalar",
       "W2 MLP, gradient — scalar loop",
       0.0,
       {{"Stan", 45.0}, {"ADOL-C", 40.0}}},
      {"W3_mlp_hvp",
       "ngvi_fused",
       "W3 MLP, Hessian-vector product — fused, written as the user guide shows",
       3.0,
       {{"Stan", 77.0}, {"ADOL-C", 54.0}, {"PyTorch", 4.3}}},
      {"W3_mlp_hvp",
       "ngvi_scalar",
       "W3 MLP, HVP — scalar loop",
       0.0,
       {{"Stan", 77.0}, {"ADOL-C", 54.0}}},
      {"W4_mlp_hessian",
       "ngvi_fused*",
       "W4 MLP 13-10-1 N=100, full Hessian 151² — fused, best K",
       9.0,
       {{"Stan", 562.0}, {"ADOL-C", 657.0}, {"Sacado", 198.0}, {"PyTorch", 44.5}}},
      {"W4_mlp_hessian",
       "ngvi_scalar",
       "W4 MLP, full Hessian — scalar loop",
       0.0,
       {{"Stan", 562.0}, {"ADOL-C", 657.0}, {"Sacado", 198.0}}},
      // W5: slot for the nn module's per-example gradients (peer figures from results.md).
      {"W5_per_example_1t",
       "ngvi_nn",
       "W5 per-example grads 455×751 + sq-mean, 1 thread — nn",
       1.2,
       {{"Stan matrix", 13.7}, {"Sacado", 20.1}, {"PyTorch", 7.7}}},
      {"W5_per_example_1t",
       "ngvi_scalar",
       "W5 1 thread — per_example_gradients, scalar loop",
       0.0,
       {{"Stan", 23.5}, {"ADOL-C", 38.5}, {"Sacado", 20.1}}},
      {"W5_per_example_2t",
       "ngvi_nn",
       "W5 same, 2 threads (wall) — nn",
       0.0,
       {{"Stan matrix", 5.7}, {"PyTorch", 5.9}}},
      {"W5_per_example_2t",
       "ngvi_scalar",
       "W5 2 threads (wall) — per_example_gradients, scalar loop",
       0.0,
       {{"Stan", 9.6}}},
      {"W6_logreg_grad",
       "ngvi_fused",
       "W6 logistic d=30 N=569, gradient — fused",
       1.8,
       {{"Stan", 41.0}, {"Stan matrix", 5.3}, {"PyTorch", 14.0}}},
      {"W6_logreg_grad",
       "ngvi_scalar",
       "W6 logistic, gradient — scalar loop",
       0.0,
       {{"Stan", 41.0}, {"ADOL-C", 41.5}}},
      {"W6_logreg_hessian",
       "ngvi_fused*",
       "W6 logistic, Hessian 31² — fused, best K",
       3.5,
       {{"Stan", 267.0}, {"Sacado", 51.7}, {"PyTorch", 13.0}}},
      {"W6_logreg_hessian",
       "ngvi_scalar",
       "W6 logistic, Hessian — scalar loop",
       0.0,
       {{"Stan", 267.0}, {"ADOL-C", 308.0}, {"Sacado", 51.7}}},
      // W7 is ngvi's own workload (no peer figures): the analytic reference is w7_curvature.cpp's.
      {"W7_ggn_diagonal", "ngvi_nn", "W7 GGN diagonal, MLP 13-50-1 N=455, 1 thread — nn", 2.0, {}},
      {"W7_ggn_full", "ngvi_nn", "W7 GGN full 151², MLP 13-10-1 N=455, 1 thread — nn", 3.0, {}},
  };
  return r;
}

// ------------------------------------------------------------------------------ measurements

struct Measurement {
  double wall_us = NAN;
  double cpu_us = NAN;
  int samples = 0;
  double spread = NAN;  // max/min of the wall time over repetitions
  std::map<std::string, double> counters;
  std::string error;
};

double to_us(double t, const std::string& unit) {
  if (unit == "ns") return t * 1e-3;
  if (unit == "us") return t;
  if (unit == "ms") return t * 1e3;
  if (unit == "s") return t * 1e6;
  return t;
}

std::string strip_suffixes(std::string name) {
  for (bool again = true; again;) {
    again = false;
    for (const char* suffix : {"/process_time", "/real_time", "/manual_time"}) {
      const std::string s(suffix);
      if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
        name.resize(name.size() - s.size());
        again = true;
      }
    }
  }
  return name;
}

double statistic(std::vector<double> v, const std::string& stat) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  if (stat == "min") return v.front();
  if (stat == "mean") {
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
  }
  const std::size_t k = v.size();
  return (k % 2) ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

std::map<std::string, Measurement> load(const json& j, const std::string& stat) {
  struct Acc {
    std::vector<double> wall, cpu;
    std::map<std::string, double> counters;
    std::string error;
  };
  std::map<std::string, Acc> acc;
  static const std::vector<std::string> known = {"name",
                                                 "family_index",
                                                 "per_family_instance_index",
                                                 "run_name",
                                                 "run_type",
                                                 "repetitions",
                                                 "repetition_index",
                                                 "threads",
                                                 "iterations",
                                                 "real_time",
                                                 "cpu_time",
                                                 "time_unit",
                                                 "aggregate_name",
                                                 "aggregate_unit",
                                                 "error_occurred",
                                                 "error_message",
                                                 "label"};
  for (const json& b : j.at("benchmarks")) {
    const std::string run_type = b.value("run_type", "iteration");
    if (run_type != "iteration") continue;
    const std::string name = strip_suffixes(b.value("run_name", b.value("name", "")));
    Acc& a = acc[name];
    if (b.value("error_occurred", false)) {
      a.error = b.value("error_message", "error");
      continue;
    }
    const std::string unit = b.value("time_unit", "ns");
    a.wall.push_back(to_us(b.at("real_time").get<double>(), unit));
    a.cpu.push_back(to_us(b.at("cpu_time").get<double>(), unit));
    for (auto it = b.begin(); it != b.end(); ++it)
      if (it.value().is_number() && std::find(known.begin(), known.end(), it.key()) == known.end())
        a.counters[it.key()] = it.value().get<double>();
  }
  std::map<std::string, Measurement> out;
  for (auto& [name, a] : acc) {
    Measurement m;
    m.error = a.error;
    m.samples = static_cast<int>(a.wall.size());
    m.wall_us = statistic(a.wall, stat);
    m.cpu_us = statistic(a.cpu, stat);
    if (!a.wall.empty())
      m.spread = *std::max_element(a.wall.begin(), a.wall.end()) /
                 *std::min_element(a.wall.begin(), a.wall.end());
    m.counters = a.counters;
    out[name] = m;
  }
  return out;
}

// ------------------------------------------------------------------------------ formatting

std::string fmt_time(double us) {
  if (std::isnan(us)) return "—";
  if (us >= 1000.0) return fmt::format("{:.2f} ms", us / 1000.0);
  if (us >= 100.0) return fmt::format("{:.0f} µs", us);
  if (us >= 10.0) return fmt::format("{:.1f} µs", us);
  return fmt::format("{:.2f} µs", us);
}
std::string fmt_ratio(double r) {
  if (std::isnan(r)) return "—";
  if (r >= 100.0) return fmt::format("{:.0f}×", r);
  if (r >= 10.0) return fmt::format("{:.1f}×", r);
  return fmt::format("{:.2f}×", r);
}
std::string fmt_peers(const std::vector<Peer>& peers) {
  std::string s;
  for (const Peer& p : peers)
    s += fmt::format("{}{} {:g}×", s.empty() ? "" : ", ", p.name, p.ratio);
  return s.empty() ? "—" : s;
}
std::string best_peer(const std::vector<Peer>& peers) {
  if (peers.empty()) return "—";
  const Peer* b = &peers.front();
  for (const Peer& p : peers)
    if (p.ratio < b->ratio) b = &p;
  return fmt::format("{:g}× ({})", b->ratio, b->name);
}
std::string fmt_err(const Measurement& m) {
  const auto it = m.counters.find("rel_err");
  return it == m.counters.end() ? "—" : fmt::format("{:.1e}", it->second);
}

int usage() {
  std::cerr << "usage: bench_table RESULTS.json [--stat median|min|mean] [--load-after \"a b c\"] "
               "[--out FILE.md]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path, stat = "median", load_after, out_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--stat" || a == "--load-after" || a == "--out") && i + 1 < argc) {
      (a == "--stat" ? stat : a == "--out" ? out_path : load_after) = argv[++i];
    } else if (a == "-h" || a == "--help") {
      return usage();
    } else if (!a.empty() && a[0] != '-' && path.empty()) {
      path = a;
    } else {
      return usage();
    }
  }
  if (path.empty() || (stat != "median" && stat != "min" && stat != "mean")) return usage();

  json j;
  try {
    std::ifstream in(path);
    if (!in) {
      std::cerr << "bench_table: cannot open " << path << "\n";
      return 1;
    }
    // Google Benchmark writes non-finite numbers (e.g. the coefficient of variation of a
    // counter that is always 0) as bare NaN / inf, which is not JSON: read them as null.
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const char* bad :
         {": -nan", ": nan", ": NaN", ": -NaN", ": -inf", ": inf", ": Infinity", ": -Infinity"}) {
      const std::string b(bad);
      for (std::size_t pos = text.find(b); pos != std::string::npos; pos = text.find(b, pos))
        text.replace(pos, b.size(), ": null");
    }
    j = json::parse(text);
  } catch (const std::exception& e) {
    std::cerr << "bench_table: " << path << " is not Google Benchmark JSON: " << e.what() << "\n";
    return 1;
  }
  const auto meas = load(j, stat);
  auto find = [&](const std::string& workload, const std::string& impl) -> const Measurement* {
    if (impl.empty() || impl.back() != '*') {
      const auto it = meas.find(workload + "/" + impl);
      return it == meas.end() ? nullptr : &it->second;
    }
    const std::string exact = workload + "/" + impl.substr(0, impl.size() - 1);
    const Measurement* best = nullptr;
    for (const auto& [name, m] : meas)
      if ((name == exact || name.rfind(exact + "_K", 0) == 0) && m.error.empty() &&
          (best == nullptr || m.cpu_us < best->cpu_us))
        best = &m;
    return best;
  };

  std::string o;
  const json ctx = j.value("context", json::object());
  o += "# ngvi vs hand-written analytic derivatives (peer AD workloads W1–W6, curvature W7)\n\n";
  o += fmt::format("Run: {} on {} ({} CPUs at {} MHz), Google Benchmark library build: {}.\n",
                   ctx.value("date", "?"), ctx.value("host_name", "?"), ctx.value("num_cpus", 0),
                   ctx.value("mhz_per_cpu", 0), ctx.value("library_build_type", "?"));
  if (ctx.contains("load_avg") && ctx["load_avg"].is_array()) {
    std::string l;
    for (const auto& x : ctx["load_avg"])
      l += fmt::format("{}{:.2f}", l.empty() ? "" : " ", x.get<double>());
    o += fmt::format("Load average at start: {}{}.", l,
                     load_after.empty() ? "" : fmt::format("; at end: {}", load_after));
    o += " The machine has 2 shared vCPUs: anything above ~1 means other jobs competed for them.\n";
  }
  o += fmt::format(
      "\nTimes are the {} over repetitions of one call (value + requested derivatives); "
      "ratio = ngvi / analytic, same run. Targets are judged on the CPU-time ratio. "
      "`rel_err` is ngvi's derivative error against the analytic result (the run aborts above "
      "1e-10). "
      "Peer ratios: wall clock, peers/ad/results.md (Stan = scalar var, Stan matrix = vectorised "
      "functions, ADOL-C = reused tape, PyTorch = CPU + OpenBLAS).\n\n",
      stat);
  o += "| workload | analytic wall / CPU | ngvi wall / CPU | ratio wall | ratio CPU | target | met "
       "| "
       "best peer | peers | rel_err |\n";
  o += "|---|---|---|---|---|---|---|---|---|---|\n";
  int met = 0, missed = 0;
  std::vector<std::string> shown;
  for (const Row& r : rows()) {
    const Measurement* a = find(r.workload, "analytic");
    const Measurement* n = find(r.workload, r.impl);
    shown.push_back(std::string(r.workload) + "/" + r.impl);
    if (n == nullptr && std::string(r.impl) == "ngvi_nn") {
      o += fmt::format("| {} | {} | *pending (nn module)* | | | | | {} | {} | |\n", r.label,
                       a ? fmt::format("{} / {}", fmt_time(a->wall_us), fmt_time(a->cpu_us)) : "—",
                       best_peer(r.peers), fmt_peers(r.peers));
      continue;
    }
    if (n == nullptr || a == nullptr) {
      o += fmt::format(
          "| {} | {} | {} | | | {} | not run | {} | {} | |\n", r.label,
          a ? fmt::format("{} / {}", fmt_time(a->wall_us), fmt_time(a->cpu_us)) : "not run",
          n ? fmt::format("{} / {}", fmt_time(n->wall_us), fmt_time(n->cpu_us)) : "not run",
          r.target > 0 ? fmt::format("≤ {}×", r.target) : "—", best_peer(r.peers),
          fmt_peers(r.peers));
      continue;
    }
    if (!n->error.empty() || !a->error.empty()) {
      o += fmt::format("| {} | | | | | | error: {} | | | |\n", r.label,
                       n->error.empty() ? a->error : n->error);
      continue;
    }
    const double rw = n->wall_us / a->wall_us, rc = n->cpu_us / a->cpu_us;
    std::string label = r.label;
    if (const auto k = n->counters.find("K");
        std::string(r.impl).ends_with('*') && k != n->counters.end())
      label += fmt::format(" (K = {:g})", k->second);
    std::string verdict = "(info)";
    if (r.target > 0) {
      if (rc <= r.target) {
        verdict = "**yes**";
        ++met;
      } else {
        verdict = fmt::format("no ({:.2f}× the target)", rc / r.target);
        ++missed;
      }
      if ((rw <= r.target) != (rc <= r.target))
        verdict += fmt::format(" (wall: {})", rw <= r.target ? "yes" : "no");
    }
    o += fmt::format("| {} | {} / {} | {} / {} | {} | {} | {} | {} | {} | {} | {} |\n", label,
                     fmt_time(a->wall_us), fmt_time(a->cpu_us), fmt_time(n->wall_us),
                     fmt_time(n->cpu_us), fmt_ratio(rw), fmt_ratio(rc),
                     r.target > 0 ? fmt::format("≤ {}×", r.target) : "—", verdict,
                     best_peer(r.peers), fmt_peers(r.peers), fmt_err(*n));
  }
  o += fmt::format("\nTargets met: {} of {}.\n", met, met + missed);

  // Anything else in the file (extra variants, experiments): ratio to its workload's analytic.
  std::string extra;
  for (const auto& [name, m] : meas) {
    if (std::find(shown.begin(), shown.end(), name) != shown.end()) continue;
    const auto slash = name.find('/');
    const std::string workload = name.substr(0, slash),
                      impl = slash == std::string::npos ? "" : name.substr(slash + 1);
    if (impl == "analytic") continue;
    const Measurement* a = find(workload, "analytic");
    extra += fmt::format("| {} | {} / {} | {} | {} | {} |\n", name, fmt_time(m.wall_us),
                         fmt_time(m.cpu_us), a ? fmt_ratio(m.wall_us / a->wall_us) : "—",
                         a ? fmt_ratio(m.cpu_us / a->cpu_us) : "—", fmt_err(m));
  }
  if (!extra.empty()) {
    o += "\nOther benchmarks in this run:\n\n| benchmark | wall / CPU | ratio wall | ratio CPU | "
         "rel_err |\n|---|---|---|---|---|\n";
    o += extra;
  }

  // Noise: spread of the repetitions.
  std::string noise;
  for (const auto& [name, m] : meas)
    if (m.samples > 1)
      noise += fmt::format("{}{} {:.2f}", noise.empty() ? "" : ", ", name, m.spread);
  if (!noise.empty())
    o += fmt::format("\nNoise (max/min wall time over repetitions): {}.\n", noise);

  std::cout << o;
  if (!out_path.empty()) {
    std::ofstream f(out_path);
    f << o;
  }
  return 0;
}
