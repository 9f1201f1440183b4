#include <gtest/gtest.h>

#include "vwheel/install/layout.hpp"

using namespace vwheel::install;

TEST(MemberName, AcceptsOrdinaryNames) {
  EXPECT_TRUE(check_member_name("pkg/__init__.py"));
  EXPECT_TRUE(check_member_name("pkg/sub/"));
  EXPECT_TRUE(check_member_name("pkg-1.0.dist-info/RECORD"));
}

TEST(MemberName, RefusesUnsafeNames) {
  for (const char* bad : {"/etc/passwd", "../x", "pkg/../../x", "a\\b", "a//b", "./a", "", "pkg/.."}) {
    auto r = check_member_name(bad);
    EXPECT_FALSE(r) << bad;
  }
  auto nul = check_member_name(std::string_view("a\0b", 3));
  ASSERT_FALSE(nul);
  EXPECT_NE(nul.error().message.find("NUL"), std::string::npos);
  EXPECT_NE(check_member_name("../x").error().message.find("`..`"), std::string::npos);
}

TEST(MemberMode, RefusesSymlinksAndDevices) {
  EXPECT_TRUE(check_member_mode("a", 0100644));
  EXPECT_TRUE(check_member_mode("a", 040755));
  EXPECT_TRUE(check_member_mode("a", 0));
  auto link = check_member_mode("a", 0120777);
  ASSERT_FALSE(link);
  EXPECT_NE(link.error().message.find("symbolic link"), std::string::npos);
  EXPECT_FALSE(check_member_mode("a", 020644));
}

TEST(SchemeMapping, RootAndDataDirectories) {
  auto root = map_member("pkg/a.py", "pkg-1.0.data", true);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->key, SchemeKey::Purelib);
  EXPECT_EQ(root->relative, "pkg/a.py");
  EXPECT_EQ(map_member("pkg/a.so", "pkg-1.0.data", false)->key, SchemeKey::Platlib);
  auto script = map_member("pkg-1.0.data/scripts/tool", "pkg-1.0.data", true);
  ASSERT_TRUE(script);
  EXPECT_EQ(script->key, SchemeKey::Scripts);
  EXPECT_EQ(script->relative, "tool");
  EXPECT_EQ(map_member("pkg-1.0.data/headers/x.h", "pkg-1.0.data", true)->key, SchemeKey::Headers);
  EXPECT_EQ(map_member("pkg-1.0.data/data/share/x", "pkg-1.0.data", true)->key, SchemeKey::Data);
  EXPECT_EQ(map_member("pkg-1.0.data/platlib/m.so", "pkg-1.0.data", true)->key, SchemeKey::Platlib);
  EXPECT_EQ(map_member("pkg-1.0.data/purelib/m.py", "pkg-1.0.data", false)->key, SchemeKey::Purelib);
  EXPECT_FALSE(map_member("pkg-1.0.data/bogus/x", "pkg-1.0.data", true));
  EXPECT_FALSE(map_member("pkg-1.0.data/scripts", "pkg-1.0.data", true));
  // A different project's data directory is an ordinary root member.
  EXPECT_EQ(map_member("other-1.0.data/scripts/x", "pkg-1.0.data", true)->key, SchemeKey::Purelib);
}

TEST(WheelInfo, ParsesAndRefusesFutureMajors) {
  auto ok = parse_wheel_info("Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-any\n", "WHEEL");
  ASSERT_TRUE(ok);
  EXPECT_FALSE(ok->root_is_purelib);
  auto future = parse_wheel_info("Wheel-Version: 2.0\n", "WHEEL");
  ASSERT_FALSE(future);
  EXPECT_NE(future.error().message.find("2.0"), std::string::npos);
  EXPECT_FALSE(parse_wheel_info("Generator: x\n", "WHEEL"));
  EXPECT_FALSE(parse_wheel_info("Wheel-Version: 1\n", "WHEEL"));
  EXPECT_FALSE(parse_wheel_info("Wheel-Version: 1.0\nRoot-Is-Purelib: maybe\n", "WHEEL"));
}

TEST(Metadata, NameAndVersion) {
  auto nv = parse_metadata_name_version("Metadata-Version: 2.1\nName: My.Pkg\nVersion: 1.0\n\nName: body\n");
  EXPECT_EQ(nv.name, "My.Pkg");
  EXPECT_EQ(nv.version, "1.0");
}

TEST(EntryPoints, ConsoleAndGuiScripts) {
  auto eps = parse_entry_points(
      "[console_scripts]\ntool = pkg.cli:main\nother=pkg:obj.method [extra]\n\n[gui_scripts]\ngui = pkg.gui:run\n"
      "[pkg.plugins]\nx = y:z\n");
  ASSERT_TRUE(eps) << eps.error().message;
  ASSERT_EQ(eps->size(), 3U);
  EXPECT_EQ((*eps)[0].name, "tool");
  EXPECT_EQ((*eps)[0].module, "pkg.cli");
  EXPECT_EQ((*eps)[0].attr, "main");
  EXPECT_EQ((*eps)[1].attr, "obj.method");
  EXPECT_TRUE((*eps)[2].gui);
}

TEST(EntryPoints, RefusesInjection) {
  EXPECT_FALSE(parse_entry_points("[console_scripts]\n../evil = pkg:main\n"));
  EXPECT_FALSE(parse_entry_points("[console_scripts]\nx = os; os.system('rm'):main\n"));
  EXPECT_FALSE(parse_entry_points("[console_scripts]\nx = pkg:main()\n"));
}

TEST(EntryPoints, VersionedScriptNamesFollowTheRunningPython) {
  auto eps = parse_entry_points(
      "[console_scripts]\npip = pip._internal.cli.main:main\npip3 = pip._internal.cli.main:main\n"
      "pip3.7 = pip._internal.cli.main:main\neasy_install = setuptools.command.easy_install:main\n"
      "easy_install-3.6 = setuptools.command.easy_install:main\npipx = other:main\n");
  ASSERT_TRUE(eps) << eps.error().message;
  auto named = with_versioned_script_names(*eps, "3.11");
  std::vector<std::string> names;
  for (const auto& e : named) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pipx", "pip", "pip3", "pip3.11", "easy_install", "easy_install-3.11"}));
  EXPECT_EQ(named[3].module, "pip._internal.cli.main");
  // A wheel without a `pip` entry point keeps its versioned names as written.
  auto plain = parse_entry_points("[console_scripts]\npip3.7 = x:main\n");
  ASSERT_TRUE(plain);
  EXPECT_EQ(with_versioned_script_names(*plain, "3.11").front().name, "pip3.7");
  EXPECT_EQ(with_versioned_script_names(*eps, "").size(), eps->size());
}

TEST(Scripts, ShebangRewrite) {
  auto r = rewrite_shebang("#!python\nprint(1)\n", "/venv/bin/python");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "#!/venv/bin/python\nprint(1)\n");
  EXPECT_EQ(*rewrite_shebang("#!pythonw -u\nx\n", "/v/bin/python"), "#!/v/bin/python\nx\n");
  EXPECT_FALSE(rewrite_shebang("#!/bin/sh\necho\n", "/venv/bin/python"));
  EXPECT_EQ(shebang_for("/a b/python").substr(0, 10), "#!/bin/sh\n");
}

TEST(Scripts, Launcher) {
  auto text = make_launcher({"tool", "pkg.cli", "main", false}, "/venv/bin/python");
  EXPECT_EQ(text.substr(0, 19), "#!/venv/bin/python\n");
  EXPECT_NE(text.find("from pkg.cli import main\n"), std::string::npos);
  EXPECT_NE(text.find("sys.exit(main())"), std::string::npos);
  auto dotted = make_launcher({"t", "pkg", "obj.method", false}, "/p");
  EXPECT_NE(dotted.find("from pkg import obj\n"), std::string::npos);
  EXPECT_NE(dotted.find("sys.exit(obj.method())"), std::string::npos);
}

TEST(Paths, RelativeAndWithin) {
  EXPECT_EQ(relative_path("/v/bin/x", "/v/lib/python3.11/site-packages"), "../../../bin/x");
  EXPECT_TRUE(is_within("/v/lib/x", "/v"));
  EXPECT_TRUE(is_within("/v", "/v"));
  EXPECT_FALSE(is_within("/v/../w", "/v"));
  EXPECT_FALSE(is_within("/vx", "/v"));
  EXPECT_EQ(file_url("/tmp/a b/x.whl"), "file:///tmp/a%20b/x.whl");
}

TEST(DirectUrl, DirectoryIsDirInfo) {
  EXPECT_EQ(direct_url_json({"file:///src/proj", std::nullopt}), R"({"url":"file:///src/proj","dir_info":{}})");
}

TEST(DirectUrl, EditableDirectorySaysSoInDirInfo) {
  EXPECT_EQ(direct_url_json({"file:///src/proj", std::nullopt, true}),
            R"({"url":"file:///src/proj","dir_info":{"editable":true}})");
}

TEST(DirectUrl, ArchiveHasBothHashFields) {
  EXPECT_EQ(direct_url_json({"file:///d/x-1.tar.gz", std::string("ab12")}),
            R"({"url":"file:///d/x-1.tar.gz","archive_info":{"hashes":{"sha256":"ab12"},"hash":"sha256=ab12"}})");
}

TEST(DirectUrl, VcsCommitIsVcsInfoWithItsSubdirectory) {
  DirectUrl vcs{"https://host/repo.git", std::nullopt};
  vcs.vcs = DirectUrl::Vcs{"git", "0123abcd", "main"};
  vcs.subdirectory = "python";
  EXPECT_EQ(direct_url_json(vcs), R"({"url":"https://host/repo.git","subdirectory":"python","vcs_info":{"vcs":"git",)"
                                  R"("requested_revision":"main","commit_id":"0123abcd"}})");
  vcs.vcs->requested_revision.reset();
  vcs.subdirectory.reset();
  EXPECT_EQ(direct_url_json(vcs), R"({"url":"https://host/repo.git","vcs_info":{"vcs":"git","commit_id":"0123abcd"}})");
}

TEST(DirectUrl, CredentialsNeverReachTheFile) {
  EXPECT_EQ(direct_url_json({"https://alice:s3cret@host/x-1-py3-none-any.whl", std::string("ff")}),
            R"({"url":"https://host/x-1-py3-none-any.whl","archive_info":{"hashes":{"sha256":"ff"},"hash":"sha256=ff"}})");
  EXPECT_EQ(direct_url_json({"https://token@host/a@b/x.tar.gz", std::string("ff")}).find("token"), std::string::npos);
}

TEST(DirectUrl, GitCheckoutIsVcsInfoInPipsOrder) {
  vwheel::install::DirectUrl d;
  d.url = "https://alice:s3cret@host/repo.git";
  d.vcs = vwheel::install::DirectUrl::Vcs{"git", "0123abcd", std::string("v1")};
  d.subdirectory = "sub";
  EXPECT_EQ(
      direct_url_json(d),
      R"({"url":"https://host/repo.git","subdirectory":"sub","vcs_info":{"vcs":"git","requested_revision":"v1","commit_id":"0123abcd"}})");
  // No revision asked for: none written. ssh's user `git` is no secret, and the URL needs it.
  d.url = "ssh://git@host/repo.git";
  d.vcs->requested_revision.reset();
  d.subdirectory.reset();
  EXPECT_EQ(direct_url_json(d), R"({"url":"ssh://git@host/repo.git","vcs_info":{"vcs":"git","commit_id":"0123abcd"}})");
}
