# Hand-written for tenet-cost's extractor tests (issue 13 item 6): the legalized TIR of
# broadcast_matmul_relax.py's two matmuls, as TVM prints them after LegalizeOps.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def matmul(var_x: T.handle, var_y: T.handle, var_matmul: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        a = T.int64()
        b = T.int64()
        c = T.int64()
        k = T.int64()
        m = T.int64()
        n = T.int64()
        x = T.match_buffer(var_x, (b, T.int64(1), m, k))
        y = T.match_buffer(var_y, (a, T.int64(1), c, k, n))
        matmul = T.match_buffer(var_matmul, (a, b, c, m, n))
        for i0, i1, i2, i3, i4, k_1 in T.grid(a, b, c, m, n, k):
            with T.block("matmul"):
                v_i0, v_i1, v_i2, v_i3, v_i4, v_k = T.axis.remap("SSSSSR", [i0, i1, i2, i3, i4, k_1])
                T.reads(x[v_i1, T.int64(0), v_i3, v_k], y[v_i0, T.int64(0), v_i2, v_k, v_i4])
                T.writes(matmul[v_i0, v_i1, v_i2, v_i3, v_i4])
                with T.init():
                    matmul[v_i0, v_i1, v_i2, v_i3, v_i4] = T.float32(0)
                matmul[v_i0, v_i1, v_i2, v_i3, v_i4] = matmul[v_i0, v_i1, v_i2, v_i3, v_i4] + x[v_i1, T.int64(0), v_i3, v_k] * y[v_i0, T.int64(0), v_i2, v_k, v_i4]

    @T.prim_func(private=True)
    def matmul1(x: T.Buffer((T.int64(2), T.int64(8), T.int64(64), T.int64(32)), "float16"), y: T.Buffer((T.int64(8), T.int64(32), T.int64(16)), "float16"), matmul: T.Buffer((T.int64(2), T.int64(8), T.int64(64), T.int64(16)), "float16")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i0, i1, i2, i3, k in T.grid(T.int64(2), T.int64(8), T.int64(64), T.int64(16), T.int64(32)):
            with T.block("matmul"):
                v_i0, v_i1, v_i2, v_i3, v_k = T.axis.remap("SSSSR", [i0, i1, i2, i3, k])
                T.reads(x[v_i0, v_i1, v_i2, v_k], y[v_i1, v_k, v_i3])
                T.writes(matmul[v_i0, v_i1, v_i2, v_i3])
                with T.init():
                    matmul[v_i0, v_i1, v_i2, v_i3] = T.float16(0)
                matmul[v_i0, v_i1, v_i2, v_i3] = matmul[v_i0, v_i1, v_i2, v_i3] + x[v_i0, v_i1, v_i2, v_k] * y[v_i1, v_k, v_i3]

    @R.function
    def mm(x: R.Tensor(("b", 1, "m", "k"), dtype="float32"), y: R.Tensor(("a", 1, "c", "k", "n"), dtype="float32")) -> R.Tensor(("a", "b", "c", "m", "n"), dtype="float32"):
        a = T.int64()
        b = T.int64()
        c = T.int64()
        m = T.int64()
        n = T.int64()
        cls = Module
        gv = R.call_tir(cls.matmul, (x, y), out_sinfo=R.Tensor((a, b, c, m, n), dtype="float32"))
        return gv

    @R.function
    def bmm(x: R.Tensor((2, 8, 64, 32), dtype="float16"), y: R.Tensor((8, 32, 16), dtype="float16")) -> R.Tensor((2, 8, 64, 16), dtype="float16"):
        cls = Module
        gv = R.call_tir(cls.matmul1, (x, y), out_sinfo=R.Tensor((2, 8, 64, 16), dtype="float16"))
        return gv
