// The buffer <-> DRAM loop-nest model (nest.hpp).
#include "nest.hpp"

#include <numeric>
#include <string>

#include "conv_window.hpp"

namespace tenet_cost::cost::detail {

using quant::Operand;

std::int64_t footprint(const Operand& op, const Nest& nest, bool tile_only) {
  std::int64_t f = 1;
  for (const auto& t : op.index) {
    if (t.dim == '0') continue;
    const DimInfo& di = nest.dim(loop_of(t.dim));
    const std::int64_t ext = tile_only ? std::min(di.tile, di.extent) : di.extent;
    f = checked_mul(f, ceil_div(ext, t.divisor), "footprint");
  }
  return f;
}

DramMove dram_move(const Operand& op, const Nest& nest) {
  std::array<bool, 4> mine{};  // the loops the operand indexes, by slot
  for (const auto& t : op.index)
    if (t.dim != '0') mine[static_cast<std::size_t>(loop_slot(loop_of(t.dim)))] = true;
  // the deepest loop of the operand that iterates: a loop of one trip runs once and changes no tile, so the nest is
  // normalised without it (orders that differ only in where a one-trip loop sits are the same nest)
  int deepest = -1;
  for (int pos = 0; pos < 3; ++pos) {
    const char l = nest.order[static_cast<std::size_t>(pos)];
    if (nest.dim(l).trips() > 1 && mine[static_cast<std::size_t>(loop_slot(l))]) deepest = pos;
  }
  std::int64_t reps = 1;
  for (int pos = 0; pos <= deepest; ++pos) {
    const char l = nest.order[static_cast<std::size_t>(pos)];
    if (!mine[static_cast<std::size_t>(loop_slot(l))])
      reps = checked_mul(reps, nest.dim(l).trips(), "tile repetitions");
  }
  std::int64_t fp = 0;
  if (nest.conv && is_conv_input(op)) {
    // the tile search keeps k tiles to whole kernel windows (tile_search.cpp), so each holds whole channels
    const DimInfo& k = nest.dim('k');
    if (k.tile < k.extent && k.tile % (nest.conv->kernel_h * nest.conv->kernel_w) != 0)
      throw InternalError("a convolution's k tile " + std::to_string(k.tile) + " splits a kernel window");
    fp = conv_input_elements(*nest.conv, std::min(nest.dim('m').tile, nest.dim('m').extent));
  } else {
    fp = footprint(op, nest, false);
  }
  DramMove mv;
  if (op.write) {
    mv.first = fp;
    mv.partial = checked_mul(fp, reps - 1, "partial sums");
  } else {
    mv.first = checked_mul(fp, reps, "DRAM elements");
  }
  return mv;
}

i128 dram_bits(const std::vector<Operand>& ops, const Nest& nest, std::int64_t accum_bits) {
  i128 bits = 0;
  for (const auto& op : ops) {
    const DramMove mv = dram_move(op, nest);
    bits += static_cast<i128>(mv.first) * op.bits_num / op.bits_den;
    bits += static_cast<i128>(mv.partial) * accum_bits * 2;
  }
  return bits;
}

i128 working_set_bits(const std::vector<Operand>& ops, const Nest& nest, std::int64_t accum_bits) {
  i128 bits = 0;
  for (const auto& op : ops) {
    const std::int64_t fp = footprint(op, nest, true);
    if (op.write)
      bits += static_cast<i128>(fp) * accum_bits;
    else
      bits += (static_cast<i128>(fp) * op.bits_num + op.bits_den - 1) / op.bits_den;
  }
  return bits;
}

std::int64_t align_of(const std::vector<Operand>& ops, char loop) {
  std::int64_t a = 1;
  for (const auto& op : ops)
    for (const auto& t : op.index)
      if (t.divisor > 1 && loop_of(t.dim) == loop) a = std::lcm(a, t.divisor);
  return a;
}

}  // namespace tenet_cost::cost::detail
