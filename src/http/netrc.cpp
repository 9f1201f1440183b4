// `.netrc` parsing (see netrc.hpp): a tokenizer over white space and double quotes, then a walk
// over the tokens that starts an entry at `machine`/`default`.

#include "vwheel/http/netrc.hpp"

#include <cstddef>

#include "vwheel/core/text.hpp"

namespace vwheel::http {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

class Tokens {
 public:
  explicit Tokens(std::string_view text) : text_(text) {}

  /// The next token, nullopt at the end. A `#` at the start of a token comments out the rest of
  /// its line.
  std::optional<std::string> next() {
    for (;;) {
      while (pos_ < text_.size() && is_blank(text_[pos_])) ++pos_;
      if (pos_ >= text_.size()) return std::nullopt;
      if (text_[pos_] != '#') break;
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    }
    std::string token;
    if (text_[pos_] == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"') {
        if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
        token.push_back(text_[pos_++]);
      }
      if (pos_ < text_.size()) ++pos_;  // the closing quote
      return token;
    }
    while (pos_ < text_.size() && !is_blank(text_[pos_])) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      token.push_back(text_[pos_++]);
    }
    return token;
  }

  /// Skips a `macdef` body: everything up to the next empty line.
  void skip_macro() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;  // the rest of the `macdef` line
    while (pos_ < text_.size()) {
      const auto end = text_.find('\n', pos_ + 1);
      if (end == std::string_view::npos) {
        pos_ = text_.size();
        return;
      }
      const bool empty = end == pos_ + 1;
      pos_ = end;
      if (empty) return;
    }
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<NetrcEntry> parse_netrc(std::string_view text) {
  std::vector<NetrcEntry> entries;
  Tokens tokens(text);
  NetrcEntry* current = nullptr;
  while (auto token = tokens.next()) {
    if (*token == "machine") {
      auto name = tokens.next();
      if (!name) break;
      entries.push_back(NetrcEntry{*name, "", "", false});
      current = &entries.back();
    } else if (*token == "default") {
      entries.push_back(NetrcEntry{"", "", "", true});
      current = &entries.back();
    } else if (*token == "macdef") {
      tokens.next();  // its name
      tokens.skip_macro();
      current = nullptr;
    } else if (*token == "login" || *token == "password" || *token == "account") {
      auto value = tokens.next();
      if (!value) break;
      if (current == nullptr) continue;  // outside an entry: ignored, as curl does
      if (*token == "login") current->login = std::move(*value);
      if (*token == "password") current->password = std::move(*value);
    }
  }
  return entries;
}

std::optional<NetrcEntry> netrc_lookup(const std::vector<NetrcEntry>& entries, std::string_view host) {
  const auto usable = [](const NetrcEntry& e) { return !e.login.empty() || !e.password.empty(); };
  const auto wanted = ascii_lower(host);
  for (const auto& e : entries) {
    if (!e.is_default && ascii_lower(e.machine) == wanted && usable(e)) return e;
  }
  for (const auto& e : entries) {
    if (e.is_default && usable(e)) return e;
  }
  return std::nullopt;
}

}  // namespace vwheel::http
