#pragma once
// Private to the resolve component: PubGrub's version sets and terms. A version set is a bitset
// over a project's candidate list (index 0 = most preferred), so set operations are word-wise.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vwheel::resolve::detail {

class VersionSet {
 public:
  VersionSet() = default;
  explicit VersionSet(std::size_t n, bool full = false) : n_(n), w_((n + 63) / 64, full ? ~std::uint64_t{0} : 0) {
    trim();
  }
  static VersionSet single(std::size_t n, std::size_t i) {
    VersionSet s(n);
    s.set(i);
    return s;
  }

  void set(std::size_t i) { w_[i / 64] |= std::uint64_t{1} << (i % 64); }
  [[nodiscard]] bool test(std::size_t i) const { return (w_[i / 64] >> (i % 64)) & 1U; }
  [[nodiscard]] std::size_t size() const { return n_; }
  [[nodiscard]] bool empty() const {
    return std::all_of(w_.begin(), w_.end(), [](std::uint64_t w) { return w == 0; });
  }
  [[nodiscard]] std::size_t count() const {
    std::size_t c = 0;
    for (auto w : w_) c += static_cast<std::size_t>(std::popcount(w));
    return c;
  }
  [[nodiscard]] bool full() const { return count() == n_; }
  [[nodiscard]] std::optional<std::size_t> first() const {
    for (std::size_t k = 0; k < w_.size(); ++k)
      if (w_[k] != 0) return k * 64 + static_cast<std::size_t>(std::countr_zero(w_[k]));
    return std::nullopt;
  }
  [[nodiscard]] std::vector<std::size_t> indices() const {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < n_; ++i)
      if (test(i)) out.push_back(i);
    return out;
  }
  [[nodiscard]] VersionSet operator&(const VersionSet& o) const {
    VersionSet r = *this;
    for (std::size_t k = 0; k < w_.size(); ++k) r.w_[k] &= o.w_[k];
    return r;
  }
  [[nodiscard]] VersionSet operator|(const VersionSet& o) const {
    VersionSet r = *this;
    for (std::size_t k = 0; k < w_.size(); ++k) r.w_[k] |= o.w_[k];
    return r;
  }
  [[nodiscard]] VersionSet minus(const VersionSet& o) const {
    VersionSet r = *this;
    for (std::size_t k = 0; k < w_.size(); ++k) r.w_[k] &= ~o.w_[k];
    return r;
  }
  [[nodiscard]] VersionSet complement() const {
    VersionSet r = *this;
    for (auto& w : r.w_) w = ~w;
    r.trim();
    return r;
  }
  [[nodiscard]] bool subset_of(const VersionSet& o) const {
    for (std::size_t k = 0; k < w_.size(); ++k)
      if ((w_[k] & ~o.w_[k]) != 0) return false;
    return true;
  }
  [[nodiscard]] bool disjoint(const VersionSet& o) const {
    for (std::size_t k = 0; k < w_.size(); ++k)
      if ((w_[k] & o.w_[k]) != 0) return false;
    return true;
  }
  friend bool operator==(const VersionSet&, const VersionSet&) = default;

 private:
  void trim() {
    if (n_ % 64 != 0 && !w_.empty()) w_.back() &= (std::uint64_t{1} << (n_ % 64)) - 1;
  }
  std::size_t n_ = 0;
  std::vector<std::uint64_t> w_;
};

// A term: "package is selected with a version in `set`" (positive) or its negation ("package is
// not selected, or selected with a version outside `set`").
struct Term {
  int pkg = -1;
  bool positive = true;
  VersionSet set;
};

inline Term negate(Term t) {
  t.positive = !t.positive;
  return t;
}

inline Term intersect(const Term& a, const Term& b) {
  if (a.positive && b.positive) return {a.pkg, true, a.set & b.set};
  if (a.positive) return {a.pkg, true, a.set.minus(b.set)};
  if (b.positive) return {a.pkg, true, b.set.minus(a.set)};
  return {a.pkg, false, a.set | b.set};
}

// Whether `acc` implies `t`.
inline bool satisfies(const Term& acc, const Term& t) {
  if (acc.positive) return t.positive ? acc.set.subset_of(t.set) : acc.set.disjoint(t.set);
  return !t.positive && t.set.subset_of(acc.set);
}

// Whether `acc` and `t` cannot both hold.
inline bool contradicts(const Term& acc, const Term& t) {
  if (acc.positive) return t.positive ? acc.set.disjoint(t.set) : acc.set.subset_of(t.set);
  return t.positive && t.set.subset_of(acc.set);
}

}  // namespace vwheel::resolve::detail
