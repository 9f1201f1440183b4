// The environments a universal lock covers, and the markers that say which of them an entry is for:
// evaluating the marker on every environment of the universe gives exactly membership, and typical
// shapes read as what they mean.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "plan/lock_markers.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::plan::detail {
namespace {

markers::Environment host() {
  markers::Environment env;
  env.variables = {{"os_name", "posix"},
                   {"sys_platform", "linux"},
                   {"platform_system", "Linux"},
                   {"platform_machine", "x86_64"},
                   {"platform_release", "6.1"},
                   {"platform_version", "#1"},
                   {"python_version", "3.12"},
                   {"python_full_version", "3.12.3"},
                   {"implementation_name", "cpython"},
                   {"implementation_version", "3.12.3"},
                   {"platform_python_implementation", "CPython"}};
  return env;
}

std::vector<markers::Environment> universe(const char* requires_python = nullptr) {
  std::optional<pep440::SpecifierSet> spec;
  if (requires_python) spec = *pep440::SpecifierSet::parse(requires_python);
  return lock_universe(host(), spec);
}

/// Fails the test unless the marker holds in exactly the members.
void expect_exact(const std::vector<markers::Environment>& envs, const std::vector<bool>& members) {
  auto m = environment_marker(envs, members);
  ASSERT_TRUE(m) << m.error().message;
  if (!*m) {
    for (bool b : members) ASSERT_TRUE(b);
    return;
  }
  EXPECT_EQ(m->value().find("variant"), std::string::npos) << **m;
  auto parsed = markers::Marker::parse(**m);
  ASSERT_TRUE(parsed) << **m;
  for (std::size_t i = 0; i < envs.size(); ++i) {
    auto v = parsed->evaluate(envs[i]);
    ASSERT_TRUE(v) << **m;
    ASSERT_EQ(*v, members[i]) << **m << " in environment " << i;
  }
}

std::string marker_for(const std::vector<markers::Environment>& envs,
                       const std::function<bool(const markers::Environment&)>& member) {
  std::vector<bool> members;
  for (const auto& e : envs) members.push_back(member(e));
  auto m = environment_marker(envs, members);
  EXPECT_TRUE(m) << m.error().message;
  return m && *m ? **m : "<none>";
}

std::string var(const markers::Environment& e, const char* name) { return e.variables.at(name); }

int minor(const markers::Environment& e) { return std::stoi(var(e, "python_version").substr(2)); }

TEST(LockUniverse, EveryPlatformImplementationAndPython) {
  const auto envs = universe();
  // The host, CPython 6 platforms x 3.9-3.15, PyPy 6 platforms x 3.9-3.11.
  ASSERT_EQ(envs.size(), 1u + 6 * 7 + 6 * 3);
  EXPECT_EQ(var(envs[0], "python_full_version"), "3.12.3");
  for (const auto& e : envs) {
    const auto sys = var(e, "sys_platform");
    EXPECT_EQ(var(e, "os_name"), sys == "win32" ? "nt" : "posix");
    EXPECT_EQ(var(e, "platform_system"), sys == "win32" ? "Windows" : sys == "linux" ? "Linux" : "Darwin");
    EXPECT_EQ(var(e, "platform_python_implementation"), var(e, "implementation_name") == "pypy" ? "PyPy" : "CPython");
    EXPECT_TRUE(var(e, "python_full_version").starts_with(var(e, "python_version") + "."));
  }
}

TEST(LockUniverse, RequiresPythonLeavesOutWhatItExcludes) {
  const auto envs = universe(">=3.11");
  for (const auto& e : envs) EXPECT_NE(var(e, "python_version"), "3.10");
  ASSERT_EQ(envs.size(), 1u + 6 * 5 + 6 * 1);
  EXPECT_EQ(universe(">=3.13").front().variables.at("python_version"), "3.13");  // the host is left out
}

TEST(EnvironmentMarker, ExactOnEverySubsetOfSmallUniverses) {
  for (const char* spec : {">=3.14", ">=3.11,<3.12", ">=3.12.3,<3.13"}) {
    const auto envs = universe(spec);
    ASSERT_LE(envs.size(), 13u) << spec;
    for (std::uint32_t bits = 1; bits < (1u << envs.size()); ++bits) {
      std::vector<bool> members;
      for (std::size_t i = 0; i < envs.size(); ++i) members.push_back((bits >> i) & 1u);
      ASSERT_NO_FATAL_FAILURE(expect_exact(envs, members)) << spec << " subset " << bits;
    }
  }
}

TEST(EnvironmentMarker, ExactOnGeneratedSubsetsOfTheWholeUniverse) {
  const auto envs = universe();
  std::mt19937 random(52);
  for (int round = 0; round < 3000; ++round) {
    std::vector<bool> members(envs.size(), false);
    if (round % 3 == 0) {  // any subset
      std::bernoulli_distribution coin(0.1 + 0.8 * (round % 7) / 6.0);
      for (std::size_t i = 0; i < envs.size(); ++i) members[i] = coin(random);
    } else {  // the shapes forks make: a union of blocks of platforms x implementations x Pythons
      const int blocks = 1 + round % 3;
      for (int b = 0; b < blocks; ++b) {
        const auto sys = std::vector<std::string>{"linux", "win32", "darwin", ""}[random() % 4];
        const auto impl = std::vector<std::string>{"cpython", "pypy", ""}[random() % 3];
        const int low = 9 + static_cast<int>(random() % 7), high = low + static_cast<int>(random() % 7);
        for (std::size_t i = 0; i < envs.size(); ++i) {
                    if ((sys.empty() || var(envs[i], "sys_platform") == sys) &&
              (impl.empty() || var(envs[i], "implementation_name") == impl) && minor(envs[i]) >= low && minor(envs[i]) <= high) {
            members[i] = true;
          }
        }
      }
    }
    if (std::none_of(members.begin(), members.end(), [](bool b) { return b; })) continue;
    ASSERT_NO_FATAL_FAILURE(expect_exact(envs, members)) << "round " << round;
  }
}

TEST(EnvironmentMarker, ReadsAsWhatItMeans) {
  const auto envs = universe();
  EXPECT_EQ(marker_for(envs, [](const auto&) { return true; }), "<none>");
  EXPECT_EQ(marker_for(envs, [](const auto& e) { return var(e, "sys_platform") == "linux"; }), "sys_platform == \"linux\"");
  EXPECT_EQ(marker_for(envs, [](const auto& e) { return var(e, "sys_platform") != "win32"; }), "sys_platform != \"win32\"");
  EXPECT_EQ(marker_for(envs, [](const auto& e) { return var(e, "implementation_name") == "pypy"; }),
            "implementation_name == \"pypy\"");
  EXPECT_EQ(marker_for(envs, [](const auto& e) { return var(e, "platform_machine") == "i686"; }),
            "sys_platform == \"linux\" and platform_machine == \"i686\"");
  // A range reaching the newest Python is open upwards; PyPy stopping at 3.11 needs no term.
  EXPECT_EQ(marker_for(envs, [](const auto& e) { return minor(e) >= 12; }),
            "python_full_version >= \"3.12\"");
  EXPECT_EQ(marker_for(envs, [](const auto& e) { return var(e, "python_version") == "3.9"; }),
            "python_full_version < \"3.10\"");
  EXPECT_EQ(marker_for(envs, [](const auto& e) { return var(e, "python_version") == "3.10"; }),
            "python_version == \"3.10\"");
  EXPECT_EQ(marker_for(envs,
                       [](const auto& e) {
                         return var(e, "sys_platform") == "darwin" && minor(e) < 12 && minor(e) >= 10;
                       }),
            "sys_platform == \"darwin\" and python_full_version >= \"3.10\" and python_full_version < \"3.12\"");
  EXPECT_EQ(marker_for(envs,
                       [](const auto& e) {
                         return var(e, "sys_platform") == "linux" ||
                                (var(e, "sys_platform") == "win32" && var(e, "implementation_name") == "cpython");
                       }),
            "implementation_name == \"cpython\" and sys_platform != \"darwin\" or "
            "implementation_name == \"pypy\" and sys_platform == \"linux\"");
}

TEST(WheelMayFit, ByTagFamily) {
  const auto envs = universe();
  auto fits = [&](const char* file, const std::function<bool(const markers::Environment&)>& where) {
    auto w = wheel_name::parse_wheel_name(file);
    EXPECT_TRUE(w) << file;
    for (const auto& e : envs) {
      EXPECT_EQ(wheel_may_fit(*w, e), where(e)) << file << " " << var(e, "sys_platform") << " "
                                                << var(e, "platform_machine") << " " << var(e, "python_version")
                                                << " " << var(e, "implementation_name");
    }
  };
  fits("p-1.0-py3-none-any.whl", [](const auto&) { return true; });
  fits("p-1.0-cp312-cp312-manylinux_2_28_x86_64.whl", [](const auto& e) {
    return var(e, "sys_platform") == "linux" && var(e, "platform_machine") == "x86_64" && minor(e) == 12 &&
           var(e, "implementation_name") == "cpython";
  });
  fits("p-1.0-cp310-abi3-win_amd64.whl", [](const auto& e) {
    return var(e, "sys_platform") == "win32" && minor(e) >= 10 && var(e, "implementation_name") == "cpython";
  });
  fits("p-1.0-pp310-pypy310_pp73-macosx_11_0_arm64.whl", [](const auto& e) {
    return var(e, "sys_platform") == "darwin" && var(e, "platform_machine") == "arm64" &&
           var(e, "implementation_name") == "pypy";
  });
  fits("p-1.0-py3-none-macosx_10_9_universal2.whl", [](const auto& e) { return var(e, "sys_platform") == "darwin"; });
  fits("p-1.0-py3-none-musllinux_1_2_i686.linux_aarch64.whl", [](const auto& e) {
    return var(e, "sys_platform") == "linux" && var(e, "platform_machine") != "x86_64";
  });
  fits("p-1.0-py3-none-freebsd_14_amd64.whl", [](const auto&) { return true; });  // unknown: kept
}

}  // namespace
}  // namespace vwheel::plan::detail
