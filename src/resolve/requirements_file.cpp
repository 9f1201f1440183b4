#include "vwheel/resolve/requirements_file.hpp"

#include <array>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"

namespace vwheel::resolve {
namespace {

// A logical line: physical lines joined at a trailing backslash, comments removed.
struct Line {
  std::string text;
  std::size_t number = 0;
};

std::vector<Line> logical_lines(std::string_view text) {
  std::vector<Line> out;
  std::string current;
  std::size_t start = 0;
  std::size_t number = 0;
  bool continuing = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto nl = text.find('\n', pos);
    std::string_view phys = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    ++number;
    if (!phys.empty() && phys.back() == '\r') phys.remove_suffix(1);
    if (!continuing) {
      current.clear();
      start = number;
    }
    // A comment starts at `#` at the start of the line or after whitespace; it also ends any
    // continuation (as pip, which removes comments after joining, a `\` inside a comment is
    // part of the comment).
    std::size_t hash = std::string_view::npos;
    for (std::size_t i = 0; i < phys.size(); ++i) {
      if (phys[i] == '#' && (i == 0 || is_ascii_space(phys[i - 1]))) {
        hash = i;
        break;
      }
    }
    bool cont = false;
    if (hash != std::string_view::npos) {
      phys = phys.substr(0, hash);
    } else if (!phys.empty() && phys.back() == '\\') {
      phys.remove_suffix(1);
      cont = true;
    }
    current += phys;
    continuing = cont;
    if (!continuing) out.push_back(Line{current, start});
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  if (continuing) out.push_back(Line{current, start});
  return out;
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_ascii_space(s[i])) ++i;
    const std::size_t b = i;
    while (i < s.size() && !is_ascii_space(s[i])) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

enum class Opt : std::uint8_t {
  index_url,
  extra_index_url,
  find_links,
  no_index,
  pre,
  require_hashes,
  requirement,
  constraint,
  hash,
  editable,
};

struct OptSpec {
  std::string_view long_name;
  char short_name;  // 0 when none
  Opt opt;
  bool takes_value;
};

constexpr std::array<OptSpec, 10> kOptions{{
    {"--index-url", 'i', Opt::index_url, true},
    {"--extra-index-url", 0, Opt::extra_index_url, true},
    {"--find-links", 'f', Opt::find_links, true},
    {"--no-index", 0, Opt::no_index, false},
    {"--pre", 0, Opt::pre, false},
    {"--require-hashes", 0, Opt::require_hashes, false},
    {"--requirement", 'r', Opt::requirement, true},
    {"--constraint", 'c', Opt::constraint, true},
    {"--hash", 0, Opt::hash, true},
    {"--editable", 'e', Opt::editable, true},
}};

struct ParsedOpt {
  Opt opt;
  std::string name;   // as written, without a value
  std::string value;  // "" for flags
};

// Parses the options in `tokens` (every token must be an option or an option's value).
Result<std::vector<ParsedOpt>> parse_options(const std::vector<std::string_view>& tokens) {
  std::vector<ParsedOpt> out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string_view tok = tokens[i];
    const OptSpec* spec = nullptr;
    std::optional<std::string_view> inline_value;
    std::string_view name = tok;
    if (tok.starts_with("--")) {
      const auto eq = tok.find('=');
      name = tok.substr(0, eq);
      if (eq != std::string_view::npos) inline_value = tok.substr(eq + 1);
      for (const auto& s : kOptions)
        if (s.long_name == name) spec = &s;
    } else if (tok.size() >= 2 && tok[0] == '-') {
      name = tok.substr(0, 2);
      if (tok.size() > 2) inline_value = tok[2] == '=' ? tok.substr(3) : tok.substr(2);
      for (const auto& s : kOptions)
        if (s.short_name != 0 && s.short_name == tok[1]) spec = &s;
    } else {
      return fail(fmt::format("unexpected `{}` (expected an option)", tok));
    }
    if (spec == nullptr) return fail(fmt::format("unsupported option `{}`", name));
    if (spec->opt == Opt::editable) return fail(fmt::format("editable requirements (`{}`) are not supported", name));
    ParsedOpt p{spec->opt, std::string(name), {}};
    if (spec->takes_value) {
      if (inline_value) {
        p.value = std::string(*inline_value);
      } else if (i + 1 < tokens.size()) {
        p.value = std::string(tokens[++i]);
      }
      if (p.value.empty()) return fail(fmt::format("option `{}` needs a value", name));
    } else if (inline_value) {
      return fail(fmt::format("option `{}` takes no value", name));
    }
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::string> check_hash(std::string_view value) {
  const auto colon = value.find(':');
  if (colon == std::string_view::npos)
    return fail(fmt::format("invalid hash `{}`: expected `algorithm:hexdigest`", value));
  const std::string algo = ascii_lower(value.substr(0, colon));
  std::size_t len = 0;
  if (algo == "sha256") {
    len = 64;
  } else if (algo == "sha384") {
    len = 96;
  } else if (algo == "sha512") {
    len = 128;
  } else {
    return fail(fmt::format("unsupported hash algorithm `{}` in `{}` (expected sha256, sha384 or sha512)",
                            value.substr(0, colon), value));
  }
  const std::string hex = ascii_lower(value.substr(colon + 1));
  for (const char c : hex) {
    if (!is_ascii_hex_digit(c)) return fail(fmt::format("invalid hash `{}`: the digest must be hexadecimal", value));
  }
  if (hex.size() != len)
    return fail(fmt::format("invalid hash `{}`: a {} digest has {} hex digits, not {}", value, algo, len, hex.size()));
  return algo + ":" + hex;
}

// Whether a requirement token looks like a URL or a path (which pip would install from).
bool looks_like_location(std::string_view req) {
  if (req.find("://") != std::string_view::npos) return true;
  if (req.starts_with(".") || req.starts_with("/") || req.starts_with("~")) return true;
  for (std::string_view ext : {".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz"})
    if (req.ends_with(ext)) return true;
  return false;
}

}  // namespace

Result<RequirementsFile> parse_requirements_file(std::string_view text, const std::string& source) {
  RequirementsFile file;
  file.source = source;
  for (const Line& line : logical_lines(text)) {
    const std::string_view content = ascii_trim(line.text);
    if (content.empty()) continue;
    auto error = [&](const std::string& what) { return fail(fmt::format("{}:{}: {}", source, line.number, what)); };
    const auto tokens = split_ws(content);
    // The requirement is everything before the first token that starts with `-`.
    std::size_t first_opt = 0;
    while (first_opt < tokens.size() && !tokens[first_opt].starts_with("-")) ++first_opt;
    std::string_view req_text;
    if (first_opt > 0) {
      const auto end = first_opt < tokens.size() ? static_cast<std::size_t>(tokens[first_opt].data() - content.data())
                                                 : content.size();
      req_text = ascii_trim(content.substr(0, end));
    }
    auto opts = parse_options(
        std::vector<std::string_view>(tokens.begin() + static_cast<std::ptrdiff_t>(first_opt), tokens.end()));
    if (!opts) return error(opts.error().message);

    if (!req_text.empty()) {
      auto req = markers::Requirement::parse(req_text);
      if (!req) {
        if (looks_like_location(req_text))
          return error(fmt::format("`{}`: URLs and paths are not supported, only requirements by name", req_text));
        return error(req.error().message);
      }
      if (!req->url.empty()) return error(fmt::format("direct URL requirements are not supported: `{}`", req_text));
      RequirementEntry entry;
      entry.requirement = std::move(*req);
      entry.line = line.number;
      for (const auto& o : *opts) {
        if (o.opt != Opt::hash)
          return error(fmt::format("option `{}` is not allowed after a requirement (only `--hash`)", o.name));
        auto h = check_hash(o.value);
        if (!h) return error(h.error().message);
        entry.hashes.push_back(std::move(*h));
      }
      file.requirements.push_back(std::move(entry));
      continue;
    }
    for (auto& o : *opts) {
      switch (o.opt) {
        case Opt::index_url:
          file.index_urls.push_back(std::move(o.value));
          break;
        case Opt::extra_index_url:
          file.extra_index_urls.push_back(std::move(o.value));
          break;
        case Opt::find_links:
          file.find_links.push_back(std::move(o.value));
          break;
        case Opt::no_index:
          file.no_index = true;
          break;
        case Opt::pre:
          file.pre = true;
          break;
        case Opt::require_hashes:
          file.require_hashes = true;
          break;
        case Opt::requirement:
        case Opt::constraint:
          file.references.push_back(FileReference{
              o.opt == Opt::requirement ? FileReference::Kind::requirement : FileReference::Kind::constraint,
              std::move(o.value), line.number});
          break;
        case Opt::hash:
          return error(fmt::format("`{}` must follow a requirement on the same line", o.name));
        case Opt::editable:
          return error("editable requirements are not supported");
      }
    }
  }
  return file;
}

}  // namespace vwheel::resolve
