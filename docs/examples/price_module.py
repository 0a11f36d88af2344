"""Price a TVM module from Python (docs/python.md). From the project root, after the set-up:

    PYTHONPATH=build/python python3 docs/examples/price_module.py

tvm is not needed: tenet_cost reads what an IRModule's script() prints. With TVM, pass the IRModule itself.
"""

import tenet_cost

# What mod.script() prints for a module with one float16 GEMM, C[64, 256] = A[64, 128] @ B[128, 256].
SCRIPT = '''# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def matmul(A: T.Buffer((T.int64(64), T.int64(128)), "float16"), B: T.Buffer((T.int64(128), T.int64(256)), "float16"), C: T.Buffer((T.int64(64), T.int64(256)), "float16")):
        T.func_attr({"tir.noalias": True})
        for i, j, k in T.grid(T.int64(64), T.int64(256), T.int64(128)):
            with T.block("matmul"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float16(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
'''


class IRModuleLike:
    """Stands for tvm.ir.IRModule: all tenet_cost uses of it is script()."""

    def script(self):
        return SCRIPT


def main():
    mod = IRModuleLike()

    # the GEMMs the extractor finds (tenet-cost extract)
    for w in tenet_cost.extract(mod)["workloads"]:
        print(f"{w['function']}: {w['kind']} M={w['m']} N={w['n']} K={w['k']} ({w['macs']} MACs)")

    # the analysis hook an MLC / TVM pipeline would call on its module: one compare per call
    price = tenet_cost.tvm_pass("compare", quant=["q0f16", "q4f16_1", "w8a8-token-channel"], arch="edge-npu-32x32")
    for row in price(mod)["rows"]:
        cost = row["entries"]["module"]  # no Relax entry: the module runs once, under its file name's stem
        print(f"{row['scheme']:>20}: {cost['latency_s'] * 1e6:8.2f} us  {cost['dram_bytes']:>7} DRAM bytes  "
              f"{cost['energy_j'] * 1e6:6.2f} uJ")

    # bad input is a ValueError with the CLI's file:line:col message
    try:
        tenet_cost.estimate(SCRIPT.replace("B[vk, vj]\n", "B[vk, vj]]\n"))
    except ValueError as e:
        print(f"refused: {e}")


if __name__ == "__main__":
    main()
