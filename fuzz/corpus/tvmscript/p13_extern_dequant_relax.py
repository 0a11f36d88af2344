# Hand-written for tenet-cost's extractor tests (issue 13 item 2), in the form TVM prints a
# Relax module whose entry calls a separate decode prim_func (the dequantize is an opaque
# extern call, its facts in `dequantize_info` and the buffer shapes) and then an fp16 NT
# matmul on the decoded weight.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def decode(B: T.Buffer((T.int64(4096), T.int64(2048)), "int8"), Scale: T.Buffer((T.int64(4096), T.int64(32)), "float16"), decoded: T.Buffer((T.int64(4096), T.int64(4096)), "float16")):
        T.func_attr({"dequantize_info": {"decoded": {"decode_block": "decode", "fast_decoding": T.bool(True), "group_size": 128, "source_format": {"bits": 4, "format": "uint"}, "storage_dtype": "int8", "target_format": "float16", "with_scaling": T.bool(True), "with_zeros": T.bool(False)}}, "tir.noalias": T.bool(True)})
        for i in T.thread_binding(T.int64(4096), thread="blockIdx.x"):
            for j in T.thread_binding(T.int64(512), thread="threadIdx.x"):
                with T.block("decode_o"):
                    v_i = T.axis.spatial(T.int64(4096), i)
                    v_j_o = T.axis.spatial(T.int64(512), j)
                    T.reads(B[v_i, v_j_o * T.int64(4):v_j_o * T.int64(4) + T.int64(4)], Scale[v_i, v_j_o // T.int64(16)])
                    T.writes(decoded[v_i, v_j_o * T.int64(8):v_j_o * T.int64(8) + T.int64(8)])
                    Compressed = T.match_buffer(B[v_i, v_j_o * T.int64(4):v_j_o * T.int64(4) + T.int64(4)], (T.int64(4),), "int8")
                    Decompressed = T.match_buffer(decoded[v_i, v_j_o * T.int64(8):v_j_o * T.int64(8) + T.int64(8)], (T.int64(8),), "float16")
                    Scale_1 = T.match_buffer(Scale[v_i, v_j_o // T.int64(16)], (T.int64(1),), "float16", elem_offset=Scale.elem_offset)
                    T.call_extern("handle", "decode_i4u_to_f16_scale", Compressed.data, Decompressed.data, Scale_1.access_ptr("r"), 8)

    @T.prim_func(private=True)
    def NT_matmul(p_x: T.handle, w: T.Buffer((T.int64(4096), T.int64(4096)), "float16"), p_out: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        x = T.match_buffer(p_x, (T.int64(1), n, T.int64(4096)), "float16")
        out = T.match_buffer(p_out, (T.int64(1), n, T.int64(4096)), "float16")
        for i0, i1, i2, k in T.grid(T.int64(1), n, T.int64(4096), T.int64(4096)):
            with T.block("NT_matmul"):
                v_i0, v_i1, v_i2, v_k = T.axis.remap("SSSR", [i0, i1, i2, k])
                T.reads(x[v_i0, v_i1, v_k], w[v_i2, v_k])
                T.writes(out[v_i0, v_i1, v_i2])
                with T.init():
                    out[v_i0, v_i1, v_i2] = T.float16(0)
                out[v_i0, v_i1, v_i2] = out[v_i0, v_i1, v_i2] + x[v_i0, v_i1, v_k] * w[v_i2, v_k]

    @R.function
    def prefill(x: R.Tensor((1, "n", 4096), dtype="float16"), B: R.Tensor((4096, 2048), dtype="int8"), Scale: R.Tensor((4096, 32), dtype="float16")) -> R.Tensor((1, "n", 4096), dtype="float16"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv = R.call_tir(cls.decode, (B, Scale), out_sinfo=R.Tensor((4096, 4096), dtype="float16"))
            gv = R.call_tir(cls.NT_matmul, (x, lv), out_sinfo=R.Tensor((1, n, 4096), dtype="float16"))
            R.output(gv)
        return gv
