#include "vwheel/wheel/record.hpp"

#include <fmt/format.h>

#include "vwheel/core/hash.hpp"

namespace vwheel::wheel {
namespace {

// One CSV record starting at `pos`; advances `pos` past its line end. Quoted fields may span
// lines, as Python's csv module writes them.
Result<std::vector<std::string>> parse_csv_line(std::string_view text, std::size_t& pos, std::size_t line_no) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  bool was_quoted = false;
  while (pos < text.size()) {
    const char c = text[pos];
    if (quoted) {
      if (c == '"') {
        if (pos + 1 < text.size() && text[pos + 1] == '"') {
          fields.back().push_back('"');
          pos += 2;
          continue;
        }
        quoted = false;
      } else {
        fields.back().push_back(c);
      }
      ++pos;
      continue;
    }
    if (c == '\n' || c == '\r') {
      pos += (c == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') ? 2 : 1;
      return fields;
    }
    if (c == ',') {
      fields.emplace_back();
      was_quoted = false;
    } else if (c == '"' && fields.back().empty() && !was_quoted) {
      quoted = true;
      was_quoted = true;
    } else {
      fields.back().push_back(c);
    }
    ++pos;
  }
  if (quoted) return fail(fmt::format("RECORD line {}: unterminated quoted field", line_no));
  return fields;
}

}  // namespace

Result<std::vector<RecordRow>> parse_record(std::string_view text) {
  std::vector<RecordRow> rows;
  std::size_t pos = 0;
  std::size_t line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const std::size_t start = pos;
    auto fields = parse_csv_line(text, pos, line_no);
    if (!fields) return fail(fields.error());
    if (fields->size() == 1 && fields->front().empty() && text.substr(start, pos - start).find('"') == std::string_view::npos) {
      continue;  // blank line
    }
    if (fields->size() != 3) {
      return fail(fmt::format("RECORD line {}: expected 3 comma-separated fields (path,hash,size), found {}", line_no,
                              fields->size()));
    }
    rows.push_back(RecordRow{std::move((*fields)[0]), std::move((*fields)[1]), std::move((*fields)[2])});
  }
  return rows;
}

std::string base64url_nopad(std::string_view data) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((data.size() * 4 + 2) / 3);
  std::size_t i = 0;
  const auto byte = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(data[k])); };
  for (; i + 3 <= data.size(); i += 3) {
    const unsigned v = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  if (data.size() - i == 1) {
    const unsigned v = byte(i) << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
  } else if (data.size() - i == 2) {
    const unsigned v = (byte(i) << 16) | (byte(i + 1) << 8);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
  }
  return out;
}

std::string record_hash(std::string_view data) {
  const auto digest = sha256(data);
  return "sha256=" +
         base64url_nopad(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

std::string record_line(std::string_view path, std::string_view data) {
  std::string field;
  if (path.find_first_of(",\"\r\n") != std::string_view::npos) {
    field.push_back('"');
    for (char c : path) {
      if (c == '"') field.push_back('"');
      field.push_back(c);
    }
    field.push_back('"');
  } else {
    field = path;
  }
  return fmt::format("{},{},{}\n", field, record_hash(data), data.size());
}

Result<std::string> replace_record_entry(std::string_view record, std::string_view path,
                                         std::optional<std::string_view> line) {
  std::string out;
  out.reserve(record.size() + (line ? line->size() + 1 : 0));
  std::size_t pos = 0;
  std::size_t line_no = 0;
  while (pos < record.size()) {
    ++line_no;
    const std::size_t start = pos;
    // Fast path for the common line without quotes: the path is everything before the first comma.
    const std::size_t eol = record.find('\n', pos);
    const std::size_t end = eol == std::string_view::npos ? record.size() : eol + 1;
    const auto text = record.substr(start, end - start);
    if (text.find('"') == std::string_view::npos) {
      pos = end;
      const auto comma = text.find(',');
      if (comma != std::string_view::npos && text.substr(0, comma) == path) continue;
      out.append(text);
      continue;
    }
    auto fields = parse_csv_line(record, pos, line_no);
    if (!fields) return fail(fields.error());
    if (!fields->empty() && fields->front() == path) continue;
    out.append(record.substr(start, pos - start));
  }
  if (line) {
    if (!out.empty() && out.back() != '\n') out.push_back('\n');
    out.append(*line);
  }
  return out;
}

}  // namespace vwheel::wheel
