// verify_wheel's refusals name the wheel by its URL with any credentials redacted: the message
// must not depend on the CLI's safety net to keep a password out of a terminal or a log.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "plan/verify.hpp"

namespace vwheel::plan::detail {
namespace {

TEST(VerifyWheel, AnUnreadableWheelIsNamedByItsRedactedUrl) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "app-1.0-py3-none-any.whl";
  std::ofstream(path) << "not a zip file";
  Selected s;
  s.name = "app";
  s.version = "1.0";
  s.wheel.filename = path.filename().string();
  s.wheel.url = "https://user:s3cret@example.invalid/files/app-1.0-py3-none-any.whl";
  s.label = "cu128";  // a variant: verify_wheel opens the file
  auto ok = verify_wheel(s, path, std::nullopt);
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error().message.find("s3cret"), std::string::npos) << ok.error().message;
  EXPECT_NE(ok.error().message.find("example.invalid/files/app-1.0-py3-none-any.whl"), std::string::npos)
      << ok.error().message;
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace vwheel::plan::detail
