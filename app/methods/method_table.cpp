// The lookups of app/methods/method_info.hpp, over the rows of app/methods/method_table.hpp.
#include <stdexcept>
#include <string>

#include <app/cli/exit_codes.hpp>
#include <app/methods/method_info.hpp>
#include <app/methods/method_table.hpp>

namespace ngvi::app {

const std::vector<MethodInfo>& method_table() {
  static const std::vector<MethodInfo> infos = [] {
    std::vector<MethodInfo> v;
    for_each_method_row([&](const auto& row) { v.push_back(row.info); });
    return v;
  }();
  return infos;
}

const MethodInfo* find_method(std::string_view name) {
  for (const MethodInfo& m : method_table())
    if (m.name == name || (!m.alias.empty() && m.alias == name)) return &m;
  return nullptr;
}

const MethodInfo& method_info(std::string_view name) {
  for (const MethodInfo& m : method_table())
    if (m.name == name) return m;
  throw std::invalid_argument("ngvi::app::method_info: no method is called '" + std::string(name) +
                              "'");
}

std::vector<MethodInfo> tool_methods() {
  std::vector<MethodInfo> v;
  for (const MethodInfo& m : method_table())
    if (m.in_tool) v.push_back(m);
  return v;
}

std::vector<MethodInfo> study_methods() {
  std::vector<MethodInfo> v;
  for (const MethodInfo& m : method_table())
    if (m.in_study) v.push_back(m);
  return v;
}

std::string tool_method_names() {
  std::string names;
  for (const MethodInfo& m : method_table())
    if (m.in_tool) names += (names.empty() ? "" : ", ") + m.name;
  return names;
}

const MethodInfo& tool_method(std::string_view name) {
  const MethodInfo* m = find_method(name);
  if (m == nullptr || !m->in_tool)
    throw UsageError("unknown method '" + std::string(name) + "'; the methods are " +
                     tool_method_names());
  return *m;
}

}  // namespace ngvi::app
