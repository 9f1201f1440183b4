// python::create_venv: the real venv module makes an environment with the given options; a
// module that fails is the input's fault, named with its command and last line; an interpreter
// that cannot start is environmental; a hung one is killed at the time limit.

#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "vwheel/core/process.hpp"
#include "vwheel/python/interpreter.hpp"
#include "vwheel/python/venv.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using vwheel::ErrorKind;
using vwheel::python::create_venv;
using vwheel::python::VenvOptions;

struct Scratch {
  fs::path path = fs::temp_directory_path() / ("vwheel-venv-test-" + std::to_string(::getpid()));
  Scratch() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Scratch() { fs::remove_all(path); }
};

TEST(CreateVenv, MakesAnEnvironmentWithTheGivenOptions) {
  auto python = vwheel::python::find_interpreter();
  if (!python) GTEST_SKIP() << "no python3 on PATH";
  Scratch scratch;
  VenvOptions options;
  options.python_flags = {"-I"};
  options.venv_args = {"--without-pip"};
  options.env = vwheel::current_environment();
  options.cwd = scratch.path;
  const auto dir = scratch.path / "env";
  auto made = create_venv(*python, dir, options);
  if (!made && made.error().message.find("ensurepip") != std::string::npos) GTEST_SKIP() << made.error().message;
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_TRUE(fs::is_regular_file(dir / "pyvenv.cfg"));
  EXPECT_TRUE(fs::exists(dir / "bin" / "python"));
  EXPECT_FALSE(fs::exists(dir / "bin" / "pip")) << "--without-pip was passed on";
}

TEST(CreateVenv, AFailingModuleIsTheInputsFault) {
  Scratch scratch;
  const auto fake = scratch.path / "fake-python";
  std::ofstream(fake) << "#!/bin/sh\necho \"args: $*\"\necho 'Error: no venv here' >&2\nexit 3\n";
  fs::permissions(fake, fs::perms::owner_all);
  VenvOptions options;
  options.python_flags = {"-I"};
  auto made = create_venv(fake, scratch.path / "env", options);
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().kind, ErrorKind::input);
  EXPECT_EQ(made.error().message,
            fake.string() + " -m venv " + (scratch.path / "env").string() + ": failed (exit 3): Error: no venv here");
  // Without standard error, the last line of standard output: here the arguments it was given.
  std::ofstream(fake) << "#!/bin/sh\necho \"args: $*\"\nexit 1\n";
  options.venv_args = {"--without-pip"};
  made = create_venv(fake, scratch.path / "env", options);
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().message, fake.string() + " -m venv " + (scratch.path / "env").string() +
                                      ": failed (exit 1): args: -I -m venv --without-pip " +
                                      (scratch.path / "env").string());
}

TEST(CreateVenv, AnInterpreterThatCannotStartIsEnvironmental) {
  Scratch scratch;
  auto made = create_venv(scratch.path / "no-such-python", scratch.path / "env", VenvOptions{});
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().kind, ErrorKind::environment);
  EXPECT_NE(made.error().message.find((scratch.path / "no-such-python").string()), std::string::npos)
      << made.error().message;
}

TEST(CreateVenv, AHungModuleIsKilledAtTheTimeLimit) {
  Scratch scratch;
  const auto fake = scratch.path / "fake-python";
  std::ofstream(fake) << "#!/bin/sh\nexec sleep 30\n";
  fs::permissions(fake, fs::perms::owner_all);
  VenvOptions options;
  options.timeout = 200ms;
  auto made = create_venv(fake, scratch.path / "env", options);
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().kind, ErrorKind::input);
  EXPECT_EQ(made.error().message,
            fake.string() + " -m venv " + (scratch.path / "env").string() + ": timed out after 200 ms");
}

}  // namespace
