// The JSON reader for untrusted documents: nlohmann's SAX parser with a builder that limits depth
// and size and refuses repeated keys (see core/json.hpp for why).

#include "core/json.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include <fmt/format.h>

#include "vwheel/core/text.hpp"

namespace vwheel {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxWhat = 300;  // characters of a message's `what`
constexpr std::size_t kMaxKey = 40;    // bytes of one key shown in a pointer

// A `const char*` that records how far nlohmann's lexer has read, so that the builder can say
// where an event happened: the lexer reads one byte past a token at most, and the events the
// builder refuses (an opening bracket, a key) are reported right after their last byte is read.
class TrackingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator(const char* at, const char** read_to) : at_(at), read_to_(read_to) {}
  reference operator*() const { return *at_; }
  TrackingIterator& operator++() {
    *read_to_ = ++at_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackingIterator& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  const char** read_to_;
};

// Builds the tree from SAX events (the interface json::sax_parse expects), stopping at the first
// event that breaks a limit.
class Builder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  Builder(Json& root, const JsonLimits& limits, std::string_view text, const char* const& read_to)
      : root_(root), limits_(limits), text_(text), read_to_(read_to) {}

  bool null() { return put(nullptr) != nullptr; }
  bool boolean(bool value) { return put(value) != nullptr; }
  bool number_integer(number_integer_t value) { return put(value) != nullptr; }
  bool number_unsigned(number_unsigned_t value) { return put(value) != nullptr; }
  bool number_float(number_float_t value, const string_t& /*text*/) { return put(value) != nullptr; }
  bool string(string_t& value) { return put(std::move(value)) != nullptr; }
  bool binary(binary_t& value) { return put(std::move(value)) != nullptr; }  // not produced by JSON text

  bool start_object(std::size_t /*unknown*/) { return open(Json::value_t::object); }
  bool start_array(std::size_t /*unknown*/) { return open(Json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& key) {
    Frame& frame = stack_.back();
    auto& members = frame.value->get_ref<Json::object_t&>();
    if (members.size() >= limits_.max_members) {
      return stop(JsonError::Kind::too_many_members,
                  fmt::format("more than {} members in one object", limits_.max_members), path_to_top());
    }
    // try_emplace leaves `key` alone when it is already there, so the message can name it.
    auto [it, inserted] = members.try_emplace(std::move(key), nullptr);
    if (!inserted) {
      auto path = path_to_top();
      path.emplace_back(key);
      return stop(JsonError::Kind::duplicate_key,
                  fmt::format("key \"{}\" appears twice in the same object", excerpt(key, kMaxWhat - 40)),
                  std::move(path));
    }
    frame.key = &it->first;
    member_ = &it->second;
    return true;
  }

  template <class Exception>
  bool parse_error(std::size_t position, const std::string& /*token*/, const Exception& e) {
    std::string_view what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    if (const auto pos = what.find("] "); what.starts_with("[json.exception.") && pos != std::string_view::npos) {
      what.remove_prefix(pos + 2);
    }
    error_.kind = JsonError::Kind::syntax;
    error_.what = excerpt(what, kMaxWhat);
    locate(std::min(position == 0 ? 0 : position - 1, text_.size()));  // position: bytes read
    // Out-of-range numbers ("number overflow parsing '1E400'") come without a place.
    if (what.find(" at line ") == std::string_view::npos) {
      error_.what += fmt::format(" at line {}, column {}", error_.line, error_.column);
    }
    return false;
  }

  [[nodiscard]] JsonError take_error() { return std::move(error_); }

 private:
  struct Frame {
    Json* value;
    const std::string* key = nullptr;  // an object's latest member (its node never moves)
  };

  // Places a value where the parse stands: the root, the next element of the array, or the
  // member whose key was just read. nullptr when that array is full.
  template <class Value>
  Json* put(Value&& value) {
    if (stack_.empty()) {
      root_ = Json(std::forward<Value>(value));
      return &root_;
    }
    Json& parent = *stack_.back().value;
    if (parent.is_array()) {
      auto& elements = parent.get_ref<Json::array_t&>();
      if (elements.size() >= limits_.max_members) {
        stop(JsonError::Kind::too_many_members, fmt::format("more than {} elements in one array", limits_.max_members),
             path_to_top());
        return nullptr;
      }
      elements.emplace_back(std::forward<Value>(value));
      return &elements.back();
    }
    *member_ = Json(std::forward<Value>(value));
    return member_;
  }

  bool open(Json::value_t type) {
    if (stack_.size() >= limits_.max_depth) {
      auto path = path_to_top();
      if (!stack_.empty()) {
        const Frame& top = stack_.back();
        if (top.value->is_array()) {
          path.emplace_back(top.value->size());
        } else {
          path.emplace_back(*top.key);
        }
      }
      return stop(JsonError::Kind::depth, fmt::format("nested more than {} levels deep", limits_.max_depth),
                  std::move(path));
    }
    Json* value = put(type);
    if (value == nullptr) return false;
    stack_.push_back({value, nullptr});
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  // The way from the root to the innermost open container.
  [[nodiscard]] std::vector<JsonPathSegment> path_to_top() const {
    std::vector<JsonPathSegment> path;
    for (std::size_t i = 0; i + 1 < stack_.size(); ++i) {
      const Frame& frame = stack_[i];
      if (frame.value->is_array()) {
        path.emplace_back(frame.value->size() - 1);  // the open child is the last element
      } else {
        path.emplace_back(*frame.key);
      }
    }
    return path;
  }

  bool stop(JsonError::Kind kind, std::string what, std::vector<JsonPathSegment> path) {
    error_.kind = kind;
    error_.what = std::move(what);
    error_.path = std::move(path);
    const auto read = static_cast<std::size_t>(read_to_ - text_.data());
    locate(read == 0 ? 0 : read - 1);
    return false;
  }

  // Line and column of the byte at `offset` (one scan, only when there is an error).
  void locate(std::size_t offset) {
    const std::string_view before = text_.substr(0, offset);
    error_.line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const auto newline = before.rfind('\n');
    error_.column = newline == std::string_view::npos ? offset + 1 : offset - newline;
  }

  Json& root_;
  const JsonLimits& limits_;
  std::string_view text_;
  const char* const& read_to_;
  std::vector<Frame> stack_;
  Json* member_ = nullptr;
  JsonError error_;
};

}  // namespace

std::string JsonError::pointer() const {
  std::string out;
  for (const auto& segment : path) {
    out += '/';
    if (const auto* index = std::get_if<std::size_t>(&segment)) {
      out += std::to_string(*index);
      continue;
    }
    const auto& key = std::get<std::string>(segment);
    if (key.size() <= kMaxKey) {
      out += json_pointer_token(key);
    } else {
      out += json_pointer_token(utf8_prefix(key, kMaxKey));
      out += "...";
    }
  }
  // 64 levels of long keys would make a message of kilobytes: keep the end, where the fault is.
  constexpr std::size_t kMaxPointer = 300;
  if (out.size() > kMaxPointer) {
    const auto cut = out.find('/', out.size() - kMaxPointer);  // a whole segment; there is one
    out = "..." + out.substr(cut == std::string::npos ? out.size() - kMaxPointer : cut);
  }
  return printable(out);
}

std::string JsonError::message() const {
  if (kind == Kind::syntax) return what;
  return fmt::format("{} at {} (line {}, column {})", what, path.empty() ? std::string("the root") : pointer(), line,
                     column);
}

tl::expected<nlohmann::json, JsonError> parse_untrusted_json(std::string_view text, const JsonLimits& limits) {
  Json root;
  const char* read_to = text.data();
  Builder builder(root, limits, text, read_to);
  const TrackingIterator first(text.data(), &read_to);
  const TrackingIterator last(text.data() + text.size(), &read_to);
  if (!Json::sax_parse(first, last, &builder)) return tl::unexpected(builder.take_error());
  return root;
}

}  // namespace vwheel
