#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "install/transaction.hpp"
#include "install/journal.hpp"
#include "vwheel/core/fs.hpp"

namespace vwheel::install::detail {
namespace {
namespace fs = std::filesystem;
using K = JournalStep::Kind;

std::string slurp(const fs::path& p) {
  auto text = read_file(p);
  return text ? *text : std::string("<missing>");
}

void spit(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("vwheel-journal-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "site");
    env_.scheme.purelib = env_.scheme.platlib = root_ / "site";
    env_.scheme.scripts = root_ / "bin";
    env_.scheme.data = root_;
    env_.scheme.headers = root_ / "include";
    env_.prefix = root_;
    env_.lock_dir = root_;
    run_ = root_ / "site" / ".vwheel-tmp-1";
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
  fs::path run_;
  Environment env_;
};

TEST(JournalFormat, RoundTripsEveryKindAndOddBytes) {
  const fs::path odd = std::string("/env/a\tb%c\nd\re\x01 f");
  const std::vector<JournalStep> steps{{K::Mkdir, "/env/dir", {}},     {K::Place, "/env/.s/x", odd},
                                       {K::Copy, "/env/.s/y", "/env/y"}, {K::Aside, odd, "/env/.s/backup/0"},
                                       {K::Prune, "/env/dir", {}}};
  std::string text = format_journal_header("/env/site/.vwheel-tmp-1");
  for (const auto& s : steps) text += format_journal_step(s);
  // Every line is one line: the odd bytes are escaped.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 6);
  auto parsed = parse_journal(text, "j");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->run_dir, fs::path("/env/site/.vwheel-tmp-1"));
  EXPECT_EQ(parsed->steps, steps);
  EXPECT_FALSE(parsed->committed);
  EXPECT_FALSE(parsed->truncated);

  text += format_journal_step({K::Commit, {}, {}});
  parsed = parse_journal(text, "j");
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->committed);
  EXPECT_EQ(parsed->steps.size(), steps.size());
}

TEST(JournalFormat, UnfinishedLastLineIsIgnored) {
  std::string text = format_journal_header("/env/run") + format_journal_step({K::Mkdir, "/env/a", {}});
  auto cut = text + "aside\t/env/b\t/env/ru";
  auto parsed = parse_journal(cut, "j");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_TRUE(parsed->truncated);
  ASSERT_EQ(parsed->steps.size(), 1U);
  // A commit line cut short is no commit.
  parsed = parse_journal(text + "comm", "j");
  ASSERT_TRUE(parsed);
  EXPECT_FALSE(parsed->committed);
  // Even the header may be cut short: nothing had been moved.
  parsed = parse_journal("vwheel-jou", "j");
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->truncated);
  EXPECT_TRUE(parsed->steps.empty());
}

TEST(JournalFormat, CorruptLinesAreErrorsNamingTheLine) {
  const auto header = format_journal_header("/env/run");
  for (const auto& [text, what] : std::vector<std::pair<std::string, std::string>>{
           {"something else\n", "line 1"},
           {"vwheel-journal\t2\t/env/run\n", "format version `2`"},
           {"vwheel-journal\t1\trelative\n", "line 1"},
           {header + "explode\t/x\n", "unknown step `explode`"},
           {header + "place\t/x\n", "line 2"},
           {header + "aside\t/x\trelative\n", "absolute"},
           {header + "mkdir\t/x%zz\n", "line 2"},
           {header + "commit\nmkdir\t/x\n", "after the commit"},
       }) {
    auto parsed = parse_journal(text, "/env/.vwheel-journal");
    ASSERT_FALSE(parsed) << text;
    EXPECT_NE(parsed.error().message.find("/env/.vwheel-journal"), std::string::npos) << parsed.error().message;
    EXPECT_NE(parsed.error().message.find(what), std::string::npos) << parsed.error().message;
  }
}

TEST_F(JournalTest, RollBackUndoesEachKindAndSkipsStepsNeverDone) {
  const auto site = root_ / "site";
  // The state of a run killed half-way: `old.py` moved aside, the new one placed, a directory
  // made and a file placed in it, and a journaled move that never happened.
  spit(run_ / "backup" / "0", "old");
  spit(site / "pkg" / "old.py", "new");
  spit(site / "made" / "deep" / "f", "x");
  spit(run_ / "0-purelib" / "never.py", "staged");
  spit(site / "never.py", "someone else's");
  const std::vector<JournalStep> steps{
      {K::Aside, site / "pkg" / "old.py", run_ / "backup" / "0"},
      {K::Place, run_ / "0-purelib" / "pkg" / "old.py", site / "pkg" / "old.py"},
      {K::Mkdir, site / "made", {}},
      {K::Place, run_ / "0-purelib" / "made" / "deep" / "f", site / "made" / "deep" / "f"},
      {K::Place, run_ / "0-purelib" / "never.py", site / "never.py"},
      {K::Aside, site / "other.py", run_ / "backup" / "1"},  // journaled, not moved
  };
  spit(site / "other.py", "untouched");
  EXPECT_TRUE(roll_back(steps));
  EXPECT_EQ(slurp(site / "pkg" / "old.py"), "old");
  EXPECT_FALSE(fs::exists(site / "made"));
  EXPECT_EQ(slurp(site / "never.py"), "someone else's");
  EXPECT_EQ(slurp(site / "other.py"), "untouched");
}

TEST_F(JournalTest, RecoverRollsBackAnUncommittedRun) {
  const auto site = root_ / "site";
  spit(site / "pkg" / "a.py", "new");
  spit(run_ / "backup" / "0", "old");
  spit(site / "pkg-2.0.dist-info" / "RECORD", "");
  spit(run_ / "backup" / "1" / "RECORD", "old record");
  auto journal = Journal::create(journal_path(env_), run_);
  ASSERT_TRUE(journal) << journal.error().message;
  ASSERT_TRUE(journal->append({K::Aside, site / "pkg" / "a.py", run_ / "backup" / "0"}));
  ASSERT_TRUE(journal->append({K::Place, run_ / "0-purelib" / "pkg" / "a.py", site / "pkg" / "a.py"}));
  ASSERT_TRUE(journal->append({K::Aside, site / "pkg-1.0.dist-info", run_ / "backup" / "1"}));
  ASSERT_TRUE(journal->append({K::Place, run_ / "0-purelib" / "pkg-2.0.dist-info", site / "pkg-2.0.dist-info"}));
  journal = fail("killed");  // closes nothing: the process "died" (the file stays)
  ASSERT_TRUE(fs::exists(journal_path(env_)));

  auto r = recover(env_);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->found);
  EXPECT_FALSE(r->rolled_forward);
  EXPECT_EQ(r->steps, 4U);
  EXPECT_EQ(slurp(site / "pkg" / "a.py"), "old");
  EXPECT_EQ(slurp(site / "pkg-1.0.dist-info" / "RECORD"), "old record");
  EXPECT_FALSE(fs::exists(site / "pkg-2.0.dist-info"));
  EXPECT_FALSE(fs::exists(run_));
  EXPECT_FALSE(fs::exists(journal_path(env_)));
  // Nothing left to do.
  r = recover(env_);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->found);
}

TEST_F(JournalTest, RecoverFinishesACommittedRun) {
  const auto site = root_ / "site";
  spit(site / "pkg-2.0.dist-info" / "RECORD", "");
  spit(run_ / "backup" / "0" / "RECORD", "old record");
  fs::create_directories(site / "gone" / "empty");
  spit(site / "kept" / "other.py", "");
  auto journal = Journal::create(journal_path(env_), run_);
  ASSERT_TRUE(journal);
  ASSERT_TRUE(journal->append({K::Aside, site / "pkg-1.0.dist-info", run_ / "backup" / "0"}));
  ASSERT_TRUE(journal->append({K::Prune, site / "gone" / "empty", {}}));
  ASSERT_TRUE(journal->append({K::Prune, site / "kept", {}}));
  ASSERT_TRUE(journal->commit());

  auto r = recover(env_);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->rolled_forward);
  EXPECT_FALSE(fs::exists(site / "pkg-1.0.dist-info"));
  EXPECT_TRUE(fs::exists(site / "pkg-2.0.dist-info" / "RECORD"));
  EXPECT_FALSE(fs::exists(site / "gone"));
  EXPECT_TRUE(fs::exists(site / "kept" / "other.py"));
  EXPECT_FALSE(fs::exists(run_));
  EXPECT_FALSE(fs::exists(journal_path(env_)));
}

TEST_F(JournalTest, CorruptJournalIsKeptWithItsBackups) {
  spit(run_ / "backup" / "0", "precious");
  spit(journal_path(env_), format_journal_header(run_) + "garbage line\n");
  auto r = recover(env_);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::environment);
  EXPECT_NE(r.error().message.find("line 2"), std::string::npos) << r.error().message;
  EXPECT_TRUE(fs::exists(journal_path(env_)));
  EXPECT_EQ(slurp(run_ / "backup" / "0"), "precious");
}

TEST_F(JournalTest, RunDirectoryOutsideTheEnvironmentIsNeverDeleted) {
  const auto foreign = root_ / "elsewhere";
  spit(foreign / "keep", "mine");
  spit(journal_path(env_), format_journal_header(foreign) + "commit\n");
  auto r = recover(env_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not a `.vwheel-tmp-*` directory"), std::string::npos) << r.error().message;
  EXPECT_EQ(slurp(foreign / "keep"), "mine");
}

TEST_F(JournalTest, StepsOutsideTheEnvironmentAreRefusedAndNothingIsUndone) {
  const auto site = root_ / "site";
  const auto outside = root_.string() + "-outside";
  spit(fs::path(outside) / "dir" / "keep", "mine");
  spit(run_ / "backup" / "0", "backup");
  spit(site / "pkg" / "a.py", "placed");
  fs::create_directories(site / "made");
  fs::create_directory_symlink(fs::path(outside) / "dir", site / "linked");
  const auto done = JournalStep{K::Mkdir, site / "made", {}};  // a step inside: never undone either
  for (const auto& [step, what] : std::vector<std::pair<JournalStep, std::string>>{
           {{K::Mkdir, fs::path(outside) / "dir", {}},
            "`mkdir` step: `" + outside + "/dir` is outside the environment"},
           {{K::Mkdir, site / "linked" / "sub", {}},
            "`mkdir` step: `" + (site / "linked" / "sub").string() + "` is outside"},
           {{K::Mkdir, site / "..", {}}, "does not name an entry"},
           {{K::Place, run_ / "0-purelib" / "x", fs::path(outside) / "dir" / "keep"}, "`place` step: `" + outside},
           {{K::Copy, run_ / "0-purelib" / "x", site / "linked" / "keep"}, "`copy` step"},
           {{K::Aside, fs::path(outside) / "dir" / "keep", run_ / "backup" / "0"}, "`aside` step: `" + outside},
           {{K::Aside, site / "pkg" / "a.py", fs::path(outside) / "backup"}, "`aside` step: `" + outside + "/backup`"},
           {{K::Aside, site / "pkg" / "a.py", site / "other.py"}, "the backup `" + (site / "other.py").string() +
                                                                    "` is not in the run directory"},
           {{K::Prune, site / "linked" / "sub", {}}, "`prune` step"},
       }) {
    for (const bool committed : {false, true}) {
      if (committed && step.kind != K::Prune) continue;
      spit(journal_path(env_), format_journal_header(run_) + format_journal_step(done) + format_journal_step(step) +
                                   (committed ? "commit\n" : ""));
      auto r = recover(env_);
      ASSERT_FALSE(r) << format_journal_step(step);
      EXPECT_EQ(r.error().kind, ErrorKind::input);
      EXPECT_EQ(r.error().message.find(journal_path(env_).string() + ": "), 0U) << r.error().message;
      EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
      EXPECT_NE(r.error().message.find("nothing was undone"), std::string::npos) << r.error().message;
      // Touching nothing: the journal, the run directory and every file stay.
      EXPECT_TRUE(fs::exists(journal_path(env_)));
      EXPECT_EQ(slurp(fs::path(outside) / "dir" / "keep"), "mine");
      EXPECT_EQ(slurp(run_ / "backup" / "0"), "backup");
      EXPECT_EQ(slurp(site / "pkg" / "a.py"), "placed");
      EXPECT_TRUE(fs::is_directory(site / "made"));
      EXPECT_TRUE(fs::is_symlink(site / "linked"));
    }
  }
  fs::remove_all(outside);
  // A prune step names a directory to empty, not an entry: the prefix itself is one (a removal
  // that emptied `share/`), and is kept (a scheme directory's parent).
  spit(journal_path(env_), format_journal_header(run_) + format_journal_step({K::Prune, root_, {}}) + "commit\n");
  auto r = recover(env_);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_TRUE(r->rolled_forward);
  EXPECT_TRUE(fs::is_directory(root_));
}

TEST_F(JournalTest, CreateRefusesASecondJournal) {
  auto first = Journal::create(journal_path(env_), run_);
  ASSERT_TRUE(first);
  auto second = Journal::create(journal_path(env_), run_);
  EXPECT_FALSE(second);
  first->finish();
  EXPECT_FALSE(fs::exists(journal_path(env_)));
}

TEST_F(JournalTest, RemovalsAreJournaledBeforeTheyAreDoneAndDoneTogether) {
  spit(root_ / "site" / "a.py", "a");
  spit(root_ / "site" / "b.py", "b");
  fs::create_directories(run_);
  auto journal = Journal::create(journal_path(env_), run_);
  ASSERT_TRUE(journal);
  {
    Transaction tx(run_ / "backup", {}, &*journal);
    ASSERT_TRUE(tx.remove(root_ / "site" / "a.py"));
    ASSERT_TRUE(tx.remove(root_ / "site" / "b.py"));
    // Journaled (write-ahead), not yet done: the batch waits for one sync.
    const auto text = slurp(journal_path(env_));
    EXPECT_NE(text.find("aside\t" + (root_ / "site" / "a.py").string()), std::string::npos) << text;
    EXPECT_NE(text.find("aside\t" + (root_ / "site" / "b.py").string()), std::string::npos) << text;
    EXPECT_TRUE(fs::exists(root_ / "site" / "a.py"));
    ASSERT_TRUE(tx.commit());
  }
  EXPECT_FALSE(fs::exists(root_ / "site" / "a.py"));
  EXPECT_FALSE(fs::exists(root_ / "site" / "b.py"));
  journal->finish();
}

TEST_F(JournalTest, RollbackDropsJournaledMovesNeverDone) {
  spit(root_ / "site" / "a.py", "a");
  spit(run_ / "stage" / "new.py", "new");
  auto journal = Journal::create(journal_path(env_), run_);
  ASSERT_TRUE(journal);
  {
    Transaction tx(run_ / "backup", {}, &*journal);
    ASSERT_TRUE(tx.remove(root_ / "site" / "a.py"));
    ASSERT_TRUE(tx.move_into(run_ / "stage" / "new.py", root_ / "site" / "new.py"));
    EXPECT_TRUE(tx.rollback());
  }
  EXPECT_EQ(slurp(root_ / "site" / "a.py"), "a");
  EXPECT_EQ(slurp(run_ / "stage" / "new.py"), "new");
  EXPECT_FALSE(fs::exists(root_ / "site" / "new.py"));
  // What recovery would do with the same journal after a crash before the batch: nothing.
  auto recovered = recover(env_);
  ASSERT_TRUE(recovered) << recovered.error().message;
  EXPECT_TRUE(recovered->found);
  EXPECT_EQ(slurp(root_ / "site" / "a.py"), "a");
  EXPECT_FALSE(fs::exists(root_ / "site" / "new.py"));
}

// The trees of several wheels share one sync when they move into different names; a tree that
// merges into a directory another tree's pending move creates waits for that move (one more sync).
TEST_F(JournalTest, TreesIntoDifferentNamesShareASyncAndMergesWaitForTheMoveTheyMergeInto) {
  const auto site = root_ / "site";
  spit(run_ / "a" / "alpha" / "__init__.py", "alpha");
  spit(run_ / "a" / "alpha-1.0.dist-info" / "RECORD", "");
  spit(run_ / "b" / "beta.py", "beta");
  spit(run_ / "c" / "alpha" / "extra.py", "extra");  // into alpha/, which a's move creates
  auto journal = Journal::create(journal_path(env_), run_);
  ASSERT_TRUE(journal);
  {
    Transaction tx(run_ / "backup", {}, &*journal);
    ASSERT_TRUE(tx.move_contents(run_ / "a", site));
    ASSERT_TRUE(tx.move_contents(run_ / "b", site));
    // Journaled, not done, no sync yet.
    EXPECT_FALSE(fs::exists(site / "alpha"));
    EXPECT_FALSE(fs::exists(site / "beta.py"));
    EXPECT_EQ(journal->syncs(), 0U);
    ASSERT_TRUE(tx.move_contents(run_ / "c", site));
    // c's alpha/ merges into the alpha/ that a's move made: that batch was done first.
    EXPECT_EQ(journal->syncs(), 1U);
    EXPECT_EQ(slurp(site / "alpha" / "__init__.py"), "alpha");
    EXPECT_EQ(slurp(site / "beta.py"), "beta");
    EXPECT_FALSE(fs::exists(site / "alpha" / "extra.py"));
    ASSERT_TRUE(tx.commit());
    EXPECT_EQ(journal->syncs(), 3U);  // c's batch, then the commit line
  }
  EXPECT_EQ(slurp(site / "alpha" / "__init__.py"), "alpha");
  EXPECT_EQ(slurp(site / "alpha" / "extra.py"), "extra");
  EXPECT_TRUE(fs::exists(site / "alpha-1.0.dist-info" / "RECORD"));
  EXPECT_EQ(slurp(site / "beta.py"), "beta");
  journal->finish();
}

// The same directory spelled two ways (a venv's platlib through `lib64 -> lib`): a tree that
// merges into what the other spelling's pending tree creates still waits for it.
TEST_F(JournalTest, TreesIntoOneDirectorySpelledTwoWaysMergeInOrder) {
  fs::create_directories(root_ / "lib" / "site-packages");
  fs::create_directory_symlink("lib", root_ / "lib64");
  spit(run_ / "pure" / "ns" / "a.py", "a");
  spit(run_ / "plat" / "ns" / "b.so", "b");
  spit(run_ / "other" / "c.py", "c");
  auto journal = Journal::create(journal_path(env_), run_);
  ASSERT_TRUE(journal);
  {
    Transaction tx(run_ / "backup", {}, &*journal);
    ASSERT_TRUE(tx.move_contents(run_ / "pure", root_ / "lib" / "site-packages"));
    ASSERT_TRUE(tx.move_contents(run_ / "other", root_ / "lib64" / "site-packages"));
    EXPECT_EQ(journal->syncs(), 0U);  // another name: no wait
    ASSERT_TRUE(tx.move_contents(run_ / "plat", root_ / "lib64" / "site-packages"));
    EXPECT_EQ(journal->syncs(), 1U);  // ns/ is pure's: done first
    ASSERT_TRUE(tx.commit());
  }
  EXPECT_EQ(slurp(root_ / "lib" / "site-packages" / "ns" / "a.py"), "a");
  EXPECT_EQ(slurp(root_ / "lib" / "site-packages" / "ns" / "b.so"), "b");
  EXPECT_EQ(slurp(root_ / "lib" / "site-packages" / "c.py"), "c");
  journal->finish();
}

}  // namespace
}  // namespace vwheel::install::detail
