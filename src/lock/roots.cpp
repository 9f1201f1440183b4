// The roots of a lock's dependency graph: the entries of its source components.

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vwheel/lock/pylock.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel_name/names.hpp"

namespace vwheel::lock {
namespace {

/// Whether an edge's `version` names an entry's: as PEP 440 versions (`2.0` is `2.0.0`), else as text.
bool same_version(const std::string& text, const std::optional<pep440::Version>& parsed, const std::string& other) {
  auto v = pep440::Version::parse(other);
  return parsed && v ? *parsed == *v : text == other;
}

/// The edges of the graph: for each entry, the entries its `dependencies` name.
std::vector<std::vector<std::size_t>> edges_of(const std::vector<const LockedPackage*>& packages) {
  std::map<std::string, std::vector<std::size_t>> by_name;
  std::vector<std::optional<pep440::Version>> versions;
  for (std::size_t i = 0; i < packages.size(); ++i) {
    by_name[wheel_name::canonicalize_name(packages[i]->name)].push_back(i);
    auto v = pep440::Version::parse(packages[i]->version);
    versions.push_back(v ? std::optional<pep440::Version>(std::move(*v)) : std::nullopt);
  }
  std::vector<std::vector<std::size_t>> edges(packages.size());
  for (std::size_t i = 0; i < packages.size(); ++i) {
    for (const auto& d : packages[i]->dependencies) {
      auto n = d.find("name");
      if (n == d.end()) continue;
      auto entries = by_name.find(wheel_name::canonicalize_name(n->second));
      if (entries == by_name.end()) continue;
      auto v = d.find("version");
      for (auto j : entries->second) {
        if (v == d.end() || same_version(packages[j]->version, versions[j], v->second)) edges[i].push_back(j);
      }
    }
  }
  return edges;
}

/// Tarjan's algorithm, with an explicit stack (a lock may hold thousands of entries in one chain):
/// the strongly connected component of each node, numbered from 0.
std::vector<std::size_t> components_of(const std::vector<std::vector<std::size_t>>& edges, std::size_t& count) {
  constexpr auto unvisited = std::numeric_limits<std::size_t>::max();
  const std::size_t n = edges.size();
  std::vector<std::size_t> order(n, unvisited);  // when the search first reached the node
  std::vector<std::size_t> low(n, 0);            // the earliest node on the stack it reaches
  std::vector<std::size_t> component(n, unvisited);
  std::vector<std::size_t> stack;
  std::vector<bool> on_stack(n, false);
  std::vector<std::pair<std::size_t, std::size_t>> calls;  // (node, its next edge)
  std::size_t visited = 0;
  count = 0;
  auto enter = [&](std::size_t v) {
    order[v] = low[v] = visited++;
    stack.push_back(v);
    on_stack[v] = true;
    calls.emplace_back(v, 0);
  };
  for (std::size_t start = 0; start < n; ++start) {
    if (order[start] != unvisited) continue;
    enter(start);
    while (!calls.empty()) {
      const std::size_t v = calls.back().first;
      if (std::size_t& next = calls.back().second; next < edges[v].size()) {
        const std::size_t w = edges[v][next++];
        if (order[w] == unvisited) {
          enter(w);
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], order[w]);
        }
        continue;
      }
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[v]);
      if (low[v] != order[v]) continue;
      // v is the first node of its component: the component is the stack down to v.
      std::size_t w = unvisited;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = false;
        component[w] = count;
      } while (w != v);
      ++count;
    }
  }
  return component;
}

}  // namespace

std::vector<std::size_t> root_packages(const std::vector<const LockedPackage*>& packages) {
  const auto edges = edges_of(packages);
  std::size_t count = 0;
  const auto component = components_of(edges, count);
  // A component is entered when an edge reaches it from another one; the others are the sources.
  std::vector<bool> entered(count, false);
  for (std::size_t v = 0; v < edges.size(); ++v) {
    for (auto w : edges[v]) {
      if (component[w] != component[v]) entered[component[w]] = true;
    }
  }
  std::vector<std::size_t> roots;
  for (std::size_t v = 0; v < packages.size(); ++v) {
    if (!entered[component[v]]) roots.push_back(v);
  }
  return roots;
}

}  // namespace vwheel::lock
