#include "journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "confine.hpp"
#include "installed.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/interrupt.hpp"

namespace vwheel::install::detail {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMagic = "vwheel-journal";

std::string_view kind_name(JournalStep::Kind k) {
  switch (k) {
    case JournalStep::Kind::Mkdir: return "mkdir";
    case JournalStep::Kind::Place: return "place";
    case JournalStep::Kind::Copy: return "copy";
    case JournalStep::Kind::Aside: return "aside";
    case JournalStep::Kind::Prune: return "prune";
    case JournalStep::Kind::Commit: return "commit";
  }
  return "?";
}

std::optional<JournalStep::Kind> kind_of(std::string_view name) {
  using K = JournalStep::Kind;
  for (auto k : {K::Mkdir, K::Place, K::Copy, K::Aside, K::Prune, K::Commit}) {
    if (kind_name(k) == name) return k;
  }
  return std::nullopt;
}

/// Paths may hold any byte but NUL: the few that would break a line are escaped.
std::string escape(const fs::path& p) {
  std::string out;
  for (char c : p.native()) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '%' || u < 0x20 || u == 0x7f) {
      out += fmt::format("%{:02X}", u);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<fs::path> unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    auto hex = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'A' && c <= 'F') return c - 'A' + 10;
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    const int hi = hex(s[i + 1]);
    const int lo = hex(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  if (out.empty()) return std::nullopt;
  return fs::path(out);
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto tab = line.find('\t', start);
    parts.push_back(line.substr(start, tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  return parts;
}

Result<void> write_journal(int fd, std::string_view data, const fs::path& file) {
  if (const int err = write_all(fd, data); err != 0) {
    return fail(fmt::format("{}: cannot write the journal: {}", file.string(), errno_text(err)));
  }
  return {};
}

/// Makes the journal's directory entry (its creation or removal) durable.
void sync_dir(const fs::path& dir) noexcept {
  const UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd) (void)::fsync(fd.get());
}

}  // namespace

std::string format_journal_step(const JournalStep& step) {
  std::string line(kind_name(step.kind));
  if (step.kind != JournalStep::Kind::Commit) line += "\t" + escape(step.path);
  if (step.kind == JournalStep::Kind::Place || step.kind == JournalStep::Kind::Copy ||
      step.kind == JournalStep::Kind::Aside) {
    line += "\t" + escape(step.other);
  }
  return line + "\n";
}

std::string format_journal_header(const fs::path& run_dir) {
  return fmt::format("{}\t1\t{}\n", kMagic, escape(run_dir));
}

Result<JournalContents> parse_journal(std::string_view text, std::string_view source) {
  JournalContents out;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      // Cut short by a crash while it was being written: never acted on.
      out.truncated = true;
      break;
    }
    const auto line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    auto bad = [&](std::string_view why) {
      return fail(fmt::format("{}: line {}: {} (not a journal this vwheel wrote; the run's backups are in its "
                              "`.vwheel-tmp-*` directory)",
                              source, line_no, why));
    };
    const auto parts = split_tabs(line);
    if (line_no == 1) {
      if (parts.size() != 3 || parts[0] != kMagic) return bad("expected the `vwheel-journal` header");
      if (parts[1] != "1") return bad(fmt::format("journal format version `{}` (expected 1)", parts[1]));
      auto run = unescape(parts[2]);
      if (!run || !run->is_absolute()) return bad("the run directory is not an absolute path");
      out.run_dir = *run;
      continue;
    }
    if (out.committed) return bad("a step after the commit line");
    auto kind = kind_of(parts[0]);
    if (!kind) return bad(fmt::format("unknown step `{}`", parts[0]));
    JournalStep step;
    step.kind = *kind;
    const bool two = *kind == JournalStep::Kind::Place || *kind == JournalStep::Kind::Copy ||
                     *kind == JournalStep::Kind::Aside;
    const std::size_t want = *kind == JournalStep::Kind::Commit ? 1 : (two ? 3 : 2);
    if (parts.size() != want) return bad(fmt::format("`{}` expects {} path(s)", parts[0], want - 1));
    if (want >= 2) {
      auto p = unescape(parts[1]);
      if (!p || !p->is_absolute()) return bad("expected an absolute path");
      step.path = *p;
    }
    if (want == 3) {
      auto p = unescape(parts[2]);
      if (!p || !p->is_absolute()) return bad("expected an absolute path");
      step.other = *p;
    }
    if (*kind == JournalStep::Kind::Commit) {
      out.committed = true;
    } else {
      out.steps.push_back(std::move(step));
    }
  }
  if (line_no == 0) {
    // A crash before the header was complete: nothing was moved yet.
    out.truncated = true;
  }
  return out;
}

bool roll_back(const std::vector<JournalStep>& steps) noexcept {
  bool ok = true;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    std::error_code ec;
    switch (it->kind) {
      case JournalStep::Kind::Mkdir:
        fs::remove_all(it->path, ec);
        break;
      case JournalStep::Kind::Place:
        // Renamed only when the staged path is gone; else what is there is not this run's.
        if (!exists_no_follow(it->path)) fs::remove_all(it->other, ec);
        break;
      case JournalStep::Kind::Copy:
        fs::remove_all(it->other, ec);
        break;
      case JournalStep::Kind::Aside:
        if (exists_no_follow(it->other)) {
          fs::remove_all(it->path, ec);
          fs::create_directories(it->path.parent_path(), ec);
          if (::rename(it->other.c_str(), it->path.c_str()) != 0) ok = false;
        }
        break;
      case JournalStep::Kind::Prune:
      case JournalStep::Kind::Commit:
        break;
    }
  }
  return ok;
}

Result<Journal> Journal::create(const fs::path& file, const fs::path& run_dir) {
  test_crash_point();
  UniqueFd owned(::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644));
  if (!owned) return fail(fmt::format("{}: cannot create the journal: {}", file.string(), errno_text(errno)));
  const int fd = owned.get();
  Journal j(file, std::move(owned));
  if (auto ok = write_journal(fd, format_journal_header(run_dir), file); !ok) {
    j.finish();
    return fail(ok.error());
  }
  if (::fdatasync(fd) != 0) {
    const int err = errno;
    j.finish();
    return fail(fmt::format("{}: cannot sync the journal: {}", file.string(), errno_text(err)));
  }
  sync_dir(file.parent_path());
  return j;
}

Result<void> Journal::append(const JournalStep& step) {
  test_crash_point();
  dirty_ = true;
  return write_journal(fd_.get(), format_journal_step(step), file_);
}

Result<void> Journal::sync() {
  if (!dirty_) return {};
  if (::fdatasync(fd_.get()) != 0) return fail(fmt::format("{}: cannot sync the journal: {}", file_.string(), errno_text(errno)));
  dirty_ = false;
  ++syncs_;
  return {};
}

Result<void> Journal::commit() {
  if (auto ok = append({JournalStep::Kind::Commit, {}, {}}); !ok) return ok;
  return sync();
}

void Journal::finish() noexcept {
  if (!fd_) return;
  test_crash_point();
  fd_.reset();
  ::unlink(file_.c_str());
  sync_dir(file_.parent_path());
}

fs::path journal_path(const Environment& env) { return env.lock_dir / std::string(kJournalName); }

Result<Recovery> recover(const Environment& env) {
  Recovery out;
  // Earlier versions kept an empty lock file in site-packages, which no RECORD lists.
  if (env.lock_dir != env.scheme.purelib) {
    const auto old_lock = env.scheme.purelib / ".vwheel.lock";
    std::error_code ec;
    if (fs::is_regular_file(fs::symlink_status(old_lock, ec)) && fs::file_size(old_lock, ec) == 0) ::unlink(old_lock.c_str());
  }
  const auto file = journal_path(env);
  if (!exists_no_follow(file)) return out;
  out.found = true;
  auto text = read_file(file);
  if (!text) return fail(with_kind(text.error(), ErrorKind::environment));
  auto journal = parse_journal(*text, file.string());
  if (!journal) return fail(with_kind(journal.error(), ErrorKind::environment));
  // Recovery deletes the run directory: only ever a staging directory of this environment.
  if (!journal->run_dir.empty() && (journal->run_dir.parent_path() != env.scheme.purelib ||
                                    !journal->run_dir.filename().string().starts_with(".vwheel-tmp-"))) {
    return fail(with_kind(Error(fmt::format("{}: the run directory {} is not a `.vwheel-tmp-*` directory in {}",
                                            file.string(), journal->run_dir.string(), env.scheme.purelib.string())),
                          ErrorKind::environment));
  }
  // Recovery removes, renames and creates what the steps name: only inside the environment, and
  // backups only in the run directory. A journal naming anything else was not written by a run
  // here (a shared venv, a restored cache): refused before any step is undone.
  Confinement confinement(env);
  const auto refuse = [&](std::string_view why) {
    return fail(Error(fmt::format("{}: {}; nothing was undone (not a journal this vwheel wrote; check and remove it)",
                                  file.string(), why)));
  };
  if (!journal->run_dir.empty()) {
    if (auto ok = confinement.check(journal->run_dir); !ok) return refuse(ok.error().message);
  }
  const auto run_n = journal->run_dir.lexically_normal();
  for (const auto& s : journal->steps) {
    const std::string kind(kind_name(s.kind));
    // A prune step names a directory to empty upwards (the prefix itself, when a removal emptied
    // `share/`): it must be inside; cleanup_parents checks each entry it removes.
    auto inside = s.kind == JournalStep::Kind::Prune ? confinement.check_dir(s.path) : confinement.check(s.path);
    if (!inside) {
      return refuse(s.kind == JournalStep::Kind::Prune
                        ? fmt::format("`prune` step: `{}` is {}", s.path.string(), inside.error().message)
                        : fmt::format("`{}` step: {}", kind, inside.error().message));
    }
    if (s.other.empty()) continue;
    if (auto ok = confinement.check(s.other); !ok) {
      return refuse(fmt::format("`{}` step: {}", kind, ok.error().message));
    }
    const auto other_n = s.other.lexically_normal();
    const bool in_run = !run_n.empty() && other_n != run_n && normal_within(other_n.native(), run_n.native());
    if (s.kind == JournalStep::Kind::Aside && !in_run) {
      return refuse(fmt::format("`aside` step: the backup `{}` is not in the run directory {}", s.other.string(),
                                journal->run_dir.string()));
    }
  }
  std::error_code ec;
  if (journal->committed) {
    Removal removal;
    for (const auto& s : journal->steps) {
      if (s.kind == JournalStep::Kind::Prune) removal.parents.push_back(s.path);
    }
    out.rolled_forward = true;
    out.steps = removal.parents.size();
    fs::remove_all(journal->run_dir, ec);
    cleanup_parents(env, removal);
  } else {
    out.steps = journal->steps.size();
    if (!roll_back(journal->steps)) {
      return fail(with_kind(Error(fmt::format("{}: could not put every file of the interrupted run back; its "
                                                   "backups are kept in {}",
                                                   file.string(), journal->run_dir.string())),
                            ErrorKind::environment));
    }
    if (!journal->run_dir.empty()) fs::remove_all(journal->run_dir, ec);
  }
  ::unlink(file.c_str());
  sync_dir(file.parent_path());
  return out;
}

void test_pause_at_commit() noexcept {
  const char* v = std::getenv("VWHEEL_TEST_PAUSE_AT_COMMIT");
  if (v == nullptr || *v == '\0') return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::strtod(v, nullptr));
  // Until a signal comes (it is deferred: the run then finishes) or the time is up.
  while (!interrupted() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void test_crash_point() noexcept {
  static const long limit = [] {
    const char* v = std::getenv("VWHEEL_TEST_CRASH_AFTER");
    return v != nullptr && *v != '\0' ? std::strtol(v, nullptr, 10) : -1L;
  }();
  static long steps = 0;
  if (limit < 0) return;
  if (steps++ >= limit) ::raise(SIGKILL);
}

}  // namespace vwheel::install::detail
