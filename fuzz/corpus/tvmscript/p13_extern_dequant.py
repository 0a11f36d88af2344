# Hand-written for tenet-cost's extractor tests (issue 13 item 2), in the form TVM prints a
# BitBLAS-scheduled weight-only GEMV whose dequantize is an opaque extern call: the packed
# weight is copied to a local buffer, a tensorized block decodes it with
# T.call_extern("handle", "decode_i4s_to_f16_scale", ..) (bits and group size in the
# `dequantize_info` function attribute and in the buffer shapes), and the GEMV block reads
# the decoded local buffer. The second function decodes 2-bit unsigned weights with
# T.call_pure_extern and a per-channel scale, without any dequantize_info.
# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def gemv_i4_extern(A: T.Buffer((1, 4096), "float16"), B: T.Buffer((1024, 2048), "int8"), Scale: T.Buffer((1024, 128), "float16"), D: T.Buffer((1, 1024), "float16")):
        T.func_attr({"dequantize_info": {"B": {"decode_block": "B_decode", "fast_decoding": T.bool(True), "group_size": 32, "source_format": {"bits": 4, "format": "int"}, "storage_dtype": "int8", "target_format": "float16", "with_scaling": T.bool(True), "with_zeros": T.bool(False)}}, "tir.noalias": T.bool(True)})
        # with T.block("root"):
        B_decode_local = T.alloc_buffer((1024, 4096), "float16", scope="local")
        A_local = T.alloc_buffer((1, 4096), "float16", scope="local")
        B_local = T.alloc_buffer((1024, 2048), "int8", scope="local")
        C_local = T.alloc_buffer((1, 1024), "float16", scope="local")
        for ax0_0 in T.thread_binding(512, thread="blockIdx.x"):
            for ax0_1 in T.thread_binding(2, thread="threadIdx.y"):
                for ax1_0 in range(8):
                    for ax1_1 in T.thread_binding(64, thread="threadIdx.x"):
                        for ax0 in range(1):
                            for ax1 in T.vectorized(4):
                                with T.block("B_local"):
                                    v0 = T.axis.spatial(1024, ax0_0 * 2 + ax0_1 + ax0)
                                    v1 = T.axis.spatial(2048, ax1_0 * 256 + ax1_1 * 4 + ax1)
                                    T.reads(B[v0, v1])
                                    T.writes(B_local[v0, v1])
                                    B_local[v0, v1] = B[v0, v1]
                        for ax0 in range(1):
                            with T.block("B_decode_local_o"):
                                v0_o = T.axis.spatial(1024, ax0_0 * 2 + ax0_1 + ax0)
                                v1_o = T.axis.spatial(512, ax1_0 * 64 + ax1_1)
                                T.reads(B_local[v0_o, v1_o * 4:v1_o * 4 + 4], Scale[v0_o, v1_o // 4])
                                T.writes(B_decode_local[v0_o, v1_o * 8:v1_o * 8 + 8])
                                Compressed = T.match_buffer(B_local[v0_o, v1_o * 4:v1_o * 4 + 4], (4,), "int8", scope="local")
                                Decompressed = T.match_buffer(B_decode_local[v0_o, v1_o * 8:v1_o * 8 + 8], (8,), "float16", scope="local")
                                Scale_1 = T.match_buffer(Scale[v0_o, v1_o // 4], (1,), "float16", elem_offset=Scale.elem_offset)
                                T.call_extern("handle", "decode_i4s_to_f16_scale", Compressed.data, Decompressed.data, Scale_1.access_ptr("r"), 8)
                        for ax0 in range(1):
                            for ax1 in T.vectorized(8):
                                with T.block("A_local"):
                                    v0 = T.axis.spatial(1, ax0)
                                    v1 = T.axis.spatial(4096, ax1_0 * 512 + ax1_1 * 8 + ax1)
                                    T.reads(A[v0, v1])
                                    T.writes(A_local[v0, v1])
                                    A_local[v0, v1] = A[v0, v1]
                        for ax1_2 in range(8):
                            with T.block("C"):
                                v0 = T.axis.spatial(1024, ax0_0 * 2 + ax0_1)
                                v1 = T.axis.reduce(4096, ax1_0 * 512 + ax1_1 * 8 + ax1_2)
                                T.reads(A_local[0, v1], B_decode_local[v0, v1])
                                T.writes(C_local[0, v0])
                                with T.init():
                                    C_local[0, v0] = T.float16(0)
                                C_local[0, v0] = C_local[0, v0] + A_local[0, v1] * B_decode_local[v0, v1]
                for ax0, ax1 in T.grid(1, 1):
                    with T.block("C_local"):
                        v0 = T.axis.spatial(1, ax0)
                        v1 = T.axis.spatial(1024, ax0_0 * 2 + ax0_1 + ax1)
                        T.reads(C_local[v0, v1])
                        T.writes(D[0, v1])
                        D[0, v1] = C_local[v0, v1]

    @T.prim_func
    def gemv_u2_pure_extern(A: T.Buffer((1, 4096), "float16"), B: T.Buffer((1024, 1024), "int8"), Scale: T.Buffer((1024,), "float16"), D: T.Buffer((1, 1024), "float16")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        B_decode_local = T.alloc_buffer((1024, 4096), "float16", scope="local")
        C_local = T.alloc_buffer((1, 1024), "float16", scope="local")
        for ax0_0 in T.thread_binding(1024, thread="blockIdx.x"):
            for ax1_0 in range(4):
                for ax1_1 in T.thread_binding(64, thread="threadIdx.x"):
                    with T.block("B_decode_local_o"):
                        v0_o = T.axis.spatial(1024, ax0_0)
                        v1_o = T.axis.spatial(256, ax1_0 * 64 + ax1_1)
                        T.reads(B[v0_o, v1_o * 4:v1_o * 4 + 4], Scale[v0_o])
                        T.writes(B_decode_local[v0_o, v1_o * 16:v1_o * 16 + 16])
                        Compressed = T.match_buffer(B[v0_o, v1_o * 4:v1_o * 4 + 4], (4,), "int8")
                        Decompressed = T.match_buffer(B_decode_local[v0_o, v1_o * 16:v1_o * 16 + 16], (16,), "float16", scope="local")
                        Scale_1 = T.match_buffer(Scale[v0_o], (1,), "float16", elem_offset=Scale.elem_offset)
                        T.call_pure_extern("handle", "decode_i2u_to_f16_scale", Compressed.data, Decompressed.data, Scale_1.access_ptr("r"), 16)
                    for ax1_2 in range(16):
                        with T.block("C"):
                            v0 = T.axis.spatial(1024, ax0_0)
                            v1 = T.axis.reduce(4096, ax1_0 * 1024 + ax1_1 * 16 + ax1_2)
                            T.reads(A[0, v1], B_decode_local[v0, v1])
                            T.writes(C_local[0, v0])
                            with T.init():
                                C_local[0, v0] = T.float16(0)
                            C_local[0, v0] = C_local[0, v0] + A[0, v1] * B_decode_local[v0, v1]
            with T.block("C_local"):
                v1 = T.axis.spatial(1024, ax0_0)
                T.reads(C_local[0, v1])
                T.writes(D[0, v1])
                D[0, v1] = C_local[0, v1]
