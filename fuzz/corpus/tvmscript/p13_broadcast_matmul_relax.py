# Hand-written for tenet-cost's extractor tests (issue 13 item 6): broadcast batch matmuls as
# Relax prints them before legalization (broadcast_matmul_tir.py is the legalized form).
# `mm` broadcasts each operand over the other's leading dims; `bmm` has a true batch dim (8,
# in both operands) and a dim only the first operand has (2).
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def mm(x: R.Tensor(("b", 1, "m", "k"), dtype="float32"), y: R.Tensor(("a", 1, "c", "k", "n"), dtype="float32")) -> R.Tensor(("a", "b", "c", "m", "n"), dtype="float32"):
        a = T.int64()
        b = T.int64()
        c = T.int64()
        m = T.int64()
        n = T.int64()
        gv: R.Tensor((a, b, c, m, n), dtype="float32") = R.matmul(x, y, out_dtype="void")
        return gv

    @R.function
    def bmm(x: R.Tensor((2, 8, 64, 32), dtype="float16"), y: R.Tensor((8, 32, 16), dtype="float16")) -> R.Tensor((2, 8, 64, 16), dtype="float16"):
        gv: R.Tensor((2, 8, 64, 16), dtype="float16") = R.matmul(x, y, out_dtype="void")
        return gv
