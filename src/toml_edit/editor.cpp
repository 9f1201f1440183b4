// The TOML text editor (see editor.hpp): the text plus its statements, rescanned after every
// edit, so that every lookup works on the current bytes.

#include "vwheel/toml_edit/editor.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "toml_edit/internal.hpp"
#include "vwheel/core/text.hpp"

namespace vwheel::toml_edit {

std::string toml_string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += toml_string(items[i]);
  }
  return out + "]";
}

std::string toml_path_text(const TomlPath& path, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < path.size(); ++i) {
    if (i > from) out += '.';
    out += toml_key(path[i]);
  }
  return out;
}

namespace {

using detail::kNone;
using Path = TomlPath;

bool has_prefix(const Path& path, const Path& prefix) {
  return path.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

Path join(Path path, std::string_view key) {
  path.emplace_back(key);
  return path;
}

}  // namespace

class Editor::Impl {
 public:
  static Result<Impl> open(std::string_view text) {
    Impl ed;
    ed.text_.assign(text);
    const auto lf = text.find('\n');
    ed.nl_ = (lf != std::string_view::npos && lf > 0 && text[lf - 1] == '\r') ? "\r\n" : "\n";
    if (auto r = ed.rescan(); !r) return fail(r.error());
    return ed;
  }

  [[nodiscard]] const std::string& text() const noexcept { return text_; }
  [[nodiscard]] const std::vector<TomlStatement>& statements() const noexcept { return st_; }

  /// Sets `table.key = value` (value: TOML text): replaces an existing value, else adds the key.
  Result<void> set_value(const Path& table, const std::string& key, const std::string& value) {
    const Path full = join(table, key);
    if (const auto kv = find_kv(full); kv != kNone) {
      text_.replace(st_[kv].value_begin, st_[kv].value_end - st_[kv].value_begin, value);
      return rescan();
    }
    if (const auto b = blocker(full); b != kNone) return blocked(b, full, table);
    if (const auto kv = last_kv_of_table(table); kv.index != kNone || kv.header != kNone) {
      const std::size_t after = kv.index != kNone ? kv.index : kv.header;
      const std::string indent = kv.index != kNone ? indent_of(kv.index) : "";
      const std::size_t section_size =
          st_[after].kind == TomlStatementKind::KeyValue ? section_[after].size() : table.size();
      const std::string rel = section_size < table.size() ? toml_path_text(table, section_size) + "." : "";
      return insert_lines(st_[after].end, indent + rel + toml_key(key) + " = " + value + nl_);
    }
    const auto where = new_table_place(table);
    if (where.dotted != kNone) {
      const auto& s = section_[where.dotted];
      return insert_lines(st_[where.dotted].end,
                          indent_of(where.dotted) + toml_path_text(full, s.size()) + " = " + value + nl_);
    }
    return insert_table(where.pos, table, toml_key(key) + " = " + value + nl_);
  }

  /// Removes everything that defines `path` (a table or a key). Returns how many statements went.
  /// `table`: the table to suggest when `path` is inside an inline table.
  Result<std::size_t> remove(const Path& path, const Path& table) {
    if (const auto b = blocker(path); b != kNone) return blocked(b, path, table);
    using Range = std::pair<std::size_t, std::size_t>;
    std::vector<Range> ranges;
    std::set<Path> touched;
    std::size_t count = 0;
    for (std::size_t i = 0; i < st_.size(); ++i) {
      const auto& st = st_[i];
      const bool header = st.kind == TomlStatementKind::Table || st.kind == TomlStatementKind::ArrayTable;
      if (header && has_prefix(st.key, path)) {
        const std::size_t last = last_kv_in_section(i);
        ranges.push_back({with_blank_before(i), last != kNone ? st_[last].end : st.end});
        ++count;
      } else if (st.kind == TomlStatementKind::KeyValue && has_prefix(full_[i], path) &&
                 !has_prefix(section_[i], path)) {
        ranges.push_back({st.begin, st.end});
        if (header_[i] != kNone) touched.insert(section_[i]);
        ++count;
      }
    }
    erase_ranges(ranges);
    if (auto r = rescan(); !r) return fail(r.error());
    // Drop headers that this left without keys or comments.
    std::vector<Range> empty;
    for (std::size_t i = 0; i < st_.size(); ++i) {
      if (st_[i].kind != TomlStatementKind::Table || !touched.contains(st_[i].key)) continue;
      bool has_content = false;
      for (std::size_t j = i + 1; j < st_.size() && header_[j] == i; ++j) {
        if (st_[j].kind != TomlStatementKind::Blank) has_content = true;
      }
      if (!has_content) empty.push_back({with_blank_before(i), st_[i].end});
    }
    erase_ranges(empty);
    if (auto r = rescan(); !r) return fail(r.error());
    return count;
  }

  /// Inserts `value` (TOML text) at `index` of the array at `key`, keeping the array's style.
  Result<void> array_insert(const Path& key, std::size_t index, const std::string& value) {
    auto located = array_at(key);
    if (!located) return fail(located.error());
    const auto& [kv, elements] = *located;
    const auto& st = st_[kv];
    const bool multiline = text_.substr(st.value_begin, st.value_end - st.value_begin).find('\n') != std::string::npos;
    const std::string step = indent_of(kv) + "    ";
    if (elements.empty()) {
      if (!multiline) {
        text_.replace(st.value_begin, st.value_end - st.value_begin, "[" + value + "]");
        return rescan();
      }
      const std::size_t lf = text_.find('\n', st.value_begin);
      return insert_lines(lf + 1, step + value + "," + nl_);
    }
    if (index < elements.size()) {
      const auto& e = elements[index];
      if (first_on_line(e.begin)) {
        const std::size_t start = line_start(e.begin);
        return insert_lines(start, text_.substr(start, e.begin - start) + value + "," + nl_);
      }
      text_.insert(e.begin, value + inline_separator(elements));
      return rescan();
    }
    const auto& last = elements.back();
    const auto tail = after_element(last);
    if (tail.line_end != kNone) {
      const std::string lead =
          first_on_line(last.begin) ? text_.substr(line_start(last.begin), last.begin - line_start(last.begin)) : step;
      text_.insert(tail.line_end, lead + value + (tail.comma != kNone ? "," : "") + nl_);
      if (tail.comma == kNone) text_.insert(last.end, ",");
      return rescan();
    }
    text_.insert(last.end, inline_separator(elements) + value);
    return rescan();
  }

  /// Removes every string element equal to `value` from the array at `key`; returns how many.
  Result<std::size_t> array_remove(const Path& key, std::string_view value) {
    std::size_t removed = 0;
    for (;;) {
      auto located = array_at(key);
      if (!located) return fail(located.error());
      const auto& [kv, elements] = *located;
      const auto it = std::find_if(elements.begin(), elements.end(),
                                   [&](const TomlArrayElement& e) { return e.string && *e.string == value; });
      if (it == elements.end()) return removed;
      remove_element(elements, static_cast<std::size_t>(it - elements.begin()));
      if (auto r = rescan(); !r) return fail(r.error());
      ++removed;
    }
  }

  /// The number of elements of the array at `key`.
  Result<std::size_t> array_size(const Path& key) {
    auto located = array_at(key);
    if (!located) return fail(located.error());
    return located->second.size();
  }

 private:
  std::string text_;
  std::string nl_ = "\n";
  std::vector<TomlStatement> st_;
  std::vector<Path> section_;        // per statement: the table it is in ([] = the root table)
  std::vector<std::size_t> header_;  // per statement: index of its section's header, or kNone
  std::vector<Path> full_;           // per KeyValue: section + key

  Result<void> rescan() {
    auto st = scan_toml(text_);
    if (!st) return fail(st.error());
    st_ = std::move(*st);
    section_.assign(st_.size(), Path{});
    header_.assign(st_.size(), kNone);
    full_.assign(st_.size(), Path{});
    Path section;
    std::size_t header = kNone;
    for (std::size_t i = 0; i < st_.size(); ++i) {
      const auto& s = st_[i];
      if (s.kind == TomlStatementKind::Table || s.kind == TomlStatementKind::ArrayTable) {
        section = s.key;
        header = i;
        full_[i] = s.key;
      } else if (s.kind == TomlStatementKind::KeyValue) {
        full_[i] = section;
        full_[i].insert(full_[i].end(), s.key.begin(), s.key.end());
      }
      section_[i] = section;
      header_[i] = header;
    }
    return {};
  }

  [[nodiscard]] bool is_header(std::size_t i) const {
    return st_[i].kind == TomlStatementKind::Table || st_[i].kind == TomlStatementKind::ArrayTable;
  }

  [[nodiscard]] std::size_t find_kv(const Path& full) const {
    for (std::size_t i = 0; i < st_.size(); ++i) {
      if (st_[i].kind == TomlStatementKind::KeyValue && full_[i] == full) return i;
    }
    return kNone;
  }

  // A key/value whose value (an inline table or any non-table) contains `full`.
  [[nodiscard]] std::size_t blocker(const Path& full) const {
    for (std::size_t i = 0; i < st_.size(); ++i) {
      if (st_[i].kind == TomlStatementKind::KeyValue && full_[i].size() < full.size() && has_prefix(full, full_[i])) {
        return i;
      }
    }
    return kNone;
  }

  // `table`: the table the edit is in, suggested as a `[header]`.
  [[nodiscard]] tl::unexpected<Error> blocked(std::size_t kv, const Path& wanted, const Path& table) const {
    const bool inline_table = text_[st_[kv].value_begin] == '{';
    return fail(
        fmt::format("line {}: `{}` is written as {}, which vwheel does not edit in place (it would change "
                    "`{}`); write it as a `[{}]` table with one key per line instead",
                    st_[kv].line, toml_path_text(full_[kv]), inline_table ? "an inline table" : "a value",
                    toml_path_text(wanted), toml_path_text(table)));
  }

  [[nodiscard]] std::size_t table_header(const Path& table) const {
    for (std::size_t i = 0; i < st_.size(); ++i) {
      if (st_[i].kind == TomlStatementKind::Table && st_[i].key == table) return i;
    }
    return kNone;
  }

  [[nodiscard]] std::size_t last_kv_in_section(std::size_t header) const {
    std::size_t last = kNone;
    for (std::size_t j = header + 1; j < st_.size() && header_[j] == header; ++j) {
      if (st_[j].kind == TomlStatementKind::KeyValue) last = j;
    }
    return last;
  }

  // Where a section's content ends: after its last key, or after its header.
  [[nodiscard]] std::size_t section_end(std::size_t header) const {
    const std::size_t last = last_kv_in_section(header);
    return last != kNone ? st_[last].end : st_[header].end;
  }

  struct TableKeys {
    std::size_t index = kNone;   // the last key/value defining the table
    std::size_t header = kNone;  // its header, when it has one and no key
  };

  // The last key of `table` where a new key can go: under its `[table]` header, or the last dotted
  // key that defines it from a table above (`[variant]` + `providers.x.requires = ...`).
  [[nodiscard]] TableKeys last_kv_of_table(const Path& table) const {
    TableKeys out;
    if (const auto h = table_header(table); h != kNone) {
      out.index = last_kv_in_section(h);
      if (out.index == kNone) out.header = h;
      return out;
    }
    for (std::size_t i = 0; i < st_.size(); ++i) {
      if (st_[i].kind == TomlStatementKind::KeyValue && full_[i].size() > table.size() && has_prefix(full_[i], table) &&
          section_[i].size() < table.size() && has_prefix(table, section_[i])) {
        out.index = i;
      }
    }
    return out;
  }

  struct Place {
    std::size_t dotted = kNone;  // write dotted keys after this statement
    std::size_t pos = 0;         // else a new [table] header here
  };

  // Where a new table goes, in the style of its relatives (see the header).
  [[nodiscard]] Place new_table_place(const Path& table) const {
    for (std::size_t k = table.size() - 1; k >= 1; --k) {
      const Path above(table.begin(), table.begin() + static_cast<std::ptrdiff_t>(k));
      std::size_t last_header = kNone;
      std::size_t last_dotted = kNone;
      for (std::size_t i = 0; i < st_.size(); ++i) {
        if (st_[i].kind == TomlStatementKind::Table && st_[i].key.size() > above.size() &&
            has_prefix(st_[i].key, above)) {
          last_header = i;
        }
        if (st_[i].kind == TomlStatementKind::KeyValue && full_[i].size() > above.size() &&
            has_prefix(full_[i], above) && section_[i].size() <= above.size() && has_prefix(above, section_[i])) {
          last_dotted = i;
        }
      }
      if (last_header != kNone) return Place{kNone, section_end(last_header)};
      if (last_dotted != kNone) return Place{last_dotted, 0};
      if (const auto h = table_header(above); h != kNone) return Place{kNone, section_end(h)};
    }
    return Place{kNone, text_.size()};
  }

  [[nodiscard]] std::string indent_of(std::size_t i) const {
    const auto& st = st_[i];
    std::size_t p = st.begin;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) ++p;
    return text_.substr(st.begin, p - st.begin);
  }

  // Inserts whole lines at `pos` (a line start; at the end of a text without a final line
  // break, one is added first).
  Result<void> insert_lines(std::size_t pos, const std::string& lines) {
    std::string text = lines;
    if (pos > 0 && text_[pos - 1] != '\n') text.insert(0, nl_);
    text_.insert(pos, text);
    return rescan();
  }

  // A new `[table]` header with its lines at `pos`, after a blank line.
  Result<void> insert_table(std::size_t pos, const Path& table, const std::string& lines) {
    std::string text;
    if (pos > 0 && text_[pos - 1] != '\n') text += nl_;
    if (pos > 0) text += nl_;
    text += "[" + toml_path_text(table) + "]" + nl_ + lines;
    text_.insert(pos, text);
    return rescan();
  }

  // A header's start, extended over one blank line right before it.
  [[nodiscard]] std::size_t with_blank_before(std::size_t header) const {
    if (header > 0 && st_[header - 1].kind == TomlStatementKind::Blank) return st_[header - 1].begin;
    return st_[header].begin;
  }

  void erase_ranges(std::vector<std::pair<std::size_t, std::size_t>> ranges) {
    std::sort(ranges.begin(), ranges.end());
    for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) text_.erase(it->first, it->second - it->first);
  }

  Result<std::pair<std::size_t, std::vector<TomlArrayElement>>> array_at(const Path& key) const {
    const auto kv = find_kv(key);
    if (kv == kNone) {
      if (const auto b = blocker(key); b != kNone) return blocked(b, key, Path(key.begin(), key.end() - 1));
      return fail(fmt::format("`{}` not found", toml_path_text(key)));
    }
    if (text_[st_[kv].value_begin] != '[') {
      return fail(fmt::format("line {}: `{}` is not an array", st_[kv].line, toml_path_text(key)));
    }
    auto elements = scan_toml_array(text_, st_[kv].value_begin);
    if (!elements) return fail(elements.error());
    return std::make_pair(kv, std::move(*elements));
  }

  [[nodiscard]] std::size_t skip_spaces(std::size_t i) const {
    while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
    return i;
  }

  [[nodiscard]] std::size_t line_start(std::size_t pos) const {
    while (pos > 0 && text_[pos - 1] != '\n') --pos;
    return pos;
  }

  [[nodiscard]] bool first_on_line(std::size_t pos) const {
    std::size_t j = pos;
    while (j > 0 && (text_[j - 1] == ' ' || text_[j - 1] == '\t')) --j;
    return j == 0 || text_[j - 1] == '\n';
  }

  struct Tail {
    std::size_t comma = kNone;     // the comma right after the element (spaces allowed before it)
    std::size_t line_end = kNone;  // after the line break ending the element's line, when only
                                   // a comma, spaces and a comment follow it there
  };

  [[nodiscard]] Tail after_element(const TomlArrayElement& e) const {
    Tail tail;
    std::size_t q = skip_spaces(e.end);
    if (q < text_.size() && text_[q] == ',') {
      tail.comma = q;
      q = skip_spaces(q + 1);
    }
    if (q < text_.size() && text_[q] == '#') {
      while (q < text_.size() && text_[q] != '\n') ++q;
    }
    if (q < text_.size() && text_[q] == '\r' && q + 1 < text_.size() && text_[q + 1] == '\n') ++q;
    if (q < text_.size() && text_[q] == '\n') tail.line_end = q + 1;
    return tail;
  }

  // The separator the array uses between elements on one line (`, ` or `,`), else ", ".
  [[nodiscard]] std::string inline_separator(const std::vector<TomlArrayElement>& elements) const {
    for (std::size_t i = 0; i + 1 < elements.size(); ++i) {
      const auto sep = text_.substr(elements[i].end, elements[i + 1].begin - elements[i].end);
      if (std::count(sep.begin(), sep.end(), ',') == 1 &&
          std::all_of(sep.begin(), sep.end(), [](char c) { return c == ',' || c == ' ' || c == '\t'; })) {
        return sep;
      }
    }
    return ", ";
  }

  void remove_element(const std::vector<TomlArrayElement>& elements, std::size_t k) {
    const auto& e = elements[k];
    const auto tail = after_element(e);
    if (first_on_line(e.begin) && tail.line_end != kNone) {  // its own line
      std::vector<std::pair<std::size_t, std::size_t>> ranges{{line_start(e.begin), tail.line_end}};
      if (k + 1 == elements.size() && tail.comma == kNone && k > 0) {  // keep "no trailing comma"
        const auto before = after_element(elements[k - 1]);
        if (before.comma != kNone) ranges.emplace_back(before.comma, before.comma + 1);
      }
      erase_ranges(std::move(ranges));
      return;
    }
    if (k + 1 < elements.size()) {
      text_.erase(e.begin, elements[k + 1].begin - e.begin);
    } else if (k > 0) {
      text_.erase(elements[k - 1].end, e.end - elements[k - 1].end);
    } else {
      const std::size_t end = tail.comma != kNone ? skip_spaces(tail.comma + 1) : e.end;
      text_.erase(e.begin, end - e.begin);
    }
  }
};

Editor::Editor(std::unique_ptr<Impl> impl) noexcept : impl_(std::move(impl)) {}
Editor::Editor(Editor&&) noexcept = default;
Editor& Editor::operator=(Editor&&) noexcept = default;
Editor::~Editor() = default;

Result<Editor> Editor::open(std::string_view text) {
  auto impl = Impl::open(text);
  if (!impl) return fail(impl.error());
  return Editor(std::make_unique<Impl>(std::move(*impl)));
}

const std::string& Editor::text() const noexcept { return impl_->text(); }
const std::vector<TomlStatement>& Editor::statements() const noexcept { return impl_->statements(); }

Result<void> Editor::set_value(const TomlPath& table, const std::string& key, const std::string& value) {
  return impl_->set_value(table, key, value);
}
Result<std::size_t> Editor::remove(const TomlPath& path, const TomlPath& table) { return impl_->remove(path, table); }
Result<void> Editor::array_insert(const TomlPath& key, std::size_t index, const std::string& value) {
  return impl_->array_insert(key, index, value);
}
Result<std::size_t> Editor::array_remove(const TomlPath& key, std::string_view value) {
  return impl_->array_remove(key, value);
}
Result<std::size_t> Editor::array_size(const TomlPath& key) { return impl_->array_size(key); }

}  // namespace vwheel::toml_edit
