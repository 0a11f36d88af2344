// A flat hash map keyed by an interned id (ir::Symbol::id(): one address per
// distinct text), for the extractor's per-name lookups: open addressing with
// linear probing, no allocation per entry, no string compares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace tenet_cost::xtir {

template <class V>
class IdMap {
 public:
  IdMap() = default;
  explicit IdMap(std::size_t expected) { rehash(expected); }

  /// The value of `key` (nullptr: the id of ""), or null when absent.
  [[nodiscard]] const V* find(const void* key) const {
    if (key == nullptr) return has_null_ ? &null_value_ : nullptr;
    if (keys_.empty()) return nullptr;
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == nullptr) return nullptr;
    }
  }
  [[nodiscard]] V* find(const void* key) { return const_cast<V*>(std::as_const(*this).find(key)); }

  /// The value of `key`, default-constructed when absent.
  V& operator[](const void* key) {
    if (key == nullptr) {
      has_null_ = true;
      return null_value_;
    }
    if ((size_ + 1) * 4 > keys_.size() * 3) rehash(keys_.size());
    std::size_t i = slot(key);
    for (; keys_[i] != nullptr; i = (i + 1) & mask_)
      if (keys_[i] == key) return values_[i];
    keys_[i] = key;
    ++size_;
    return values_[i];
  }

  [[nodiscard]] std::size_t size() const { return size_ + (has_null_ ? 1 : 0); }

 private:
  [[nodiscard]] std::size_t slot(const void* key) const { return slot(key, mask_); }
  static std::size_t slot(const void* key, std::size_t mask) {
    const auto h = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key)) * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(h >> 32) & mask;
  }
  void rehash(std::size_t expected) {
    std::size_t cap = 16;
    while (cap * 3 < (expected + 1) * 4) cap *= 2;
    if (cap <= keys_.size()) cap = keys_.size() * 2;
    std::vector<const void*> keys(cap, nullptr);
    std::vector<V> values(cap);
    const std::size_t mask = cap - 1;
    for (std::size_t j = 0; j < keys_.size(); ++j) {
      if (keys_[j] == nullptr) continue;
      std::size_t i = slot(keys_[j], mask);
      while (keys[i] != nullptr) i = (i + 1) & mask;
      keys[i] = keys_[j];
      values[i] = std::move(values_[j]);
    }
    keys_ = std::move(keys);
    values_ = std::move(values);
    mask_ = mask;
  }

  std::vector<const void*> keys_;
  std::vector<V> values_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  bool has_null_ = false;
  V null_value_{};
};

}  // namespace tenet_cost::xtir
