#!/usr/bin/env python3
"""Generate the MLC-style TVMScript dumps shipped in workloads/ from a model's config.json.

Usage: python3 scripts/gen_workloads.py            (regenerates every workloads/<model>/<scheme>.py)

The output mimics what MLC-LLM's `--debug-dump` prints after FuseTIR (TVM 2023-2025 era, see
/work/shared/fixtures/real/01 and 17): one `@I.ir_module class Module` with private prim_funcs
`fused_fused_dequantize*_NT_matmul*` (q4f16_1: uint32-packed int4 weights, float16 group-32 scales,
NK layout) or `NT_matmul*` (q0f16), decode variants with a static 1-token batch, prefill variants
with the symbolic length `n` and batch variants with the symbolic `batch_size` rows, a few elementwise
prim_funcs, and the Relax entries of a compiled MLC model: `prefill` / `decode` (one sequence) and
`batch_prefill` (the prompts of `batch_size` sequences packed into `n`, logits at each sequence's last
token) / `batch_decode` (one token for each of `batch_size` sequences), which call them once per layer
through R.call_tir, with MLC's paged KV-cache attention builtin in between. Only GEMM-relevant functions are kept so each dump stays small. Python is only needed to
regenerate; the outputs are checked in.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["llama-2-7b", "qwen2-0.5b"]
# (leading, rows) dims of the activations per kind of prim_func: single-sequence decode, prefill of n tokens (also
# MLC's batch_prefill, whose n packs every sequence's tokens), and batch_decode's one token for each of batch_size
# sequences
ROWS = {"decode": (1, 1), "prefill": (1, "n"), "batch": ("batch_size", 1)}
SCHEMES = ["q0f16", "q4f16_1"]


def i64(v):
    return v if isinstance(v, str) else f"T.int64({v})"


def shape(dims):
    return "(" + ", ".join(i64(d) for d in dims) + ")"


class Gen:
    def __init__(self, cfg, scheme):
        self.cfg = cfg
        self.scheme = scheme
        self.q = scheme == "q4f16_1"
        h = cfg["hidden_size"]
        heads = cfg["num_attention_heads"]
        kv = cfg.get("num_key_value_heads", heads)
        hd = cfg.get("head_dim", h // heads)
        self.h, self.heads, self.kv, self.hd = h, heads, kv, hd
        self.inter = cfg["intermediate_size"]
        self.vocab = cfg["vocab_size"]
        self.layers = cfg["num_hidden_layers"]
        self.funcs = []
        self.count = 0
        # (name, N, K, epilogue) per GEMM kind
        self.gemms = {
            "qkv": ((heads + 2 * kv) * hd, h, None),
            "o": (h, heads * hd, "add"),
            "gate_up": (2 * self.inter, h, None),
            "down": (h, self.inter, "add"),
            "lm_head": (self.vocab, h, "cast"),
        }
        self.names = {}

    def weight_params(self, n, k):
        if self.q:
            return [("W", (n, k // 8), "uint32"), ("S", (n, k // 32), "float16")]
        return [("W", (n, k), "float16")]

    def gemm_func(self, kind, mode):
        """mode: "decode" (1, 1, K), "prefill" (1, n, K) or "batch" (batch_size, 1, K) activations."""
        n, k, epi = self.gemms[kind]
        idx = self.count
        self.count += 1
        core = f"NT_matmul{idx}" if idx else "NT_matmul"
        if epi == "add":
            core = f"fused_{core}_add{idx}"
        elif epi == "cast":
            core = f"fused_{core}_cast{idx}"
        name = f"fused_fused_dequantize{idx}_{core.replace('fused_', '')}" if self.q else core
        if self.q and epi:
            name = f"fused_fused_dequantize{idx}_fused_NT_matmul{idx}_{epi}{idx}"
        lead, rows = ROWS[mode]
        lines = []
        w = self.weight_params(n, k)
        params = [f"{pn.lower()}{idx}: T.Buffer({shape(s)}, \"{dt}\")" for pn, s, dt in w]
        params.append("p_x: T.handle")
        if epi == "add":
            params.append("p_residual: T.handle")
        params.append("p_output0: T.handle")
        lines.append("    @T.prim_func(private=True)")
        lines.append(f"    def {name}({', '.join(params)}):")
        lines.append('        T.func_attr({"tir.noalias": T.bool(True)})')
        for sym in (lead, rows):
            if isinstance(sym, str):
                lines.append(f"        {sym} = T.int64()")
        lines.append(f"        x = T.match_buffer(p_x, {shape((lead, rows, k))}, \"float16\")")
        if epi == "add":
            lines.append(f"        residual = T.match_buffer(p_residual, {shape((lead, rows, n))}, \"float16\")")
        out_dt = ', "float32"' if epi == "cast" else ', "float16"'
        out = "var_NT_matmul_intermediate" if not epi else "p_output0_intermediate"
        lines.append(f"        {out} = T.match_buffer(p_output0, {shape((lead, rows, n))}{out_dt})")
        lines.append('        # with T.block("root"):')
        wname = f"w{idx}"
        if self.q:
            deq = "p_dequantize_intermediate"
            lines.append(f"        {deq} = T.alloc_buffer({shape((n, k))}, \"float16\")")
        if epi:
            lines.append(f"        var_NT_matmul_intermediate = T.alloc_buffer({shape((lead, rows, n))}, \"float16\")")
        if self.q:
            s = f"s{idx}"
            lines += [
                f"        for i, j in T.grid({i64(n)}, {i64(k)}):",
                '            with T.block("dequantize"):',
                '                v_i, v_j = T.axis.remap("SS", [i, j])',
                f"                T.reads({wname}[v_i, v_j // T.int64(8)], {s}[v_i, v_j // T.int64(32)])",
                f"                T.writes({deq}[v_i, v_j])",
                f"                {deq}[v_i, v_j] = (T.Cast(\"float16\", T.bitwise_and(T.shift_right({wname}[v_i, v_j // T.int64(8)], "
                f"T.Cast(\"uint32\", v_j % T.int64(8)) * T.uint32(4)), T.uint32(15))) - T.float16(7)) * {s}[v_i, v_j // T.int64(32)]",
            ]
            b = deq
        else:
            b = wname
        lines += [
            f"        for i0, i1, i2, k in T.grid({i64(lead)}, {i64(rows)}, {i64(n)}, {i64(k)}):",
            '            with T.block("NT_matmul"):',
            '                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])',
            f"                T.reads(x[v_i0, v_i1, v_k], {b}[v_i2, v_k])",
            "                T.writes(var_NT_matmul_intermediate[v_i0, v_i1, v_i2])",
            "                with T.init():",
            "                    var_NT_matmul_intermediate[v_i0, v_i1, v_i2] = T.float16(0)",
            "                var_NT_matmul_intermediate[v_i0, v_i1, v_i2] = var_NT_matmul_intermediate[v_i0, v_i1, v_i2] + "
            f"x[v_i0, v_i1, v_k] * {b}[v_i2, v_k]",
        ]
        if epi:
            blk = "T_add" if epi == "add" else "compute"
            val = ("residual[v_ax0, v_ax1, v_ax2] + var_NT_matmul_intermediate[v_ax0, v_ax1, v_ax2]" if epi == "add"
                   else 'T.Cast("float32", var_NT_matmul_intermediate[v_ax0, v_ax1, v_ax2])')
            reads = ("residual[v_ax0, v_ax1, v_ax2], var_NT_matmul_intermediate[v_ax0, v_ax1, v_ax2]" if epi == "add"
                     else "var_NT_matmul_intermediate[v_ax0, v_ax1, v_ax2]")
            lines += [
                f"        for ax0, ax1, ax2 in T.grid({i64(lead)}, {i64(rows)}, {i64(n)}):",
                f'            with T.block("{blk}"):',
                '                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])',
                f"                T.reads({reads})",
                "                T.writes(p_output0_intermediate[v_ax0, v_ax1, v_ax2])",
                f"                p_output0_intermediate[v_ax0, v_ax1, v_ax2] = {val}",
            ]
        self.funcs.append("\n".join(lines))
        return name

    def elementwise(self, suffix, mode):
        """rms_norm{suffix} and fused_split_silu_multiply{suffix} over activations of ROWS[mode]."""
        h = self.h
        i = self.inter
        lead, rows = ROWS[mode]
        sym = lead if isinstance(lead, str) else rows
        d0, d1 = i64(lead), i64(rows)
        self.funcs.append(f"""    @T.prim_func(private=True)
    def rms_norm{suffix}(var_A: T.handle, B: T.Buffer(({i64(h)},), "float16"), var_rms_norm: T.handle):
        T.func_attr({{"tir.noalias": T.bool(True)}})
        {sym} = T.int64()
        A = T.match_buffer(var_A, ({d0}, {d1}, {i64(h)}), "float16")
        rms_norm_1 = T.match_buffer(var_rms_norm, ({d0}, {d1}, {i64(h)}), "float16")
        # with T.block("root"):
        Ared_temp = T.alloc_buffer(({d0}, {d1}))
        for bsz, i, k in T.grid({d0}, {d1}, {i64(h)}):
            with T.block("Ared_temp"):
                v_bsz, v_i, v_k = T.axis.remap("SSR", [bsz, i, k])
                T.reads(A[v_bsz, v_i, v_k])
                T.writes(Ared_temp[v_bsz, v_i])
                with T.init():
                    Ared_temp[v_bsz, v_i] = T.float32(0)
                Ared_temp[v_bsz, v_i] = Ared_temp[v_bsz, v_i] + T.Cast("float32", A[v_bsz, v_i, v_k]) * T.Cast("float32", A[v_bsz, v_i, v_k])
        for bsz, i, k in T.grid({d0}, {d1}, {i64(h)}):
            with T.block("rms_norm"):
                v_bsz, v_i, v_k = T.axis.remap("SSS", [bsz, i, k])
                T.reads(B[v_k], A[v_bsz, v_i, v_k], Ared_temp[v_bsz, v_i])
                T.writes(rms_norm_1[v_bsz, v_i, v_k])
                rms_norm_1[v_bsz, v_i, v_k] = T.Cast("float16", T.Cast("float32", B[v_k]) * (T.Cast("float32", A[v_bsz, v_i, v_k]) / T.sqrt(Ared_temp[v_bsz, v_i] * T.float32({1.0 / h!r}) + T.float32(1.0000000000000001e-05))))

    @T.prim_func(private=True)
    def fused_split_silu_multiply{suffix}(p_lv: T.handle, p_output0: T.handle):
        T.func_attr({{"tir.noalias": T.bool(True)}})
        {sym} = T.int64()
        lv = T.match_buffer(p_lv, ({d0}, {d1}, {i64(2 * i)}), "float16")
        var_T_multiply_intermediate = T.match_buffer(p_output0, ({d0}, {d1}, {i64(i)}), "float16")
        # with T.block("root"):
        for ax0, ax1, ax2 in T.grid({d0}, {d1}, {i64(i)}):
            with T.block("T_multiply"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(lv[v_ax0, v_ax1, v_ax2], lv[v_ax0, v_ax1, v_ax2 + {i64(i)}])
                T.writes(var_T_multiply_intermediate[v_ax0, v_ax1, v_ax2])
                var_T_multiply_intermediate[v_ax0, v_ax1, v_ax2] = lv[v_ax0, v_ax1, v_ax2] * T.sigmoid(lv[v_ax0, v_ax1, v_ax2]) * lv[v_ax0, v_ax1, v_ax2 + {i64(i)}]""")

    def params(self):
        """model_params tuple entries: (kind, layer) -> list of (index, shape, dtype)."""
        entries = []
        index = {}
        for layer in range(self.layers):
            index[("norm1", layer)] = [len(entries)]
            entries.append(((self.h,), "float16"))
            for kind in ("qkv", "o"):
                n, k, _ = self.gemms[kind]
                index[(kind, layer)] = []
                for _, s, dt in self.weight_params(n, k):
                    index[(kind, layer)].append(len(entries))
                    entries.append((s, dt))
            index[("norm2", layer)] = [len(entries)]
            entries.append(((self.h,), "float16"))
            for kind in ("gate_up", "down"):
                n, k, _ = self.gemms[kind]
                index[(kind, layer)] = []
                for _, s, dt in self.weight_params(n, k):
                    index[(kind, layer)].append(len(entries))
                    entries.append((s, dt))
        index[("norm_f", 0)] = [len(entries)]
        entries.append(((self.h,), "float16"))
        n, k, _ = self.gemms["lm_head"]
        index[("lm_head", 0)] = []
        for _, s, dt in self.weight_params(n, k):
            index[("lm_head", 0)].append(len(entries))
            entries.append((s, dt))
        return entries, index

    def entry(self, name, fn, entries, index):
        """A Relax entry: decode / prefill (one sequence), batch_decode (one token for each of batch_size
        sequences) or batch_prefill (the tokens of batch_size sequences packed into n, logits at their last tokens,
        as MLC-LLM's serving engine calls it)."""
        prefill = name in ("prefill", "batch_prefill")
        batch = name.startswith("batch_")
        lead, rows = ROWS["prefill" if prefill else "batch" if batch else "decode"]
        tup = ", ".join(f"R.Tensor(({', '.join(str(d) for d in s)}{',' if len(s) == 1 else ''}), dtype=\"{dt}\")"
                        for s, dt in entries)
        quoted = ", ".join(f'"{d}"' if isinstance(d, str) else str(d) for d in (lead, rows, self.h))
        logits_rows = ("batch_size", 1) if batch else (1, 1)
        lq = ", ".join(f'"{d}"' if isinstance(d, str) else str(d) for d in logits_rows + (self.vocab,))
        positions = ', logit_positions: R.Tensor(("batch_size",), dtype="int32")' if name == "batch_prefill" else ""
        out = [
            "    @R.function",
            f"    def {name}(input_embeds: R.Tensor(({quoted}), dtype=\"float16\"){positions}, kv_cache: R.Object, "
            f"model_params: R.Tuple({tup})) -> R.Tuple(R.Tensor(({lq}), dtype=\"float32\"), R.Object):",
        ]
        for sym in ("n" if prefill else None, "batch_size" if batch else None):
            if sym:
                out.append(f"        {sym} = T.int64()")
        num_input = 3 if positions else 2
        out += [f'        R.func_attr({{"num_input": {num_input}}})', "        cls = Module", "        with R.dataflow():"]
        v = [0]

        def var():
            v[0] += 1
            return f"lv{v[0]}"

        def tensor(dims, dt="float16"):
            return f"R.Tensor(({', '.join(str(d) for d in dims)}), dtype=\"{dt}\")"

        def load(key):
            names = []
            for i in index[key]:
                s, dt = entries[i]
                nm = var()
                out.append(f"            {nm}: R.Tensor(({', '.join(str(d) for d in s)}{',' if len(s) == 1 else ''}), "
                           f"dtype=\"{dt}\") = model_params[{i}]")
                names.append(nm)
            return names

        h, heads, kv, hd = self.h, self.heads, self.kv, self.hd
        norm = "1" if name == "batch_decode" else ""
        x = "input_embeds"
        kvc = "kv_cache"
        for layer in range(self.layers):
            (g1,) = load(("norm1", layer))
            y = var()
            out.append(f"            {y} = R.call_tir(cls.rms_norm{norm}, ({x}, {g1}), out_sinfo={tensor((lead, rows, h))})")
            w = load(("qkv", layer))
            qkv = var()
            nq = (heads + 2 * kv) * hd
            out.append(f"            {qkv} = R.call_tir(cls.{fn['qkv']}, ({', '.join(w)}, {y}), out_sinfo={tensor((lead, rows, nq))})")
            q4 = var()
            out.append(f"            {q4} = R.reshape({qkv}, R.shape([{lead}, {rows}, {heads + 2 * kv}, {hd}]))")
            parts = var()
            qt, kt = tensor((lead, rows, heads, hd)), tensor((lead, rows, kv, hd))
            out.append(f"            {parts}: R.Tuple({qt}, {kt}, {kt}) = R.split({q4}, indices_or_sections=[{heads}, {heads + kv}], axis=2)")
            qv, kv_k, kv_v = var(), var(), var()
            out.append(f"            {qv}: {qt} = {parts}[0]")
            out.append(f"            {kv_k}: {kt} = {parts}[1]")
            out.append(f"            {kv_v}: {kt} = {parts}[2]")
            app = var()
            out.append(f"            {app}: R.Object = R.call_pure_packed(\"vm.builtin.paged_attention_kv_cache_append\", {kvc}, "
                       f"cls.kv_cache_transpose_append, {kv_k}, {kv_v}, R.prim_value({layer}), sinfo_args=(R.Object,))")
            kvc = app
            att = var()
            out.append(f"            {att} = R.call_dps_packed(\"vm.builtin.paged_attention_kv_cache_attention\", "
                       f"({kvc}, cls.attention, {qv}, R.prim_value({layer}), R.prim_value(1), R.prim_value(T.float32(1)), "
                       f"R.prim_value(10000)), out_sinfo={tensor((lead, rows, heads, hd))})")
            a2 = var()
            out.append(f"            {a2} = R.reshape({att}, R.shape([{lead}, {rows}, {heads * hd}]))")
            w = load(("o", layer))
            o = var()
            out.append(f"            {o} = R.call_tir(cls.{fn['o']}, ({', '.join(w)}, {a2}, {x}), out_sinfo={tensor((lead, rows, h))})")
            (g2,) = load(("norm2", layer))
            y2 = var()
            out.append(f"            {y2} = R.call_tir(cls.rms_norm{norm}, ({o}, {g2}), out_sinfo={tensor((lead, rows, h))})")
            w = load(("gate_up", layer))
            gu = var()
            out.append(f"            {gu} = R.call_tir(cls.{fn['gate_up']}, ({', '.join(w)}, {y2}), out_sinfo={tensor((lead, rows, 2 * self.inter))})")
            act = var()
            out.append(f"            {act} = R.call_tir(cls.fused_split_silu_multiply{norm}, ({gu},), out_sinfo={tensor((lead, rows, self.inter))})")
            w = load(("down", layer))
            d = var()
            out.append(f"            {d} = R.call_tir(cls.{fn['down']}, ({', '.join(w)}, {act}, {o}), out_sinfo={tensor((lead, rows, h))})")
            x = d
        (gf,) = load(("norm_f", 0))
        yf = var()
        out.append(f"            {yf} = R.call_tir(cls.rms_norm{norm}, ({x}, {gf}), out_sinfo={tensor((lead, rows, h))})")
        if name == "prefill":
            last = var()
            out.append(f"            {last} = R.strided_slice({yf}, axes=[1], begin=[n - 1], end=[n])")
            yf = last
        elif name == "batch_prefill":
            last, rows2 = var(), var()
            out.append(f"            {last} = R.take({yf}, logit_positions, axis=1)")
            out.append(f"            {rows2} = R.reshape({last}, R.shape([batch_size, 1, {h}]))")
            yf = rows2
        w = load(("lm_head", 0))
        logits = var()
        lt = tensor(logits_rows + (self.vocab,), "float32")
        out.append(f"            {logits} = R.call_tir(cls.{fn['lm_head']}, ({', '.join(w)}, {yf}), out_sinfo={lt})")
        gv = var()
        out.append(f"            {gv}: R.Tuple({lt}, R.Object) = {logits}, {kvc}")
        out.append(f"            R.output({gv})")
        out.append(f"        return {gv}")
        return "\n".join(out)

    def module(self, model):
        fn_dec, fn_pre, fn_bat = {}, {}, {}
        for kind in ("qkv", "o", "gate_up", "down", "lm_head"):
            fn_dec[kind] = self.gemm_func(kind, "decode")
        for kind in ("qkv", "o", "gate_up", "down"):
            fn_pre[kind] = self.gemm_func(kind, "prefill")
        fn_pre["lm_head"] = fn_dec["lm_head"]  # prefill computes the last token's logits only
        for kind in ("qkv", "o", "gate_up", "down", "lm_head"):
            fn_bat[kind] = self.gemm_func(kind, "batch")
        fn_bpre = dict(fn_pre, lm_head=fn_bat["lm_head"])  # batch_prefill: the last token of each sequence
        self.elementwise("", "prefill")
        self.elementwise("1", "batch")
        entries, index = self.params()
        create = (f"""    @R.function
    def create_kv_cache(cache_config: R.Shape(["reserved_nseq", "total_seq_len", "page_size"])) -> R.Object:
        reserved_nseq = T.int64()
        total_seq_len = T.int64()
        page_size = T.int64()
        R.func_attr({{"relax.force_pure": True}})
        gv: R.Object = R.call_packed("vm.builtin.paged_attention_kv_cache_create", cache_config, R.prim_value({self.layers}), R.prim_value({self.kv}), R.prim_value({self.hd}), R.const(0, "float16"), sinfo_args=(R.Object,))
        return gv""")
        # the last entry calls prim_funcs no other entry calls (batch_decode's), so that a dump cut before it leaves
        # them uncalled, which the parser refuses as truncated (so do the earlier cuts, for the same reason)
        body = "\n\n".join(self.funcs + [create, self.entry("decode", fn_dec, entries, index),
                                           self.entry("prefill", fn_pre, entries, index),
                                           self.entry("batch_prefill", fn_bpre, entries, index),
                                           self.entry("batch_decode", fn_bat, entries, index)])
        header = (f"# {model} {self.scheme}: MLC-LLM-style dump generated by scripts/gen_workloads.py from "
                  f"workloads/{model}/config.json (GEMM-relevant functions only)\n"
                  "# from tvm.script import ir as I\n# from tvm.script import tir as T\n# from tvm.script import relax as R\n\n"
                  "@I.ir_module\nclass Module:\n")
        return header + body + "\n"


def main():
    for model in MODELS:
        with open(os.path.join(ROOT, "workloads", model, "config.json")) as f:
            cfg = json.load(f)
        for scheme in SCHEMES:
            text = Gen(cfg, scheme).module(model)
            path = os.path.join(ROOT, "workloads", model, scheme + ".py")
            with open(path, "w") as f:
                f.write(text)
            print(f"{path}: {len(text)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
