// Slab allocator behind make_node (see node_pool.hpp).
#include "ir/node_pool.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

namespace tenet_cost::ir::pool {
namespace {

constexpr std::size_t kSlabBytes = std::size_t{1} << 21;  // 2 MiB, aligned to their size (mmap'ed)


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
  // One huge page per slab where transparent huge pages are enabled ("madvise" or
  // "always"): one page fault instead of 512. Advice only: without THP it does nothing.
  madvise(reinterpret_cast<void*>(aligned), kSlabBytes, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

// Empty slabs are kept for reuse (up to kKeep of them, 16 MiB) instead of
// unmapped: a program that parses, drops and parses again (a benchmark, a
// server) would otherwise page-fault its node memory in afresh every time.
constexpr std::size_t kKeep = 8;

struct FreeSlabs {
  std::mutex mu;
  std::vector<void*> slabs;
};

FreeSlabs& free_slabs() {
  static auto* f = new FreeSlabs();  // never destroyed: slabs may be released during static destruction
  return *f;
}

void* reuse_slab() {
  FreeSlabs& f = free_slabs();
  const std::lock_guard<std::mutex> lock(f.mu);
  if (f.slabs.empty()) return nullptr;
  void* s = f.slabs.back();
  f.slabs.pop_back();
  return s;
}

void release(Slab* s) noexcept {
  if (s->live.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  s->~Slab();
  {
    FreeSlabs& f = free_slabs();
    const std::lock_guard<std::mutex> lock(f.mu);
    if (f.slabs.size() < kKeep) {
      try {
        f.slabs.push_back(s);
        return;
      } catch (...) {  // no memory for the list: unmap instead
      }
    }
  }
  munmap(s, kSlabBytes);
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
    void* mem = reuse_slab();
    if (mem == nullptr) mem = map_slab();
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
