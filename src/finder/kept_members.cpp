// Members of remote wheels kept in the cache (kept_members.hpp): their files, and the Finder's
// use of them (read back, revalidated with one HEAD request per wheel and run, written).
#include "kept_members.hpp"

#include <nlohmann/json.hpp>

#include "vwheel/core/cache_layout.hpp"
#include "vwheel/core/fs.hpp"
#include "vwheel/core/hash.hpp"

namespace vwheel::finder {
namespace fs = std::filesystem;

namespace detail {

bool kept_by_url(const File& wheel) {
  const auto sha = wheel.sha256();
  return !sha || !is_sha256_hex(*sha);
}

std::optional<fs::path> kept_member_path(const fs::path& cache_dir, const File& wheel, std::string_view suffix) {
  if (wheel.path || suffix.empty() || suffix.starts_with('.') || suffix.find_first_of("/\\") != std::string_view::npos) {
    return std::nullopt;
  }
  const auto key = kept_by_url(wheel) ? "url-" + sha256_hex(wheel.url) : *wheel.sha256();
  return CacheLayout(cache_dir).entry(CacheArea::wheel_members, key) / std::string(suffix);
}

std::string kept_member_text(const KeptMember& member) {
  nlohmann::json j;
  j["url"] = member.url;
  j["present"] = member.content.has_value();
  if (member.validators) http::put_validators(j, *member.validators);
  return j.dump() + "\n" + member.content.value_or("");
}

std::optional<KeptMember> parse_kept_member(std::string_view text) {
  const auto eol = text.find('\n');
  if (eol == std::string_view::npos) return std::nullopt;
  // vwheel's own line (a few hundred bytes): nlohmann's parser, not the one for untrusted input.
  const auto j = nlohmann::json::parse(text.substr(0, eol), nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto url = j.find("url");
  const auto present = j.find("present");
  if (url == j.end() || !url->is_string() || present == j.end() || !present->is_boolean()) return std::nullopt;
  KeptMember m;
  m.url = url->get<std::string>();
  if (j.contains("size") || j.contains("etag") || j.contains("last_modified")) {
    m.validators = http::get_validators(j);
    if (!m.validators) return std::nullopt;
  }
  const auto content = text.substr(eol + 1);
  if (present->get<bool>()) {
    m.content = std::string(content);
  } else if (!content.empty()) {
    return std::nullopt;
  }
  return m;
}

}  // namespace detail

void forget_kept_members(const fs::path& cache_dir, const File& wheel) {
  const auto path = detail::kept_member_path(cache_dir, wheel, "METADATA");
  if (!path) return;
  std::error_code ec;
  fs::remove_all(path->parent_path(), ec);
}

std::optional<std::optional<std::string>> Finder::kept_member(const File& wheel, std::string_view suffix) {
  const auto path = detail::kept_member_path(options_.cache_dir, wheel, suffix);
  if (!path) return std::nullopt;
  auto text = read_file(*path);
  if (!text) return std::nullopt;
  auto kept = detail::parse_kept_member(*text);
  if (!kept) return std::nullopt;
  if (kept->validators) {
    // Under a URL's key: the file there may have changed since. Offline, what was read is taken
    // as it is (as the download cache does).
    if (kept->url != wheel.url) return std::nullopt;
    if (!client_.options().offline) {
      auto it = heads_.find(wheel.url);
      if (it == heads_.end()) {
        http::Request head(wheel.url, {}, false);
        head.head = true;
        ++requests_;
        auto answer = client_.get(head);
        it = heads_.emplace(wheel.url, answer ? std::optional<http::Response>(std::move(*answer)) : std::nullopt).first;
      }
      if (!it->second || !http::unchanged(*kept->validators, *it->second)) return std::nullopt;
    }
  }
  return std::move(kept->content);
}

void Finder::keep_member(const File& wheel, std::string_view suffix, const std::optional<std::string>& content,
                         const http::RangeResponse& answer) const {
  const auto path = detail::kept_member_path(options_.cache_dir, wheel, suffix);
  if (!path) return;
  detail::KeptMember m{wheel.url, std::nullopt, content};
  if (detail::kept_by_url(wheel)) {
    m.validators = http::validators_of(answer.etag, answer.last_modified, answer.total_size.value_or(0));
    if (!m.validators || !answer.total_size) return;  // nothing to ask the server with next time
  }
  std::error_code ec;
  fs::create_directories(path->parent_path(), ec);
  // A cache: a file that cannot be written is only a range request next time.
  (void)write_file_atomic(*path, detail::kept_member_text(m), Durability::none);
}

}  // namespace vwheel::finder
