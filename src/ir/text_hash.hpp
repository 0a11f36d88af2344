// A fast hash of short texts and a flat hash map keyed by views of them
// (private to src/ir): the front-end hashes every name it meets, mostly
// 2-40 bytes, where std::hash (a byte-oriented Murmur) costs several times
// more than a multiply per 8-byte word.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace tenet_cost::ir {

namespace detail {
inline std::uint64_t load64(const char* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline std::uint64_t load32(const char* p) noexcept {
  std::uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
}  // namespace detail

/// a[0, n) == b[0, n), inline for short texts (overlapping word loads).
[[gnu::always_inline]] inline bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
  if (n >= 8) {
    if (n > 16) return std::memcmp(a, b, n) == 0;
    return detail::load64(a) == detail::load64(b) && detail::load64(a + n - 8) == detail::load64(b + n - 8);
  }
  if (n >= 4) return detail::load32(a) == detail::load32(b) && detail::load32(a + n - 4) == detail::load32(b + n - 4);
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}
/// a == b, inline for short texts.
[[gnu::always_inline]] inline bool same_text(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && same_bytes(a.data(), b.data(), a.size());
}

/// A 64-bit hash of `s`: one multiply per 8 bytes (the last word loaded
/// overlapping), the length mixed in first, a final avalanche so that the low
/// bits (table indices) depend on every input bit. Not for untrusted-input
/// DoS resistance; deterministic across runs.
[[gnu::always_inline]] inline std::uint64_t text_hash(std::string_view s) noexcept {
  constexpr std::uint64_t k0 = 0x9E3779B97F4A7C15ULL;
  constexpr std::uint64_t k1 = 0xD6E8FEB86659FD93ULL;
  const char* p = s.data();
  std::size_t n = s.size();
  std::uint64_t h = (static_cast<std::uint64_t>(n) + 1) * k0;
  if (n > 8) {
    do {
      h = (h ^ detail::load64(p)) * k1;
      h ^= h >> 32;
      p += 8;
      n -= 8;
    } while (n > 8);
    h = (h ^ detail::load64(p + n - 8)) * k1;  // the last 8 bytes (overlapping what came before)
  } else if (n >= 4) {
    h = (h ^ (detail::load32(p) | detail::load32(p + n - 4) << 32)) * k1;
  } else if (n > 0) {
    const auto b = [&](std::size_t i) { return static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])); };
    h = (h ^ (b(0) | b(n / 2) << 8 | b(n - 1) << 16)) * k1;
  }
  h ^= h >> 29;
  h *= k0;
  h ^= h >> 32;
  return h;
}

/// The slots of an open-addressing table (power-of-two size, linear probing)
/// plus the list of the slots in use, so that clear() costs the entries, not
/// the slots (the Lowerer clears its tables for every function); a table that
/// grew past kKeep slots is released instead. The table on top says what an
/// empty slot is and where a hash starts probing (grow() takes both).
template <class Slot, std::size_t kInitial>
class UsedSlots {
 public:
  [[nodiscard]] std::size_t count() const noexcept { return n_used_; }
  [[nodiscard]] std::size_t size() const noexcept { return slots_.size(); }
  [[nodiscard]] std::size_t mask() const noexcept { return slots_.size() - 1; }
  Slot& operator[](std::size_t i) noexcept { return slots_[i]; }
  /// Allocates the first kInitial slots.
  void prepare() {
    if (!slots_.empty()) return;
    slots_.resize(kInitial);
    used_ = std::make_unique<std::uint32_t[]>(kInitial / 2 + 1);
  }
  /// Slot i was empty and is now in use.
  void mark_used(std::size_t i) noexcept { used_[n_used_++] = static_cast<std::uint32_t>(i); }
  void clear() {
    if (n_used_ == 0) return;
    if (slots_.size() > kKeep) {
      std::vector<Slot>().swap(slots_);
      used_.reset();
    } else {
      for (std::size_t k = 0; k < n_used_; ++k) slots_[used_[k]] = Slot{};
    }
    n_used_ = 0;
  }
  /// Twice the slots: each used slot moves to the first empty one from home(its hash).
  template <class Home, class Empty>
  void grow(const Home& home, const Empty& empty) {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    auto used = std::make_unique<std::uint32_t[]>(slots_.size() / 2 + 1);
    const std::size_t m = mask();
    for (std::size_t k = 0; k < n_used_; ++k) {
      Slot& s = old[used_[k]];
      std::size_t i = home(s.h) & m;
      while (!empty(slots_[i])) i = (i + 1) & m;
      slots_[i] = std::move(s);
      used[k] = static_cast<std::uint32_t>(i);
    }
    used_ = std::move(used);
  }

 private:
  static constexpr std::size_t kKeep = 4096;
  std::vector<Slot> slots_;
  std::unique_ptr<std::uint32_t[]> used_;  // the slots in use: n_used_ of them (room for half the slots + 1)
  std::size_t n_used_ = 0;
};

/// An open-addressing hash map from a text (a view: the text must outlive
/// the entry) to V, with the key's hash stored beside it. Only grows (no
/// erase); clear() costs the entries (the slots in use are listed), keeps a
/// small slot array for reuse and frees a large one.
/// Pointers returned by find()/insert() are invalidated by the next insert.
template <class V>
class NameMap {
 public:
  [[nodiscard]] bool empty() const noexcept { return slots_.count() == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return slots_.count(); }

  [[nodiscard]] V* find(std::string_view k) noexcept { return find(k, text_hash(k)); }
  [[nodiscard]] V* find(std::string_view k, std::uint64_t h) noexcept {
    if (slots_.count() == 0) return nullptr;
    h |= kUsed;
    const std::size_t mask = slots_.mask();
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.h == 0) return nullptr;
      if (s.h == h && same_text(s.k, k)) return &s.v;
    }
  }
  [[nodiscard]] const V* find(std::string_view k) const noexcept { return const_cast<NameMap*>(this)->find(k); }

  /// The value for `k`, inserted as V{} when absent; `inserted` says which.
  V& get(std::string_view k, std::uint64_t h, bool& inserted) {
    slots_.prepare();
    h |= kUsed;
    std::size_t mask = slots_.mask();
    std::size_t i = h & mask;
    for (;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.h == 0) break;
      if (s.h == h && same_text(s.k, k)) {
        inserted = false;
        return s.v;
      }
    }
    inserted = true;
    if ((slots_.count() + 1) * 2 > slots_.size()) {
      slots_.grow([](std::uint64_t sh) { return sh; }, [](const Slot& e) { return e.h == 0; });
      mask = slots_.mask();
      for (i = h & mask; slots_[i].h != 0; i = (i + 1) & mask) {
      }
    }
    slots_.mark_used(i);
    Slot& s = slots_[i];
    s.h = h;
    s.k = k;
    return s.v;
  }
  V& get(std::string_view k, bool& inserted) { return get(k, text_hash(k), inserted); }
  V& operator[](std::string_view k) {
    bool inserted = false;
    return get(k, inserted);
  }
  /// Inserts `k` (a set): true when it was absent.
  bool insert(std::string_view k) {
    bool inserted = false;
    get(k, inserted);
    return inserted;
  }
  [[nodiscard]] bool contains(std::string_view k) const noexcept { return find(k) != nullptr; }

  void clear() { slots_.clear(); }

 private:
  static constexpr std::uint64_t kUsed = std::uint64_t{1} << 63;  // h == 0: an empty slot
  struct Slot {
    std::uint64_t h = 0;
    std::string_view k;
    V v{};
  };
  UsedSlots<Slot, 64> slots_;
};

}  // namespace tenet_cost::ir
