#pragma once
// A fixture for the api tests that work on files: a fresh folder per test, removed after it.

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace vwheel::api {

class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Per process and test, so that parallel ctest runs never share a folder.
    dir_ = std::filesystem::temp_directory_path() /
           ("vwheel-api-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

}  // namespace vwheel::api
