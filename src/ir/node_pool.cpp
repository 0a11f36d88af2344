// Slab allocator behind make_node (see node_pool.hpp).
#include "ir/node_pool.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <new>

namespace tenet_cost::ir::pool {
namespace {

constexpr std::size_t kSlabBytes = std::size_t{1} << 18;  // 256 KiB, aligned to their size (mmap'ed)


struct alignas(16) Slab {
  std::atomic<std::size_t> live{1};  // live blocks, +1 while it is a thread's current slab
};

// A kSlabBytes mapping aligned to kSlabBytes: map twice the size, unmap the
// unaligned head and the tail.
void* map_slab() {
  void* raw = mmap(nullptr, 2 * kSlabBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto begin = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (begin + kSlabBytes - 1) & ~(kSlabBytes - 1);
  if (aligned > begin) munmap(raw, aligned - begin);
  const std::uintptr_t tail = aligned + kSlabBytes;
  const std::uintptr_t end = begin + 2 * kSlabBytes;
  if (end > tail) munmap(reinterpret_cast<void*>(tail), end - tail);
  return reinterpret_cast<void*>(aligned);
}

void release(Slab* s) noexcept {
  if (s->live.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    s->~Slab();
    munmap(s, kSlabBytes);
  }
}

struct Current {
  Slab* slab = nullptr;
  char* next = nullptr;
  char* end = nullptr;
  Current() = default;
  Current(const Current&) = delete;
  Current& operator=(const Current&) = delete;
  ~Current() {
    if (slab != nullptr) release(slab);
  }
  void refill() {
    void* mem = map_slab();
    Slab* s = new (mem) Slab();
    if (slab != nullptr) release(slab);
    slab = s;
    next = static_cast<char*>(mem) + sizeof(Slab);
    end = static_cast<char*>(mem) + kSlabBytes;
  }
};

}  // namespace

void* allocate(std::size_t bytes) {
  bytes = (bytes + 7) & ~std::size_t{7};
  if (bytes > kMaxBytes) throw std::bad_alloc();  // Alloc<T> rejects such T at compile time
  thread_local Current cur;
  if (cur.slab == nullptr || static_cast<std::size_t>(cur.end - cur.next) < bytes) cur.refill();
  cur.slab->live.fetch_add(1, std::memory_order_relaxed);
  void* p = cur.next;
  cur.next += bytes;
  return p;
}

void deallocate(void* p) noexcept {
  release(reinterpret_cast<Slab*>(reinterpret_cast<std::uintptr_t>(p) & ~(kSlabBytes - 1)));
}

}  // namespace tenet_cost::ir::pool
