// `.netrc` parsing and lookup (issue 54): the tokens curl and Python's netrc read, quoted values,
// comments and macros skipped, the first matching machine before `default`.

#include <gtest/gtest.h>

#include "vwheel/http/netrc.hpp"

namespace vwheel::http {
namespace {

TEST(Netrc, ParsesMachinesOnOneOrManyLines) {
  const auto entries = parse_netrc(
      "machine a.example login alice password s3cret\n"
      "machine b.example\n  login bob\n  account ignored\n  password \"with space \\\" quote\"\n");
  ASSERT_EQ(entries.size(), 2U);
  EXPECT_EQ(entries[0].machine, "a.example");
  EXPECT_EQ(entries[0].login, "alice");
  EXPECT_EQ(entries[0].password, "s3cret");
  EXPECT_EQ(entries[1].machine, "b.example");
  EXPECT_EQ(entries[1].login, "bob");
  EXPECT_EQ(entries[1].password, "with space \" quote");
}

TEST(Netrc, SkipsCommentsAndMacros) {
  const auto entries = parse_netrc(
      "# machine commented login x password y\n"
      "macdef init\n"
      "machine inside.macro login m password m\n"
      "\n"
      "machine after.example login carol password pw # trailing comment\n");
  ASSERT_EQ(entries.size(), 1U);
  EXPECT_EQ(entries[0].machine, "after.example");
  EXPECT_EQ(entries[0].password, "pw");
}

TEST(Netrc, TheFirstMatchingMachineThenDefault) {
  const auto entries = parse_netrc(
      "default login anyone password fallback\n"
      "machine Host.Example login first password one\n"
      "machine host.example login second password two\n"
      "machine empty.example\n");
  auto e = netrc_lookup(entries, "host.example");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->login, "first");
  // An entry with neither login nor password does not count: the default answers.
  e = netrc_lookup(entries, "empty.example");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->login, "anyone");
  e = netrc_lookup(entries, "other.example");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->is_default);
  EXPECT_FALSE(netrc_lookup(parse_netrc("machine a login b password c"), "other"));
}

TEST(Netrc, ATruncatedOrEmptyFile) {
  EXPECT_TRUE(parse_netrc("").empty());
  const auto entries = parse_netrc("machine a.example login alice password");
  ASSERT_EQ(entries.size(), 1U);
  EXPECT_EQ(entries[0].login, "alice");
  EXPECT_EQ(entries[0].password, "");
  EXPECT_TRUE(parse_netrc("login stray password stray").empty());
}

}  // namespace
}  // namespace vwheel::http
