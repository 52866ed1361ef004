// The method table (app/methods/method_table.hpp, method_info.hpp): every name is its library
// options' Options::name or extends it, names and aliases are unique, the old command-line
// spellings find their methods, and the command line's defaults are those `ngvi fit --help` and
// docs/cli.md have documented since before the table (the per-method switches it replaced).
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <app/cli/exit_codes.hpp>
#include <app/methods/method_info.hpp>
#include <app/methods/method_table.hpp>
#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(method_table_test)

namespace app = ngvi::app;

BOOST_AUTO_TEST_CASE(names_are_the_library_options_names) {
  std::size_t rows = 0;
  app::for_each_method_row([&](const auto& row) {
    using Options = typename std::decay_t<decltype(row)>::options_type;
    const std::string key = Options::name;
    const std::string& name = row.info.name;
    BOOST_TEST_CONTEXT("row " << name) {
      BOOST_TEST((name == key || name.rfind(key + "_", 0) == 0));
      BOOST_TEST((row.info.in_tool || row.info.in_study));
    }
    ++rows;
  });
  BOOST_TEST(rows == app::method_table().size());
}

BOOST_AUTO_TEST_CASE(names_and_aliases_are_unique) {
  std::set<std::string> seen;
  std::set<std::string> colors;
  for (const app::MethodInfo& m : app::method_table()) {
    BOOST_TEST_CONTEXT("row " << m.name << ", alias '" << m.alias << "', colour " << m.color) {
      BOOST_TEST(seen.insert(m.name).second);
      if (!m.alias.empty()) BOOST_TEST(seen.insert(m.alias).second);
      BOOST_TEST(colors.insert(m.color).second);
      BOOST_TEST(m.color.size() == 7u);
      BOOST_TEST(!m.label.empty());
      BOOST_TEST(!m.what.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(old_spellings_find_their_methods) {
  const std::pair<const char*, const char*> spellings[] = {{"bbb", "bayes_by_backprop"},
                                                           {"noisy-adam", "noisy_adam"},
                                                           {"noisy-kfac", "noisy_kfac"},
                                                           {"laplace", "map_laplace"},
                                                           {"vogn", "vogn"}};
  for (const auto& [given, name] : spellings) {
    BOOST_TEST(app::tool_method(given).name == name);
    BOOST_TEST(app::find_method(given)->name == name);
  }
  BOOST_TEST(app::find_method("nosuch") == nullptr);
  // A study variant is a row the command line does not run.
  BOOST_TEST(app::find_method("vogn_ggn") != nullptr);
  BOOST_CHECK_EXCEPTION(
      app::tool_method("vogn_ggn"), app::UsageError, [](const app::UsageError& e) {
        return std::string(e.what()).find(
                   "the methods are vogn, von, slang, ivon, noisy_adam, noisy_kfac, "
                   "bayes_by_backprop, map, map_laplace, map_last_layer_laplace") !=
               std::string::npos;
      });
}

BOOST_AUTO_TEST_CASE(tool_defaults_are_the_documented_ones) {
  // (epochs, step size) of each method as docs/cli.md gives them.
  const std::map<std::string, std::pair<Eigen::Index, double>> documented = {
      {"vogn", {200, 0.01}},
      {"slang", {200, 0.01}},
      {"von", {40, 0.1}},
      {"ivon", {200, 0.05}},
      {"noisy_adam", {800, 0.01}},
      {"noisy_kfac", {200, 0.01}},
      {"bayes_by_backprop", {800, 0.01}},
      {"map", {1000, 0.01}},
      {"map_laplace", {2000, 0.01}},
      {"map_last_layer_laplace", {2000, 0.01}}};
  std::map<std::string, std::pair<Eigen::Index, double>> table;
  for (const app::MethodInfo& m : app::tool_methods()) table[m.name] = {m.epochs, m.learning_rate};
  BOOST_TEST((table == documented));
}

BOOST_AUTO_TEST_CASE(study_rows_keep_their_results_keys_and_order) {
  // results.json's method keys (app/study/README.md), in the order of its tables.
  const std::vector<std::string> keys = {"von",
                                         "von_diagonal",
                                         "vogn_full_ggn",
                                         "vogn_ggn",
                                         "vogn_empirical_fisher",
                                         "vogn_mc_fisher",
                                         "slang_rank_1",
                                         "slang_rank_8",
                                         "slang_rank_32",
                                         "ivon",
                                         "ivon_short_memory",
                                         "noisy_adam",
                                         "noisy_kfac",
                                         "bayes_by_backprop",
                                         "map_laplace",
                                         "map_last_layer_laplace"};
  std::vector<std::string> names;
  for (const app::MethodInfo& m : app::study_methods()) names.push_back(m.name);
  BOOST_TEST(names == keys, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
