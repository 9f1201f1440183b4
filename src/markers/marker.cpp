#include "vwheel/core/text.hpp"
#include "vwheel/markers/marker.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "markers/parser.hpp"

namespace vwheel::markers {
namespace {

constexpr int kMaxNesting = 64;

struct VariableName {
  std::string_view name;
  Variable variable;
};

constexpr std::array<VariableName, 24> kVariableNames{{
    {"os_name", Variable::os_name},
    {"sys_platform", Variable::sys_platform},
    {"platform_machine", Variable::platform_machine},
    {"platform_python_implementation", Variable::platform_python_implementation},
    {"platform_release", Variable::platform_release},
    {"platform_system", Variable::platform_system},
    {"platform_version", Variable::platform_version},
    {"python_version", Variable::python_version},
    {"python_full_version", Variable::python_full_version},
    {"implementation_name", Variable::implementation_name},
    {"implementation_version", Variable::implementation_version},
    {"extra", Variable::extra},
    {"variant_label", Variable::variant_label},
    {"variant_properties", Variable::variant_properties},
    {"variant_features", Variable::variant_features},
    {"variant_namespaces", Variable::variant_namespaces},
    {"extras", Variable::extras},
    {"dependency_groups", Variable::dependency_groups},
    // legacy spellings accepted by packaging
    {"os.name", Variable::os_name},
    {"sys.platform", Variable::sys_platform},
    {"platform.version", Variable::platform_version},
    {"platform.machine", Variable::platform_machine},
    {"platform.python_implementation", Variable::platform_python_implementation},
    {"python_implementation", Variable::platform_python_implementation},
}};

// Indexed by Marker::Op.
std::string_view op_text(int op) noexcept {
  static constexpr std::array<std::string_view, 10> kText{"==", "!=", "<",   "<=", ">",
                                                          ">=", "~=", "===", "in", "not in"};
  return kText[static_cast<std::size_t>(op)];
}

void append_operand(std::string& out, const std::optional<Variable>& variable, const std::string& literal) {
  if (variable) {
    out += to_string(*variable);
    return;
  }
  const char quote = literal.find('"') == std::string::npos ? '"' : '\'';
  out += quote;
  out += literal;
  out += quote;
}

const std::set<std::string, std::less<>>& set_of(const Environment& env, Variable v) {
  switch (v) {
    case Variable::variant_properties:
      return env.variant_properties;
    case Variable::variant_features:
      return env.variant_features;
    case Variable::extras:
      return env.extras;
    case Variable::dependency_groups:
      return env.dependency_groups;
    default:
      return env.variant_namespaces;
  }
}

}  // namespace

std::string canonicalize_extra(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_sep) out += '-';
      in_sep = true;
      continue;
    }
    in_sep = false;
    out += ascii_lower(c);
  }
  return out;
}


std::string_view to_string(Variable variable) noexcept {
  for (const auto& v : kVariableNames) {
    if (v.variable == variable) return v.name;
  }
  return "?";
}

std::optional<Variable> variable_from_name(std::string_view name) noexcept {
  for (const auto& v : kVariableNames) {
    if (v.name == name) return v.variable;
  }
  return std::nullopt;
}

std::string normalize_variant_text(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 4);
  while (true) {
    const auto sep = text.find("::");
    out += ascii_trim(text.substr(0, sep));
    if (sep == std::string_view::npos) break;
    out += " :: ";
    text.remove_prefix(sep + 2);
  }
  return out;
}

// ---- parser ----

tl::unexpected<Error> MarkerParser::error(std::string_view message, std::size_t at) const {
  return fail(fmt::format("invalid {} `{}`: {} at column {}", what_, printable(src_), message, at + 1));
}

void MarkerParser::skip_ws() noexcept {
  while (pos_ < src_.size() && is_space_or_tab(src_[pos_])) ++pos_;
}

std::string_view MarkerParser::peek_word() const noexcept {
  std::size_t n = pos_;
  while (n < src_.size() && (is_ascii_alnum(src_[n]) || src_[n] == '_' || src_[n] == '.')) ++n;
  return src_.substr(pos_, n - pos_);
}

std::string_view MarkerParser::peek_identifier() const noexcept {
  if (pos_ >= src_.size() || !is_ascii_alnum(src_[pos_])) return {};
  std::size_t n = pos_ + 1;
  while (n < src_.size() && (is_ascii_alnum(src_[n]) || src_[n] == '_' || src_[n] == '.' || src_[n] == '-')) ++n;
  while (!is_ascii_alnum(src_[n - 1])) --n;  // must end in an alphanumeric
  return src_.substr(pos_, n - pos_);
}

bool MarkerParser::peek_keyword(std::string_view word) const noexcept { return peek_word() == word; }

Result<Marker> MarkerParser::parse_marker() {
  Marker m;
  auto root = parse_or(m, 0);
  if (!root) return fail(root.error());
  m.root_ = *root;
  return m;
}

Result<std::size_t> MarkerParser::parse_or(Marker& m, int depth) {
  auto first = parse_and(m, depth);
  if (!first) return first;
  std::vector<std::size_t> items{*first};
  while (true) {
    skip_ws();
    if (!peek_keyword("or")) break;
    advance(2);
    auto next = parse_and(m, depth);
    if (!next) return next;
    items.push_back(*next);
  }
  if (items.size() == 1) return items.front();
  Marker::Node node;
  node.kind = Marker::Node::Kind::any;
  node.children = std::move(items);
  m.nodes_.push_back(std::move(node));
  return m.nodes_.size() - 1;
}

Result<std::size_t> MarkerParser::parse_and(Marker& m, int depth) {
  auto first = parse_atom(m, depth);
  if (!first) return first;
  std::vector<std::size_t> items{*first};
  while (true) {
    skip_ws();
    if (!peek_keyword("and")) break;
    advance(3);
    auto next = parse_atom(m, depth);
    if (!next) return next;
    items.push_back(*next);
  }
  if (items.size() == 1) return items.front();
  Marker::Node node;
  node.kind = Marker::Node::Kind::all;
  node.children = std::move(items);
  m.nodes_.push_back(std::move(node));
  return m.nodes_.size() - 1;
}

Result<std::size_t> MarkerParser::parse_atom(Marker& m, int depth) {
  skip_ws();
  if (peek() != '(') return parse_item(m);
  const std::size_t open = pos_;
  if (depth >= kMaxNesting) return error(fmt::format("parentheses nested deeper than {}", kMaxNesting), open);
  advance();
  auto inner = parse_or(m, depth + 1);
  if (!inner) return inner;
  skip_ws();
  if (peek() != ')') return error(fmt::format("expected `)` to close the `(` at column {}", open + 1), pos_);
  advance();
  m.nodes_[*inner].parenthesized = true;
  return inner;
}

Result<Marker::Operand> MarkerParser::parse_operand() {
  skip_ws();
  const char c = peek();
  if (c == '"' || c == '\'') {
    const auto close = src_.find(c, pos_ + 1);
    if (close == std::string_view::npos) return error("unterminated string", pos_);
    Marker::Operand operand;
    operand.literal = std::string(src_.substr(pos_ + 1, close - pos_ - 1));
    pos_ = close + 1;
    return operand;
  }
  const auto word = peek_word();
  if (word.empty()) return error("expected a marker variable or quoted string", pos_);
  const auto variable = variable_from_name(word);
  if (!variable) return error(fmt::format("unknown marker variable `{}`", printable(word)), pos_);
  advance(word.size());
  Marker::Operand operand;
  operand.variable = variable;
  return operand;
}

Result<std::size_t> MarkerParser::parse_item(Marker& m) {
  skip_ws();
  const std::size_t start = pos_;
  auto lhs = parse_operand();
  if (!lhs) return fail(lhs.error());
  skip_ws();

  using MOp = Marker::Op;
  MOp op = MOp::equal;
  static constexpr std::array<std::pair<std::string_view, MOp>, 8> kOps{{
      {"===", MOp::arbitrary},
      {"==", MOp::equal},
      {"~=", MOp::compatible},
      {"!=", MOp::not_equal},
      {"<=", MOp::less_equal},
      {">=", MOp::greater_equal},
      {"<", MOp::less},
      {">", MOp::greater},
  }};
  const std::size_t op_pos = pos_;
  bool found = false;
  for (const auto& [text, o] : kOps) {
    if (src_.substr(pos_).starts_with(text)) {
      op = o;
      advance(text.size());
      found = true;
      break;
    }
  }
  if (!found) {
    if (peek_keyword("in")) {
      op = MOp::in;
      advance(2);
    } else if (peek_keyword("not")) {
      advance(3);
      if (!is_space_or_tab(peek())) return error("expected whitespace after `not`", pos_);
      skip_ws();
      if (!peek_keyword("in")) return error("expected `in` after `not`", pos_);
      advance(2);
      op = MOp::not_in;
    } else {
      return error("expected a marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in", op_pos);
    }
  }
  auto rhs = parse_operand();
  if (!rhs) return fail(rhs.error());

  Marker::Comparison c;
  c.lhs = std::move(*lhs);
  c.op = op;
  c.rhs = std::move(*rhs);

  // Set-valued variant markers: only `<string> in <set>` / `<string> not in <set>`.
  const bool lhs_set = c.lhs.variable && is_set_valued(*c.lhs.variable);
  const bool rhs_set = c.rhs.variable && is_set_valued(*c.rhs.variable);
  if (lhs_set || rhs_set) {
    const Variable set_var = lhs_set ? *c.lhs.variable : *c.rhs.variable;
    if (lhs_set || (op != MOp::in && op != MOp::not_in)) {
      return error(fmt::format("`{0}` is a set; it can only be tested with `\"...\" in {0}` or "
                               "`\"...\" not in {0}`",
                               to_string(set_var)),
                   start);
    }
    if (!c.lhs.variable) c.lhs.literal = normalize_variant_text(c.lhs.literal);
  }

  // `extra` compares after name normalization (PEP 685); normalize the literal now.
  if (c.lhs.variable == Variable::extra && !c.rhs.variable) c.rhs.literal = canonicalize_extra(c.rhs.literal);
  if (c.rhs.variable == Variable::extra && !c.lhs.variable) c.lhs.literal = canonicalize_extra(c.lhs.literal);

  const auto key = c.lhs.variable ? c.lhs.variable : c.rhs.variable;
  if (!c.rhs.variable && key && is_version_like(*key) && op != MOp::in && op != MOp::not_in) {
    std::string spec_text(op_text(static_cast<int>(op)));
    spec_text += c.rhs.literal;
    if (auto spec = pep440::Specifier::parse(spec_text)) c.spec = std::move(*spec);
  }

  m.comparisons_.push_back(std::move(c));
  Marker::Node node;
  node.kind = Marker::Node::Kind::comparison;
  node.comparison = m.comparisons_.size() - 1;
  m.nodes_.push_back(std::move(node));
  return m.nodes_.size() - 1;
}

// ---- Marker ----

Result<Marker> Marker::parse(std::string_view text) {
  MarkerParser p(text, "marker");
  auto m = p.parse_marker();
  if (!m) return m;
  p.skip_ws();
  if (!p.at_end()) return p.error("expected `and`, `or` or the end of the marker", p.pos());
  return m;
}

Result<bool> Marker::evaluate(const Environment& env) const { return evaluate_node(root_, env); }

Result<bool> Marker::evaluate_node(std::size_t index, const Environment& env) const {
  const Node& node = nodes_[index];
  switch (node.kind) {
    case Node::Kind::comparison:
      return evaluate_comparison(comparisons_[node.comparison], env);
    case Node::Kind::all:
      for (auto child : node.children) {
        auto r = evaluate_node(child, env);
        if (!r || !*r) return r;
      }
      return true;
    case Node::Kind::any:
      for (auto child : node.children) {
        auto r = evaluate_node(child, env);
        if (!r || *r) return r;
      }
      return false;
  }
  return false;
}

namespace {

Result<std::string_view> resolve(const std::optional<Variable>& variable, const std::string& literal,
                                 const Environment& env) {
  if (!variable) return std::string_view(literal);
  if (*variable == Variable::variant_label) return std::string_view(env.variant_label);
  const auto name = to_string(*variable);
  if (auto it = env.variables.find(name); it != env.variables.end()) return std::string_view(it->second);
  if (*variable == Variable::extra) return std::string_view();
  return fail(fmt::format("marker variable '{}' is not defined for the target environment", name));
}

bool compare_strings(std::string_view l, int op, std::string_view r) {
  switch (op) {
    case 0:
      return l == r;  // ==
    case 1:
      return l != r;  // !=
    case 2:
      return l < r;  // <
    case 3:
      return l <= r;  // <=
    case 4:
      return l > r;  // >
    case 5:
      return l >= r;  // >=
    case 7:
      return l == r;  // ===
    default:
      return false;
  }
}

}  // namespace

Result<bool> Marker::evaluate_comparison(const Comparison& c, const Environment& env) const {
  if (c.rhs.variable && is_set_valued(*c.rhs.variable)) {
    std::string item;
    if (c.lhs.variable) {
      auto v = resolve(c.lhs.variable, c.lhs.literal, env);
      if (!v) return fail(v.error());
      item = normalize_variant_text(*v);
    }
    std::string needle = c.lhs.variable ? item : c.lhs.literal;
    // PEP 751: extras and dependency groups are compared as normalized names.
    if (*c.rhs.variable == Variable::extras || *c.rhs.variable == Variable::dependency_groups) {
      needle = canonicalize_extra(needle);
    }
    const auto& set = set_of(env, *c.rhs.variable);
    bool found = set.contains(needle);
    if (!found) {
      // Tolerate environments whose entries are not in canonical form.
      found = std::any_of(set.begin(), set.end(), [&](const std::string& e) {
        return e.find("::") != std::string::npos && normalize_variant_text(e) == needle;
      });
    }
    return c.op == Op::in ? found : !found;
  }

  auto lhs = resolve(c.lhs.variable, c.lhs.literal, env);
  if (!lhs) return fail(lhs.error());
  auto rhs = resolve(c.rhs.variable, c.rhs.literal, env);
  if (!rhs) return fail(rhs.error());
  std::string_view l = *lhs;
  std::string_view r = *rhs;

  const auto key = c.lhs.variable ? c.lhs.variable : c.rhs.variable;
  std::string lbuf;
  std::string rbuf;
  if (key == Variable::extra) {
    lbuf = canonicalize_extra(l);
    rbuf = canonicalize_extra(r);
    l = lbuf;
    r = rbuf;
  }

  if (c.op == Op::in) return r.find(l) != std::string_view::npos;
  if (c.op == Op::not_in) return r.find(l) == std::string_view::npos;

  const int op = static_cast<int>(c.op);
  std::optional<pep440::Specifier> dynamic_spec;
  const pep440::Specifier* spec = c.spec ? &*c.spec : nullptr;
  if (c.rhs.variable && key && is_version_like(*key)) {
    std::string spec_text(op_text(op));
    spec_text += r;
    if (auto s = pep440::Specifier::parse(spec_text)) {
      dynamic_spec = std::move(*s);
      spec = &*dynamic_spec;
    }
  }
  if (spec != nullptr) {
    if (auto v = pep440::Version::parse(l)) return spec->contains(*v, true);
  }
  if (c.op == Op::compatible) {
    return fail(fmt::format("undefined comparison `\"{}\" ~= \"{}\"`: `~=` needs PEP 440 versions on both sides",
                            printable(l), printable(r)));
  }
  return compare_strings(l, op, r);
}

std::string Marker::to_string() const {
  std::string out;
  format_node(root_, true, out);
  return out;
}

void Marker::format_node(std::size_t index, bool top, std::string& out) const {
  const Node& node = nodes_[index];
  // Parentheses around a single comparison are redundant (and dropped, as packaging does).
  const bool parens = node.parenthesized && !top && node.kind != Node::Kind::comparison;
  if (parens) out += '(';
  switch (node.kind) {
    case Node::Kind::comparison: {
      const Comparison& c = comparisons_[node.comparison];
      append_operand(out, c.lhs.variable, c.lhs.literal);
      out += ' ';
      out += op_text(static_cast<int>(c.op));
      out += ' ';
      append_operand(out, c.rhs.variable, c.rhs.literal);
      break;
    }
    case Node::Kind::all:
    case Node::Kind::any: {
      const std::string_view sep = node.kind == Node::Kind::all ? " and " : " or ";
      for (std::size_t i = 0; i < node.children.size(); ++i) {
        if (i != 0) out += sep;
        format_node(node.children[i], false, out);
      }
      break;
    }
  }
  if (parens) out += ')';
}

std::vector<Variable> Marker::variables() const {
  std::vector<Variable> out;
  auto add = [&](const std::optional<Variable>& v) {
    if (v && std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
  };
  for (const auto& c : comparisons_) {
    add(c.lhs.variable);
    add(c.rhs.variable);
  }
  return out;
}

bool Marker::uses_variant_variables() const {
  const auto vars = variables();
  return std::any_of(vars.begin(), vars.end(), is_variant_variable);
}

}  // namespace vwheel::markers
