// The typed IR that both front-ends (TVMScript text, TVM JSON) produce and
// that the GEMM extractor reads. It mirrors TVM's own node kinds closely
// enough to be built from either format, but keeps only what cost
// estimation needs. Nodes are immutable once built and shared by pointer.
//
// Conventions
//  - Names are the names printed in the dump (`v_i0`, `lv575`, `n`).
//  - dtype strings are TVM's ("int64", "float16", "uint32", "bool", "handle",
//    "float8_e4m3fn"); "" means unknown.
//  - Every node carries the location of its first token (JSON input: the file
//    name and line 0) as a compact Loc (16 bytes; the file name is interned).
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "tenet_cost/error.hpp"

namespace tenet_cost::ir {

// -------------------------------------------------------------------- symbols

/// An interned string: 8 bytes (a pointer to one process-wide copy of the text)
/// in place of a 32-byte std::string, for the names the IR repeats by the
/// million (Relax var names, call ops, dtypes). Reads like a `const
/// std::string` (implicit conversion to `const std::string&` and
/// std::string_view; `==`/`<` with strings compare the text); assigning a
/// string interns it. Equal texts give the same pointer, so Symbol == Symbol
/// is a pointer compare. Interned texts are kept for the life of the process
/// (a pointer never dangles). Interning is thread-safe: a per-thread cache in
/// front of one mutex-protected global table.
class Symbol {
 public:
  Symbol() noexcept = default;
  Symbol(std::string_view text) : p_(intern(text)) {}                     // NOLINT(google-explicit-constructor)
  Symbol(const std::string& text) : p_(intern(std::string_view(text))) {}  // NOLINT
  Symbol(const char* text) : p_(intern(std::string_view(text))) {}         // NOLINT

  [[nodiscard]] const std::string& str() const noexcept { return p_ != nullptr ? *p_ : empty_text(); }
  operator const std::string&() const noexcept { return str(); }  // NOLINT
  operator std::string_view() const noexcept { return str(); }     // NOLINT
  [[nodiscard]] std::string_view view() const noexcept { return str(); }
  /// The interned copy's address (nullptr for ""): equal texts, equal ids.
  [[nodiscard]] const void* id() const noexcept { return p_; }

  [[nodiscard]] bool empty() const noexcept { return p_ == nullptr; }
  [[nodiscard]] std::size_t size() const noexcept { return str().size(); }
  [[nodiscard]] std::size_t length() const noexcept { return str().size(); }
  [[nodiscard]] const char* c_str() const noexcept { return str().c_str(); }
  [[nodiscard]] const char* data() const noexcept { return str().data(); }
  [[nodiscard]] std::string::const_iterator begin() const noexcept { return str().begin(); }
  [[nodiscard]] std::string::const_iterator end() const noexcept { return str().end(); }
  char operator[](std::size_t i) const noexcept { return str()[i]; }
  [[nodiscard]] char front() const noexcept { return str().front(); }
  [[nodiscard]] char back() const noexcept { return str().back(); }
  [[nodiscard]] std::string substr(std::size_t pos = 0, std::size_t n = std::string::npos) const {
    return str().substr(pos, n);
  }
  [[nodiscard]] std::size_t find(std::string_view s, std::size_t pos = 0) const noexcept { return view().find(s, pos); }
  [[nodiscard]] std::size_t find(char c, std::size_t pos = 0) const noexcept { return view().find(c, pos); }
  [[nodiscard]] std::size_t rfind(std::string_view s, std::size_t pos = std::string::npos) const noexcept {
    return view().rfind(s, pos);
  }
  [[nodiscard]] std::size_t rfind(char c, std::size_t pos = std::string::npos) const noexcept {
    return view().rfind(c, pos);
  }
  [[nodiscard]] bool starts_with(std::string_view s) const noexcept { return view().starts_with(s); }
  [[nodiscard]] bool ends_with(std::string_view s) const noexcept { return view().ends_with(s); }
  [[nodiscard]] int compare(std::string_view s) const noexcept { return view().compare(s); }

  friend bool operator==(const Symbol& a, const Symbol& b) noexcept { return a.p_ == b.p_; }
  friend bool operator==(const Symbol& a, const std::string& b) noexcept { return a.view() == b; }
  friend bool operator==(const Symbol& a, std::string_view b) noexcept { return a.view() == b; }
  friend bool operator==(const Symbol& a, const char* b) noexcept { return a.view() == b; }
  // Ordered by text (as std::string), so sorted output does not depend on addresses.
  friend std::strong_ordering operator<=>(const Symbol& a, const Symbol& b) noexcept {
    if (a.p_ == b.p_) return std::strong_ordering::equal;
    return a.view() <=> b.view();
  }
  friend std::strong_ordering operator<=>(const Symbol& a, std::string_view b) noexcept { return a.view() <=> b; }
  friend std::strong_ordering operator<=>(const Symbol& a, const std::string& b) noexcept {
    return a.view() <=> std::string_view(b);
  }
  friend std::strong_ordering operator<=>(const Symbol& a, const char* b) noexcept {
    return a.view() <=> std::string_view(b);
  }

  friend std::string operator+(const Symbol& a, std::string_view b) { return std::string(a.view()).append(b); }
  friend std::string operator+(const Symbol& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const Symbol& a, const char* b) { return a.str() + b; }
  friend std::string operator+(const Symbol& a, char b) { return a.str() + b; }
  friend std::string operator+(const Symbol& a, const Symbol& b) { return a.str() + b.str(); }
  friend std::string operator+(std::string_view a, const Symbol& b) { return std::string(a).append(b.view()); }
  friend std::string operator+(const std::string& a, const Symbol& b) { return a + b.str(); }
  friend std::string operator+(std::string&& a, const Symbol& b) { return std::move(a.append(b.view())); }
  friend std::string operator+(const char* a, const Symbol& b) { return a + b.str(); }
  friend std::string operator+(char a, const Symbol& b) { return a + b.str(); }

  friend std::ostream& operator<<(std::ostream& os, const Symbol& s) { return os << s.view(); }

 private:
  static const std::string* intern(std::string_view text);
  static const std::string& empty_text() noexcept;
  const std::string* p_ = nullptr;  // null: ""
};

// ------------------------------------------------------------------ locations

/// The file name of a node's location: a pointer to one process-wide interned
/// copy of the name (8 bytes per node instead of a std::string). Reads like a
/// `const std::string`; assigning a string interns it. Interned names are kept
/// for the life of the process (one per distinct file name ever used).
class FileName {
 public:
  FileName() = default;
  FileName(std::string_view name);  // NOLINT(google-explicit-constructor): assignable from strings
  FileName(const std::string& name) : FileName(std::string_view(name)) {}  // NOLINT
  FileName(const char* name) : FileName(std::string_view(name)) {}          // NOLINT

  [[nodiscard]] const std::string& str() const { return p_ != nullptr ? *p_ : empty_name(); }
  operator const std::string&() const { return str(); }  // NOLINT
  [[nodiscard]] bool empty() const { return str().empty(); }
  [[nodiscard]] std::size_t size() const { return str().size(); }
  [[nodiscard]] const char* c_str() const { return str().c_str(); }

  friend bool operator==(const FileName& a, const FileName& b) { return a.p_ == b.p_ || a.str() == b.str(); }
  friend bool operator==(const FileName& a, const std::string& b) { return a.str() == b; }
  friend bool operator==(const FileName& a, std::string_view b) { return a.str() == b; }
  friend bool operator==(const FileName& a, const char* b) { return a.str() == b; }

 private:
  static const std::string& empty_name();
  const std::string* p_ = nullptr;  // null: ""
};

/// Where a node starts: 16 bytes, converts to and from tenet_cost::SourceLocation
/// (which owns its file name), e.g. `throw InputError(e->loc, ...)`.
struct Loc {
  FileName file;
  std::uint32_t line = 0;    // 1-based; 0 = unknown
  std::uint32_t column = 0;  // 1-based; 0 = unknown

  Loc() = default;
  Loc(FileName f, std::uint32_t l, std::uint32_t c) : file(f), line(l), column(c) {}
  Loc(const SourceLocation& s) : file(s.file), line(s.line), column(s.column) {}  // NOLINT
  operator SourceLocation() const { return SourceLocation{file.str(), line, column}; }  // NOLINT
  /// "file:line:col", "file:line" or "file" (as SourceLocation::str()).
  [[nodiscard]] std::string str() const { return SourceLocation(*this).str(); }
};

// ------------------------------------------------------------- small vector

/// A vector of node children that takes 8 bytes in its node (std::vector:
/// 24): one pointer to a heap block holding size, capacity and the elements.
/// Offers the std::vector operations the IR is used with (and converts to and
/// from std::vector), so code written against std::vector keeps working.
template <class T>
class Vec {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  Vec() noexcept = default;
  Vec(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  Vec(const std::vector<T>& v) { assign(v.begin(), v.end()); }  // NOLINT: implicit like a vector copy
  Vec(std::vector<T>&& v) {                                      // NOLINT
    reserve(v.size());
    for (auto& x : v) push_back(std::move(x));
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  Vec(It first, It last) {
    assign(first, last);
  }
  explicit Vec(size_type n) { resize(n); }
  Vec(const Vec& o) { assign(o.begin(), o.end()); }
  Vec(Vec&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  ~Vec() { release(); }
  Vec& operator=(const Vec& o) {
    if (this != &o) {
      Vec tmp(o);
      swap(tmp);
    }
    return *this;
  }
  Vec& operator=(Vec&& o) noexcept {
    if (this != &o) {
      release();
      h_ = o.h_;
      o.h_ = nullptr;
    }
    return *this;
  }
  Vec& operator=(std::initializer_list<T> il) {
    Vec tmp(il);
    swap(tmp);
    return *this;
  }
  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }  // NOLINT

  template <class It>
  void assign(It first, It last) {
    clear();
    for (; first != last; ++first) push_back(*first);
  }

  [[nodiscard]] size_type size() const noexcept { return h_ != nullptr ? h_->size : 0; }
  [[nodiscard]] size_type capacity() const noexcept { return h_ != nullptr ? h_->cap : 0; }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  [[nodiscard]] size_type max_size() const noexcept { return std::numeric_limits<std::uint32_t>::max(); }
  T* data() noexcept { return h_ != nullptr ? elems(h_) : nullptr; }
  const T* data() const noexcept { return h_ != nullptr ? elems(h_) : nullptr; }
  iterator begin() noexcept { return data(); }
  iterator end() noexcept { return data() + size(); }
  const_iterator begin() const noexcept { return data(); }
  const_iterator end() const noexcept { return data() + size(); }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }
  T& operator[](size_type i) noexcept { return data()[i]; }
  const T& operator[](size_type i) const noexcept { return data()[i]; }
  T& at(size_type i) {
    if (i >= size()) throw std::out_of_range("ir::Vec::at");
    return data()[i];
  }
  const T& at(size_type i) const {
    if (i >= size()) throw std::out_of_range("ir::Vec::at");
    return data()[i];
  }
  T& front() noexcept { return data()[0]; }
  const T& front() const noexcept { return data()[0]; }
  T& back() noexcept { return data()[size() - 1]; }
  const T& back() const noexcept { return data()[size() - 1]; }

  void reserve(size_type n) {
    if (n <= capacity()) return;
    if (n > max_size()) throw std::length_error("ir::Vec::reserve");
    Header* h = static_cast<Header*>(::operator new(sizeof(Header) + n * sizeof(T)));
    h->size = 0;
    h->cap = static_cast<std::uint32_t>(n);
    if (h_ != nullptr) {
      T* from = elems(h_);
      T* to = elems(h);
      for (std::uint32_t i = 0; i < h_->size; ++i) {
        new (to + i) T(std::move(from[i]));
        from[i].~T();
      }
      h->size = h_->size;
      ::operator delete(h_);
    }
    h_ = h;
  }
  void shrink_to_fit() {
    if (size() == capacity()) return;
    Vec tmp(std::make_move_iterator(begin()), std::make_move_iterator(end()));
    swap(tmp);
  }
  void clear() noexcept {
    if (h_ == nullptr) return;
    T* e = elems(h_);
    for (std::uint32_t i = h_->size; i-- > 0;) e[i].~T();
    h_->size = 0;
  }
  template <class... A>
  T& emplace_back(A&&... args) {
    if (size() == capacity()) {
      T tmp(std::forward<A>(args)...);  // args may alias an element
      grow();
      T* p = new (elems(h_) + h_->size) T(std::move(tmp));
      ++h_->size;
      return *p;
    }
    T* p = new (elems(h_) + h_->size) T(std::forward<A>(args)...);
    ++h_->size;
    return *p;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  void pop_back() noexcept {
    elems(h_)[h_->size - 1].~T();
    --h_->size;
  }
  void resize(size_type n) {
    while (size() > n) pop_back();
    reserve(n);
    while (size() < n) emplace_back();
  }
  void resize(size_type n, const T& v) {
    while (size() > n) pop_back();
    reserve(n);
    while (size() < n) push_back(v);
  }
  iterator erase(const_iterator first, const_iterator last) {
    T* b = begin();
    const auto i = static_cast<size_type>(first - b);
    const auto j = static_cast<size_type>(last - b);
    if (i == j) return b + i;
    std::move(b + j, end(), b + i);
    for (size_type k = j - i; k > 0; --k) pop_back();
    return begin() + i;
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator insert(const_iterator pos, T v) {
    const auto i = static_cast<size_type>(pos - begin());
    push_back(std::move(v));
    std::rotate(begin() + i, end() - 1, end());
    return begin() + i;
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  iterator insert(const_iterator pos, It first, It last) {
    const auto i = static_cast<size_type>(pos - begin());
    const size_type old = size();
    for (; first != last; ++first) push_back(*first);
    std::rotate(begin() + i, begin() + old, end());
    return begin() + i;
  }
  void swap(Vec& o) noexcept { std::swap(h_, o.h_); }

  friend bool operator==(const Vec& a, const Vec& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
  friend bool operator==(const Vec& a, const std::vector<T>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  struct alignas(T) alignas(8) Header {
    std::uint32_t size;
    std::uint32_t cap;
  };
  static T* elems(Header* h) noexcept { return reinterpret_cast<T*>(h + 1); }
  static const T* elems(const Header* h) noexcept { return reinterpret_cast<const T*>(h + 1); }
  void grow() { reserve(capacity() == 0 ? 1 : capacity() * 2); }
  void release() noexcept {
    if (h_ == nullptr) return;
    clear();
    ::operator delete(h_);
    h_ = nullptr;
  }
  Header* h_ = nullptr;
};


/// An optional value kept out of line: 8 bytes in its node instead of the
/// value's full size (for fields that only some node kinds use). Reads like a
/// std::optional: `if (s->alloc) use(s->alloc->name, *s->alloc);`,
/// `s->alloc = buffer;`. Copies are deep.
template <class T>
class Box {
 public:
  Box() noexcept = default;
  Box(std::nullopt_t) noexcept {}  // NOLINT
  Box(const T& v) : p_(std::make_unique<T>(v)) {}  // NOLINT
  Box(T&& v) : p_(std::make_unique<T>(std::move(v))) {}  // NOLINT
  Box(const std::optional<T>& v) {  // NOLINT
    if (v) p_ = std::make_unique<T>(*v);
  }
  Box(const Box& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Box(Box&&) noexcept = default;
  Box& operator=(const Box& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Box& operator=(Box&&) noexcept = default;
  Box& operator=(std::nullopt_t) noexcept {
    p_.reset();
    return *this;
  }
  ~Box() = default;

  [[nodiscard]] bool has_value() const noexcept { return p_ != nullptr; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  T& operator*() noexcept { return *p_; }
  const T& operator*() const noexcept { return *p_; }
  T* operator->() noexcept { return p_.get(); }
  const T* operator->() const noexcept { return p_.get(); }
  T& value() {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  const T& value() const {
    if (!p_) throw std::bad_optional_access();
    return *p_;
  }
  template <class... A>
  T& emplace(A&&... args) {
    p_ = std::make_unique<T>(std::forward<A>(args)...);
    return *p_;
  }
  void reset() noexcept { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

// ---------------------------------------------------------------- expressions

enum class ExprKind {
  kInt,      // int_value, dtype ("int32" for bare literals, "int64" for T.int64(..))
  kFloat,    // float_value
  kBool,     // int_value 0/1
  kString,   // name holds the string
  kVar,      // name; dtype of the var when known
  kLoad,     // buffer load: name = buffer, args = indices
  kBinary,   // op, args = {lhs, rhs}
  kUnary,    // op (kNeg, kNot, kBitNot), args = {operand}
  kCast,     // dtype = target type, args = {operand}   (T.Cast / T.cast)
  kCall,     // name = callee without "T." ("shift_right", "bitwise_and", "exp",
             // "if_then_else", "reinterpret", "max", ...), args; dtype when given
  kSelect,   // T.Select / T.if_then_else: args = {cond, then, else}
  kRamp,     // JSON tir.Ramp: args = {base, stride}, int_value = lanes
  kBroadcast,// JSON tir.Broadcast: args = {value}, int_value = lanes
  kOther,    // anything else: name says what it was (kept for diagnostics)
};

enum class BinOp {
  kAdd, kSub, kMul, kDiv /* `/` */, kFloorDiv /* `//` */, kFloorMod /* `%` */,
  kMin, kMax, kEq, kNe, kLt, kLe, kGt, kGe, kAnd, kOr,
  kBitAnd, kBitOr, kBitXor, kShl, kShr,
};
enum class UnOp { kNeg, kNot, kBitNot };

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprKind kind = ExprKind::kOther;
  BinOp bin_op = BinOp::kAdd;
  Symbol dtype;
  Loc loc;
  std::int64_t int_value = 0;
  double float_value = 0.0;
  Symbol name;
  UnOp un_op = UnOp::kNeg;
  Vec<ExprPtr> args;
};

// Small constructors, used by both front-ends and by tests.
ExprPtr make_int(std::int64_t v, std::string dtype = "int32", SourceLocation loc = {});
ExprPtr make_float(double v, std::string dtype = "float32", SourceLocation loc = {});
ExprPtr make_var(std::string name, std::string dtype = "", SourceLocation loc = {});
ExprPtr make_load(std::string buffer, std::vector<ExprPtr> indices, SourceLocation loc = {});
ExprPtr make_binary(BinOp op, ExprPtr a, ExprPtr b, SourceLocation loc = {});
ExprPtr make_cast(std::string dtype, ExprPtr operand, SourceLocation loc = {});
ExprPtr make_call(std::string callee, std::vector<ExprPtr> args, std::string dtype = "", SourceLocation loc = {});

/// Python-like text of an expression, for messages and tests ("v_k // 8").
std::string to_string(const Expr& e);

// -------------------------------------------------------------------- buffers

struct Buffer {
  std::string name;
  std::string dtype = "float32";
  std::vector<ExprPtr> shape;   // empty = scalar buffer
  std::string scope;            // "" (global), "local", "shared", "wmma.accumulator", ...
  Loc loc;
};

/// One dimension of a buffer region: [min, min+extent). A plain index `A[i]`
/// has extent 1.
struct Range {
  ExprPtr min;
  ExprPtr extent;
};

struct BufferRegion {
  std::string buffer;
  std::vector<Range> region;
};

// ------------------------------------------------------------------ statements

enum class IterKind { kSpatial, kReduce, kOpaque, kOrdered };  // "S", "R", "O", ordered

struct IterVar {
  std::string name;       // block iter var, e.g. v_k
  IterKind kind = IterKind::kSpatial;
  ExprPtr min;            // usually int 0
  ExprPtr extent;         // the domain extent (from T.axis.* or the remap'd loop)
  ExprPtr binding;        // the value bound to it (loop var expression)
};

enum class ForKind { kSerial, kParallel, kVectorized, kUnrolled, kThreadBinding };

struct Stmt;
using StmtPtr = std::shared_ptr<const Stmt>;

struct Block {
  std::string name;
  std::vector<IterVar> iter_vars;
  std::vector<BufferRegion> reads;
  std::vector<BufferRegion> writes;
  ExprPtr predicate;                  // T.where(..); null when absent
  StmtPtr init;                       // with T.init(): ...; null when absent
  StmtPtr body;
  std::vector<Buffer> alloc_buffers;  // buffers allocated in this block
  std::map<std::string, std::string> annotations;  // T.block_attr, values as text
  Loc loc;
};

enum class StmtKind {
  kSeq,       // children
  kFor,       // loop_var, min, extent, for_kind, thread_tag, body
  kBlock,     // block (a BlockRealize with its block)
  kStore,     // buffer, indices, value       (`+=` is desugared to a + b)
  kIf,        // cond, body (then), else_body (may be null)
  kLet,       // var, value, body              (T.LetStmt, or `x: T.int32 = ...`)
  kAlloc,     // alloc_buffer outside a block: buffer; the rest of the scope is `body`
  kEvaluate,  // value (a bare expression statement, e.g. T.evaluate / T.tvm_storage_sync)
  kOther,     // an unknown statement kept with its text for debug logs
};

struct Stmt {
  StmtKind kind = StmtKind::kOther;
  Loc loc;
  Vec<StmtPtr> children;                 // kSeq
  Symbol var;                            // kFor loop var / kLet var
  ExprPtr min, extent;                   // kFor
  ForKind for_kind = ForKind::kSerial;   // kFor
  Symbol thread_tag;                     // kFor with thread binding
  std::shared_ptr<const Block> block;    // kBlock
  Symbol buffer;                         // kStore
  Vec<ExprPtr> indices;                  // kStore
  ExprPtr value;                         // kStore value / kLet value / kEvaluate expr / kIf cond
  StmtPtr body;                          // kFor / kLet / kIf then-branch / kAlloc scope
  StmtPtr else_body;                     // kIf
  Box<Buffer> alloc;                     // kAlloc (out of line: 8 bytes here)
  Symbol text;                           // kOther: what it was
};

// ------------------------------------------------------------------ functions

enum class ParamKind { kBuffer, kHandle, kScalar };

struct Param {
  std::string name;
  ParamKind kind = ParamKind::kBuffer;
  std::string dtype;       // scalar dtype ("int64") or buffer dtype
  std::string buffer;      // the buffer bound to this param (T.Buffer param: its own name;
                           // T.handle: the name given by T.match_buffer); "" for scalars
};

struct PrimFunc {
  std::string name;
  Loc loc;
  std::vector<Param> params;                 // in signature order (call_tir links args to these)
  std::map<std::string, Buffer> buffers;     // every buffer by name: params, match_buffer, allocs
  std::vector<std::string> sym_vars;         // symbolic shape vars (n, seq_len, ...) in order of appearance
  std::map<std::string, std::string> attrs;  // T.func_attr, values as text
  bool is_private = false;
  StmtPtr body;
};

// ---------------------------------------------------------------------- Relax

struct StructInfo;
using StructInfoPtr = std::shared_ptr<const StructInfo>;

enum class SInfoKind { kTensor, kObject, kShape, kTuple, kPrim, kUnknown };

struct StructInfo {
  SInfoKind kind = SInfoKind::kUnknown;
  bool shape_known = false;             // kTensor/kShape: dims given
  Vec<ExprPtr> dims;                    // ints or vars (string dims become vars)
  int ndim = -1;                        // R.Tensor(ndim=..) or dims.size()
  Symbol dtype;                         // kTensor / kPrim
  Vec<StructInfoPtr> fields;            // kTuple
};

enum class RExprKind {
  kVar,           // name
  kGlobalFunc,    // name: `cls.f` or a bare function name in call_tir
  kCall,          // op: "R.call_tir", "R.matmul", "R.permute_dims", "R.nn.conv2d",
                  //     "R.call_dps_packed", "R.call_pure_packed", ... ;
                  //     args, kwargs, sinfo_args (out_sinfo / sinfo_args)
  kTuple,         // args
  kTupleGetItem,  // args[0], index
  kPrimValue,     // prim (R.prim_value(e)) / bare literal int
  kShape,         // dims (R.shape([..]))
  kString,        // name (R.str / string literal, packed-func names)
  kConstant,      // metadata constant / R.const
  kOther,         // name says what
};

struct RExpr;
using RExprPtr = std::shared_ptr<const RExpr>;

struct RExpr {
  RExprKind kind = RExprKind::kOther;
  std::int32_t index = 0;  // kTupleGetItem / kConstant (the readers reject indices beyond int32)
  Loc loc;
  Symbol name;
  Symbol op;
  Vec<RExprPtr> args;
  Vec<std::pair<std::string, RExprPtr>> kwargs;
  Vec<StructInfoPtr> sinfo_args;
  ExprPtr prim;
  Vec<ExprPtr> dims;
};

struct Binding {
  Symbol var;
  StructInfoPtr sinfo;   // annotation when printed; may be null
  RExprPtr value;
  Loc loc;
};

struct RelaxParam {
  std::string name;
  StructInfoPtr sinfo;
};

struct RelaxFunc {
  std::string name;
  Loc loc;
  std::vector<RelaxParam> params;
  std::vector<std::string> sym_vars;
  std::vector<Binding> bindings;             // in order, dataflow blocks flattened
  RExprPtr ret;                              // the returned expression; may be null
  std::map<std::string, std::string> attrs;  // R.func_attr, values as text
};

// --------------------------------------------------------------------- module

struct Module {
  std::string source;                  // file name the module came from
  std::vector<PrimFunc> prim_funcs;    // in file order; names may repeat
  std::vector<RelaxFunc> relax_funcs;  // in file order
  /// TVMScript: the other names a module class defines (`attention = R.ExternFunc(..)`), which a
  /// `cls.attention` reference may name (docs/ir-formats.md "Truncated dumps").
  std::vector<std::string> other_globals;
  std::string format;                  // "tvmscript", "tvm-json-legacy", "tvm-json-ffi"
};

// ------------------------------------------------------------------ front-ends

/// Parse TVMScript text (any era, see docs/ir-formats.md). Throws InputError
/// with file:line:col on a syntax error. A large text is parsed on several
/// threads (ParseOptions{} defaults); the result is always the serial one.
Module parse_tvmscript(const std::string& text, const std::string& filename);

/// What a parse did (for benchmarks and tests).
struct ParseStats {
  unsigned threads = 1;    // threads that parsed it (1: serially)
  unsigned chunks = 1;     // chunks the text was split into (a few per thread; 1: serially)
  bool fell_back = false;  // a parallel parse was given up (a split it could not verify, or
                           // an error); the text was then parsed serially
};

/// How parse_tvmscript may use threads (docs/ir-formats.md, "Parallel parse").
struct ParseOptions {
  std::size_t min_parallel_bytes = std::size_t{4} << 20;  // smaller texts are parsed serially
  unsigned threads = 0;  // 0: $TC_PARSE_THREADS, else the hardware threads; at most 8; 1: serial
  ParseStats* stats = nullptr;  // filled in when set
  bool ordered_debug_log = false;  // true: parse serially, so that debug log lines come in file
                                   // order (the CLI sets it with -v); the result is the same
  /// Refuse a dump that is not a whole printed module (docs/ir-formats.md "Truncated dumps":
  /// no function at all, a `relax as R` header without a Relax function, a call of a function the
  /// module does not define). Off only for tests that glue dumps together.
  bool require_whole_module = true;
};

Module parse_tvmscript(const std::string& text, const std::string& filename, const ParseOptions& options);

/// Read a TVM JSON graph (legacy `root`/`type_key` or tvm-ffi `root_index`/`type`).
Module read_tvm_json(const std::string& text, const std::string& filename);

/// Load a dump from disk, detecting the format from its content (`options`: for TVMScript).
Module load_module(const std::string& path, const ParseOptions& options);
Module load_module(const std::string& path);  // ParseOptions{}

}  // namespace tenet_cost::ir

/// Symbols hash like their text (std::hash<std::string_view>), so a Symbol and
/// the equal std::string land in the same bucket.
template <>
struct std::hash<tenet_cost::ir::Symbol> {
  std::size_t operator()(const tenet_cost::ir::Symbol& s) const noexcept {
    return std::hash<std::string_view>{}(s.view());
  }
};

/// `fmt::format("{}", sym)` / spdlog: formats the text (all string_view specs).
template <>
struct fmt::formatter<tenet_cost::ir::Symbol> : fmt::formatter<fmt::string_view> {
  template <class Ctx>
  auto format(const tenet_cost::ir::Symbol& s, Ctx& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};
