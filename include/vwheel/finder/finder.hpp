#pragma once
/// \file
/// Finding distributions: the files of a project on package indexes (PEP 503 HTML / PEP 691 JSON
/// project pages) and in `--find-links` locations (a local directory, or an HTML page of links),
/// and what an installer reads from them without downloading whole wheels: core metadata (the PEP
/// 658/714 `FILE.metadata`, else byte ranges of the wheel's zip central directory and `METADATA`
/// member, else the whole wheel), `*-variants.json` files, and `variant.json` members.
///
/// Sources are kept apart: every file remembers the source it came from, so variant metadata of
/// different sources is never merged (PEP 825, "Installing wheels from multiple sources").
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vwheel/core/error.hpp"
#include "vwheel/http/client.hpp"
#include "vwheel/pep440/version.hpp"
#include "vwheel/wheel_name/wheel_name.hpp"

namespace vwheel::finder {

/// Where distributions come from. Sources are listed in priority order (`--index-url`, then each
/// `--extra-index-url`, then each `--find-links`).
struct Source {
  enum class Kind : std::uint8_t {
    index,       ///< a simple-API base URL: project pages at `<url>/<name>/`
    find_links,  ///< a local directory, or the URL of an HTML page of links
  };
  Kind kind = Kind::index;
  std::string location;  ///< URL (http, https, file) or local directory path
  /// `--index-url URL` / `--find-links DIR` as the user would write it, for messages.
  [[nodiscard]] std::string describe() const;
};

/// One distribution file of a project (a wheel, a `{name}-{version}-variants.json`, or, from
/// `Finder::sdists` only, a source distribution).
struct File {
  std::size_t source = 0;  ///< index into the Finder's sources
  std::string filename;
  std::string url;                            ///< absolute URL; empty for a local file
  std::optional<std::filesystem::path> path;  ///< the local file (find-links directory)
  std::map<std::string, std::string> hashes;  ///< algorithm -> lowercase hex
  std::optional<std::string> requires_python;
  std::optional<std::string> yanked;                          ///< the reason when yanked
  std::optional<std::map<std::string, std::string>> core_metadata;  ///< PEP 658 file served (its hashes)
  std::optional<std::uint64_t> size;
  std::optional<std::string> upload_time;
  pep440::Version version;
  /// The parsed wheel file name; nullopt for a `*-variants.json` file.
  std::optional<wheel_name::WheelName> wheel;
  [[nodiscard]] bool is_wheel() const noexcept { return wheel.has_value(); }
  /// A source distribution (`.tar.gz`, `.zip`).
  [[nodiscard]] bool is_sdist() const noexcept {
    return !wheel && (filename.ends_with(".tar.gz") || filename.ends_with(".zip"));
  }
  /// The URL to fetch, or the local path as a string.
  [[nodiscard]] std::string location() const;
  /// The expected sha256 (lowercase hex), if the source gave one.
  [[nodiscard]] std::optional<std::string> sha256() const;
};

/// A remote wheel whose server answered a range request with the whole file
/// (FinderOptions::download).
struct WholeWheel {
  const File* file = nullptr;
  /// That answer: the whole wheel in `body`, or only its headers when it was too large to take
  /// into memory (`too_large`: the wheel is to be downloaded).
  const http::RangeResponse* answer = nullptr;
};

/// What a Finder needs.
struct FinderOptions {
  /// Where remote wheels read in full (the last resort for metadata) and scratch files go.
  std::filesystem::path cache_dir;
  /// Puts remote wheels whose server ignores range requests on disk, all at once (results in
  /// the order given), so that their members are read from files: writes those whose whole answer
  /// was taken into memory (up to 64 MiB shared among the wheels read at once), downloads the
  /// others. An installer sets it to put them where it looks for its downloads, so that such a
  /// wheel crosses the network once, not once to be read and again to be installed. Unset: into
  /// a scratch directory under `cache_dir`, removed once read.
  std::function<std::vector<Result<http::Downloaded>>(http::Client&, const std::vector<WholeWheel>&)> download = {};
};

/// Looks projects up in every source. Not thread-safe (it uses one http::Client).
class Finder {
 public:
  Finder(http::Client& client, std::vector<Source> sources, FinderOptions options);

  [[nodiscard]] const std::vector<Source>& sources() const noexcept { return sources_; }

  /// Every wheel and `*-variants.json` of the project (canonical name) in every source, in source
  /// order; fetched once per name (index pages concurrently). A project unknown to an index (404)
  /// has no files there; other failures are errors naming the URL. File names that do not parse are
  /// skipped and reported in `warnings()`; sdists are left out (see `sdists`).
  [[nodiscard]] Result<const std::vector<File>*> files(std::string_view name);

  /// The source distributions (`{name}-{version}.tar.gz` / `.zip`) that `files(name)` (canonical
  /// name) met and left out, in source order: an installer that cannot build them still names
  /// them when they are all a version has.
  [[nodiscard]] const std::vector<File>& sdists(std::string_view name) const;

  /// Fetches the project pages of several projects at once (a prefetch for `files`), then what a
  /// resolver most likely reads next from them, also at once: the core metadata of each one's
  /// newest wheel, the `*-variants.json` of its newest versions, and whether wheels whose members
  /// were kept by URL are unchanged (HEAD). Projects looked up before are left alone.
  void prefetch(const std::vector<std::string>& names);

  /// Reads the core metadata of several wheels at once (those a resolver is about to ask for), so
  /// that core_metadata returns each without a request of its own: the PEP 658 files in one round
  /// trip, the `METADATA` members of the other remote wheels with range requests, each step for
  /// all of them together. Wheels on disk, and metadata kept in the cache, are left alone. A
  /// failure is left for core_metadata to meet and report.
  void prefetch_metadata(const std::vector<const File*>& wheels);

  /// The wheel's core metadata (`METADATA`): the PEP 658 file when the index serves one (checked
  /// against its hash), else read from the wheel with HTTP range requests, else from the whole
  /// wheel. Errors name the wheel.
  [[nodiscard]] Result<std::string> core_metadata(const File& wheel);

  /// A member of the wheel `{dist_info}/{name}` (e.g. `variant.json`), read like core_metadata.
  /// nullopt when the wheel has no such member.
  [[nodiscard]] Result<std::optional<std::string>> dist_info_member(const File& wheel, std::string_view name);

  /// The text of a small file (a `*-variants.json`), checked against its hash when given.
  [[nodiscard]] Result<std::string> text(const File& file);

  /// Fetches several small files at once (e.g. the `*-variants.json` of every version a resolver
  /// is about to rank), so that `text` returns each without a request of its own: one round trip
  /// instead of one per file. A failure is left for `text` to meet and report.
  void prefetch_texts(const std::vector<const File*>& files);

  /// Problems that did not stop the search (unparsable file names), one line each.
  [[nodiscard]] const std::vector<std::string>& warnings() const noexcept { return warnings_; }

  /// The answers to the HEAD requests made so far (by wheel URL; nullopt: the request failed),
  /// which asked whether a wheel without a sha256 is still the one whose members were kept.
  [[nodiscard]] const std::map<std::string, std::optional<http::Response>, std::less<>>& head_answers() const noexcept {
    return heads_;
  }

  /// HTTP requests made so far (pages, metadata, ranges), for reports and tests.
  [[nodiscard]] std::size_t requests() const noexcept { return requests_; }

 private:
  Result<std::vector<File>> load_source(std::size_t source, std::string_view name, const http::Response* page);
  Result<const std::vector<File>*> find_links_files(std::size_t source);
  /// Fetches the index pages of these projects (canonical names) that were not fetched yet, at once.
  void prefetch_pages(const std::vector<std::string>& names);
  Result<std::string> wheel_member(const File& wheel, std::string_view suffix, bool required);
  /// The member `suffix` of each remote wheel read with range requests (else by reading the wheel
  /// whole when its server ignores ranges), each step for all of them at once: nullopt when a
  /// wheel has no such member. Kept in the cache for the next run. Results in the order given.
  std::vector<Result<std::optional<std::string>>> remote_members(const std::vector<const File*>& wheels,
                                                                 std::string_view suffix);
  /// A member kept from an earlier read of this remote wheel (kept_members.cpp): the outer nullopt
  /// when none is kept or the server's file may have changed since; the inner one when the wheel
  /// has no such member.
  std::optional<std::optional<std::string>> kept_member(const File& wheel, std::string_view suffix);
  /// Keeps a member just read from a remote wheel, with the validators of `answer` (the server's
  /// first answer about the file).
  void keep_member(const File& wheel, std::string_view suffix, const std::optional<std::string>& content,
                   const http::RangeResponse& answer) const;
  /// Takes the answer to a prefetch of `wheel`'s PEP 658 file: kept in memory for core_metadata,
  /// and in the cache by its hash when the index gave one and it matches (else dropped: fetched
  /// again when asked for, and reported then).
  void take_metadata(const File& wheel, Result<http::Response>& answer);
  /// The wheel's metadata from `<cache_dir>/metadata/<sha256>` when the index gave its hash.
  std::optional<std::string> cached_metadata(const File& wheel) const;
  /// Keeps a metadata file whose sha256 was checked in the cache by that hash.
  void keep_metadata(const std::string& sha256, const std::string& body) const;

  http::Client& client_;
  std::vector<Source> sources_;
  FinderOptions options_;
  std::map<std::string, std::vector<File>, std::less<>> projects_;
  std::map<std::string, Result<http::Response>, std::less<>> prefetched_;
  std::map<std::size_t, std::vector<File>> find_links_;
  std::map<std::string, std::vector<File>, std::less<>> sdists_;
  std::map<std::string, std::string, std::less<>> metadata_;  ///< prefetched `.metadata` bodies by wheel URL
  std::map<std::string, std::string, std::less<>> texts_;     ///< bodies of small files by URL, kept for the run
  /// Wheels downloaded whole by options_.download (their server ignores ranges), by URL: their
  /// other members are read from these files.
  std::map<std::string, std::filesystem::path, std::less<>> downloaded_;
  /// Prefetched `METADATA` members of remote wheels without a PEP 658 file, by wheel URL.
  std::map<std::string, std::optional<std::string>, std::less<>> members_;
  /// The answers to HEAD requests (nullopt: failed) by wheel URL: one per wheel and run.
  std::map<std::string, std::optional<http::Response>, std::less<>> heads_;
  std::vector<std::string> warnings_;
  std::size_t requests_ = 0;
};

/// Forgets what was kept under `cache_dir` of reading the remote `wheel`'s members (METADATA,
/// variant.json: Finder reads them with range requests and keeps them), e.g. when the wheel
/// downloaded disagrees with them: the next run reads them again.
void forget_kept_members(const std::filesystem::path& cache_dir, const File& wheel);

/// The project page URL of `name` on the index at `base` (`<base>/<name>/`).
[[nodiscard]] std::string project_url(std::string_view base, std::string_view name);

/// The request a Finder makes first for `files(name)` in `source`: the project page of `name`
/// (canonical) on an index, or the page of links of a find-links URL; nullopt for a find-links
/// directory (read without HTTP).
[[nodiscard]] std::optional<http::Request> page_request(const Source& source, std::string_view name);

}  // namespace vwheel::finder
