#include "vwheel/install/layout.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "vwheel/core/text.hpp"

namespace vwheel::install {
namespace {

bool is_identifier(std::string_view s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
    if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool is_dotted(std::string_view s) {
  if (s.empty()) return false;
  std::size_t start = 0;
  while (true) {
    const auto dot = s.find('.', start);
    if (!is_identifier(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

std::string_view to_string(SchemeKey key) noexcept {
  switch (key) {
    case SchemeKey::Purelib: return "purelib";
    case SchemeKey::Platlib: return "platlib";
    case SchemeKey::Scripts: return "scripts";
    case SchemeKey::Headers: return "headers";
    case SchemeKey::Data: return "data";
  }
  return "?";
}

const std::filesystem::path& Scheme::dir(SchemeKey key) const noexcept {
  switch (key) {
    case SchemeKey::Purelib: return purelib;
    case SchemeKey::Platlib: return platlib;
    case SchemeKey::Scripts: return scripts;
    case SchemeKey::Headers: return headers;
    case SchemeKey::Data: return data;
  }
  return purelib;
}

Result<void> check_member_name(std::string_view name) {
  auto bad = [&](std::string_view why) {
    std::string shown;
    for (char c : name) {
      if (static_cast<unsigned char>(c) < 0x20) {
        shown += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
      } else {
        shown.push_back(c);
      }
    }
    return fail(fmt::format("member `{}`: {}", shown, why));
  };
  if (name.empty()) return bad("empty name");
  if (name.front() == '/') return bad("absolute path (expected a path relative to the wheel root)");
  for (char c : name) {
    if (c == '\\') return bad("backslash in the name (expected `/` separators)");
    if (c == '\0') return bad("NUL byte in the name");
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return bad("control character in the name");
  }
  std::string_view rest = name;
  if (rest.back() == '/') rest.remove_suffix(1);
  std::size_t start = 0;
  while (start <= rest.size()) {
    const auto slash = rest.find('/', start);
    const auto part = rest.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty()) return bad("empty path component");
    if (part == "..") return bad("`..` component (path traversal)");
    if (part == ".") return bad("`.` component");
    // vwheel's own names (staging `.vwheel-tmp-*`, `.vwheel.lock`, `.vwheel-journal`): a wheel
    // installing one could be taken for, or clobber, the installer's state.
    if (part == ".vwheel.lock" || part.starts_with(".vwheel-")) {
      return bad(fmt::format("`{}` is a name vwheel reserves for its own files (refused)", part));
    }
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return {};
}

Result<void> check_member_mode(std::string_view name, std::uint32_t mode) {
  const auto type = mode & S_IFMT;
  if (type == 0 || type == S_IFREG || type == S_IFDIR) return {};
  if (type == S_IFLNK) return fail(fmt::format("member `{}`: a symbolic link (refused)", name));
  return fail(fmt::format("member `{}`: not a regular file (mode {:o}; refused)", name, mode));
}

Result<Destination> map_member(std::string_view name, std::string_view data_dir, bool root_is_purelib) {
  if (name.size() > data_dir.size() && name.substr(0, data_dir.size()) == data_dir && name[data_dir.size()] == '/') {
    auto rest = name.substr(data_dir.size() + 1);
    const auto slash = rest.find('/');
    const auto key = rest.substr(0, slash);
    if (slash == std::string_view::npos || slash + 1 >= rest.size()) {
      return fail(fmt::format("member `{}`: expected a file below `{}/{}/`", name, data_dir, key));
    }
    Destination d;
    d.relative = std::string(rest.substr(slash + 1));
    if (key == "purelib") {
      d.key = SchemeKey::Purelib;
    } else if (key == "platlib") {
      d.key = SchemeKey::Platlib;
    } else if (key == "scripts") {
      d.key = SchemeKey::Scripts;
    } else if (key == "headers") {
      d.key = SchemeKey::Headers;
    } else if (key == "data") {
      d.key = SchemeKey::Data;
    } else {
      return fail(fmt::format("member `{}`: unknown scheme `{}` in `{}` (expected purelib, platlib, scripts, "
                              "headers or data)",
                              name, key, data_dir));
    }
    return d;
  }
  return Destination{root_is_purelib ? SchemeKey::Purelib : SchemeKey::Platlib, std::string(name)};
}

std::optional<std::string> header_value(std::string_view text, std::string_view field) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // end of the header block
    if (line.front() == ' ' || line.front() == '\t') continue;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (ascii_iequals(ascii_trim(line.substr(0, colon)), field)) return std::string(ascii_trim(line.substr(colon + 1)));
  }
  return std::nullopt;
}

Result<WheelInfo> parse_wheel_info(std::string_view text, std::string_view source) {
  WheelInfo info;
  auto version = header_value(text, "Wheel-Version");
  if (!version) return fail(fmt::format("{}: no `Wheel-Version` field", source));
  const auto dot = version->find('.');
  auto number = [](std::string_view s) -> std::optional<int> {
    if (s.empty() || s.size() > 6) return std::nullopt;
    int v = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v;
  };
  auto major = number(std::string_view(*version).substr(0, dot));
  auto minor = dot == std::string::npos ? std::optional<int>() : number(std::string_view(*version).substr(dot + 1));
  if (!major || !minor) return fail(fmt::format("{}: `Wheel-Version: {}`: expected MAJOR.MINOR", source, *version));
  if (*major > 1) {
    return fail(fmt::format("{}: `Wheel-Version: {}`: this installer supports wheel format version 1", source, *version));
  }
  info.version_major = *major;
  info.version_minor = *minor;
  if (auto purelib = header_value(text, "Root-Is-Purelib"); purelib) {
    if (ascii_iequals(*purelib, "true")) {
      info.root_is_purelib = true;
    } else if (ascii_iequals(*purelib, "false")) {
      info.root_is_purelib = false;
    } else {
      return fail(fmt::format("{}: `Root-Is-Purelib: {}`: expected true or false", source, *purelib));
    }
  }
  return info;
}

NameVersion parse_metadata_name_version(std::string_view text) {
  return {header_value(text, "Name").value_or(""), header_value(text, "Version").value_or("")};
}

Result<std::vector<EntryPoint>> parse_entry_points(std::string_view text) {
  std::vector<EntryPoint> out;
  std::string section;
  std::size_t pos = 0;
  std::size_t line_no = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    auto line = ascii_trim(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') return fail(fmt::format("entry_points.txt line {}: unterminated section header", line_no));
      section = std::string(ascii_trim(line.substr(1, line.size() - 2)));
      continue;
    }
    if (section != "console_scripts" && section != "gui_scripts") continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      return fail(fmt::format("entry_points.txt line {}: expected `name = module:attr`", line_no));
    }
    EntryPoint ep;
    ep.gui = section == "gui_scripts";
    ep.name = std::string(ascii_trim(line.substr(0, eq)));
    auto value = ascii_trim(line.substr(eq + 1));
    if (auto bracket = value.find('['); bracket != std::string_view::npos) value = ascii_trim(value.substr(0, bracket));
    const auto colon = value.find(':');
    ep.module = std::string(ascii_trim(value.substr(0, colon)));
    if (colon != std::string_view::npos) ep.attr = std::string(ascii_trim(value.substr(colon + 1)));
    const bool name_ok = !ep.name.empty() && ep.name != "." && ep.name != ".." &&
                         ep.name.find_first_of(std::string_view("/\\\0", 3)) == std::string::npos;
    if (!name_ok) return fail(fmt::format("entry_points.txt line {}: script name `{}` is not a file name", line_no, ep.name));
    if (!is_dotted(ep.module) || (!ep.attr.empty() && !is_dotted(ep.attr))) {
      return fail(fmt::format("entry_points.txt line {}: `{}`: expected module:attribute (dotted identifiers)", line_no,
                              value));
    }
    out.push_back(std::move(ep));
  }
  return out;
}

std::string shebang_for(const std::filesystem::path& python) {
  const auto p = python.string();
  if (p.find(' ') == std::string::npos && p.size() <= 127) return "#!" + p + "\n";
  return fmt::format("#!/bin/sh\n'''exec' \"{}\" \"$0\" \"$@\"\n' '''\n", p);
}

std::optional<std::string> rewrite_shebang(std::string_view content, const std::filesystem::path& python) {
  if (content.substr(0, 8) != "#!python") return std::nullopt;
  const auto nl = content.find('\n');
  std::string out = shebang_for(python);
  if (nl != std::string_view::npos) out.append(content.substr(nl + 1));
  return out;
}

std::string make_launcher(const EntryPoint& ep, const std::filesystem::path& python) {
  std::string out = shebang_for(python);
  out += "# -*- coding: utf-8 -*-\nimport re\nimport sys\n";
  std::string call;
  if (ep.attr.empty()) {
    out += fmt::format("import {}\n", ep.module);
    call = ep.module;
  } else {
    const auto head = ep.attr.substr(0, ep.attr.find('.'));
    out += fmt::format("from {} import {}\n", ep.module, head);
    call = ep.attr;
  }
  out += "if __name__ == \"__main__\":\n";
  out += "    sys.argv[0] = re.sub(r\"(-script\\.pyw|\\.exe)?$\", \"\", sys.argv[0])\n";
  out += fmt::format("    sys.exit({}())\n", call);
  return out;
}

std::string file_url(const std::filesystem::path& absolute) {
  return "file://" + percent_encode(absolute.string(), "/");
}

std::string direct_url_json(const DirectUrl& direct) {
  nlohmann::ordered_json j;
  j["url"] = url_userinfo(direct.url) == "git" ? direct.url : url_without_userinfo(direct.url);
  if (direct.subdirectory) j["subdirectory"] = *direct.subdirectory;
  if (direct.vcs) {
    auto& info = j["vcs_info"];
    info["vcs"] = direct.vcs->vcs;
    if (direct.vcs->requested_revision) info["requested_revision"] = *direct.vcs->requested_revision;
    info["commit_id"] = direct.vcs->commit_id;
  } else if (direct.archive_sha256) {
    j["archive_info"]["hashes"]["sha256"] = *direct.archive_sha256;
    j["archive_info"]["hash"] = "sha256=" + *direct.archive_sha256;
  } else {
    j["dir_info"] = nlohmann::ordered_json::object();
    if (direct.editable) j["dir_info"]["editable"] = true;
  }
  return j.dump();
}

std::string relative_path(const std::filesystem::path& target, const std::filesystem::path& base) {
  return target.lexically_normal().lexically_relative(base.lexically_normal()).generic_string();
}

bool is_within(const std::filesystem::path& path, const std::filesystem::path& dir) {
  const auto rel = path.lexically_normal().lexically_relative(dir.lexically_normal());
  if (rel.empty()) return false;
  const auto first = *rel.begin();
  return first != ".." && !rel.is_absolute();
}

namespace {

// `N` or `N.M`.
bool is_version_suffix(std::string_view s, bool minor_required) {
  const auto dot = s.find('.');
  if (dot == std::string_view::npos) return !minor_required && is_ascii_digits(s);
  return is_ascii_digits(s.substr(0, dot)) && is_ascii_digits(s.substr(dot + 1));
}

// `pip`, `pipN`, `pipN.M`.
bool is_pip_script(std::string_view name) {
  if (!name.starts_with("pip")) return false;
  const auto rest = name.substr(3);
  return rest.empty() || is_version_suffix(rest, false);
}

// `easy_install`, `easy_install-N.M`.
bool is_easy_install_script(std::string_view name) {
  constexpr std::string_view kBase = "easy_install";
  if (!name.starts_with(kBase)) return false;
  const auto rest = name.substr(kBase.size());
  return rest.empty() || (rest.starts_with('-') && is_version_suffix(rest.substr(1), true));
}

}  // namespace

std::vector<EntryPoint> with_versioned_script_names(std::vector<EntryPoint> entry_points,
                                                    std::string_view python_version) {
  if (python_version.empty()) return entry_points;
  const auto major = python_version.substr(0, python_version.find('.'));
  auto take = [&](std::string_view name) -> std::optional<EntryPoint> {
    for (const auto& e : entry_points) {
      if (!e.gui && e.name == name) return e;
    }
    return std::nullopt;
  };
  const auto pip = take("pip");
  const auto easy_install = take("easy_install");
  std::vector<EntryPoint> out;
  for (auto& e : entry_points) {
    if (!e.gui && pip && is_pip_script(e.name)) continue;
    if (!e.gui && easy_install && is_easy_install_script(e.name)) continue;
    out.push_back(std::move(e));
  }
  auto add = [&](const EntryPoint& base, std::string name) {
    EntryPoint e = base;
    e.name = std::move(name);
    out.push_back(std::move(e));
  };
  if (pip) {
    add(*pip, "pip");
    add(*pip, fmt::format("pip{}", major));
    add(*pip, fmt::format("pip{}", python_version));
  }
  if (easy_install) {
    add(*easy_install, "easy_install");
    add(*easy_install, fmt::format("easy_install-{}", python_version));
  }
  return out;
}

}  // namespace vwheel::install
