// Pooled allocation of IR nodes (private to src/ir).
//
// make_node<T>(...) is std::make_shared<T>(...) with the node and its control
// block bump-allocated from 2 MiB slabs (mmap'ed, transparent huge pages where the
// kernel gives them: one page fault per slab instead of 512) instead of one malloc each: a node
// takes exactly 16 + sizeof(T) bytes (rounded to 8) instead of malloc's chunk
// (8-byte header, rounded up to 16), e.g. 104 bytes for an RExpr instead of 112.
// The shared_ptr semantics are unchanged: each node has its own reference
// count and a node outlives its Module as long as someone holds it.
//
// Slabs are per thread (no lock on allocation); a node may be freed on any
// thread. Each slab counts its live nodes (plus one while it is a thread's
// current slab) and is freed when the count drops to zero. Freed node memory
// is not reused before the whole slab is free (empty slabs are kept for reuse,
// up to 16 MiB, else unmapped): suited to IR that is built
// once and released together (one long-lived node keeps its slab's 2 MiB).
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace tenet_cost::ir::pool {

inline constexpr std::size_t kMaxBytes = 1024;  // the largest pooled block (control block + node)

void* allocate(std::size_t bytes);
void deallocate(void* p) noexcept;

template <class T>
struct Alloc {
  using value_type = T;
  Alloc() noexcept = default;
  template <class U>
  Alloc(const Alloc<U>&) noexcept {}  // NOLINT: rebinding
  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= 8, "pooled blocks are 8-byte aligned");
    static_assert(sizeof(T) <= kMaxBytes, "pooled blocks are small");
    return static_cast<T*>(pool::allocate(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { pool::deallocate(p); }
  template <class U>
  friend bool operator==(const Alloc&, const Alloc<U>&) noexcept {
    return true;
  }
};

}  // namespace tenet_cost::ir::pool

namespace tenet_cost::ir {

#if defined(__SANITIZE_ADDRESS__)
#define TC_NODE_POOL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TC_NODE_POOL_SANITIZED 1
#endif
#endif

/// std::make_shared<T>(args...) from the node pool. Under AddressSanitizer
/// it is plain std::make_shared: slab memory is invisible to ASan, so a
/// use-after-free or leak of an IR node would go unreported (the CI's
/// sanitizer build and the fuzzers must see every node).
template <class T, class... A>
std::shared_ptr<T> make_node(A&&... args) {
#ifdef TC_NODE_POOL_SANITIZED
  return std::make_shared<T>(std::forward<A>(args)...);
#else
  return std::allocate_shared<T>(pool::Alloc<std::remove_const_t<T>>(), std::forward<A>(args)...);
#endif
}

}  // namespace tenet_cost::ir
