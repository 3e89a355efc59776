"""Emulator micro-benchmarks: the cost of a lane loop and of one warp instruction.

    .venv/bin/python benchmarks/emulator_micro.py

Three measurements behind docs/emulator.md (Speed), each printed in ns:

* a 32-lane integer add written as the interpreter's lane loops are,
  indexing the register file at ``R[o + l]`` (numba wraps a negative index
  around, so each access carries a compare and select) and through a
  32-lane view ``R[o:o + 32]`` indexed by the loop's own ``l``;
* a 32-lane merge of a result into the lanes of a mask, as the fast paths
  merge theirs, with each lane's select computed from the mask in the loop
  (LLVM makes masked vector stores of it) and read from a row of selects;
* kernels of one instruction repeated 200 times in a loop (full warps of a
  256-thread block, 64 blocks, no trace), run on the emulator: the time per
  warp instruction, the fastest of three launches.  The ``div.u32`` kernel
  divides by the loop counter, so its first pass is the zero-divisor case
  and the others divide by 1 to 49.
"""
import time

import numpy as np
from numba import njit

from pipeline_lib.ptx import Device

REPS = 10_000_000


@njit(cache=True)
def _add_offsets(R, od, ao, bo, n):
    for _ in range(n):
        for l in range(32):
            R[od + l] = R[ao + l] + R[bo + l]


@njit(cache=True)
def _add_views(R, od, ao, bo, n):
    for _ in range(n):
        D, A, B = R[od:od + 32], R[ao:ao + 32], R[bo:bo + 32]
        for l in range(32):
            D[l] = A[l] + B[l]


@njit(cache=True)
def _merge_computed(R, od, oa, mask, n):
    for _ in range(n):
        D, A = R[od:od + 32], R[oa:oa + 32]
        for l in range(32):
            sel = -((mask >> l) & 1)
            old = D[l]
            D[l] = old ^ (((A[l] + 1) ^ old) & sel)


@njit(cache=True)
def _merge_row(R, od, oa, SEL, n):
    for _ in range(n):
        D, A = R[od:od + 32], R[oa:oa + 32]
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            D[l] = old ^ (((A[l] + 1) ^ old) & sel)


def lane_loops() -> None:
    R = np.zeros(4096, np.int64)
    for name, f in (("offsets R[o + l]", _add_offsets), ("views R[o:o + 32]", _add_views)):
        f(R, 64, 256, 128, 10)
        t0 = time.perf_counter()
        f(R, 64, 256, 128, REPS)
        print(f"32-lane add, {name:18s} {(time.perf_counter() - t0) / REPS * 1e9:6.1f} ns")
    mask = 0xFFFF0FFF
    SEL = np.array([-((mask >> l) & 1) for l in range(32)], np.int64)
    for name, f, m in (("select computed", _merge_computed, mask), ("select from a row", _merge_row, SEL)):
        f(R, 64, 256, m, 10)
        t0 = time.perf_counter()
        f(R, 64, 256, m, REPS)
        print(f"32-lane merge, {name:17s} {(time.perf_counter() - t0) / REPS * 1e9:6.1f} ns")


KERNEL = """
.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p_out)
{{
 .reg .pred %p<4>;
 .reg .b32 %r<8>;
 .reg .f32 %f<8>;
 .reg .b64 %rd<4>;
 ld.param.u64 %rd1, [p_out];
 mov.u32 %r1, %tid.x;
 mov.u32 %r2, 0;
 mov.f32 %f1, 0f3F800000;
$L:
{body}
 add.s32 %r2, %r2, 1;
 setp.lt.s32 %p1, %r2, 50;
 @%p1 bra $L;
 cvta.to.global.u64 %rd2, %rd1;
 mul.wide.u32 %rd3, %r1, 4;
 add.s64 %rd2, %rd2, %rd3;
 st.global.u32 [%rd2], %r1;
 ret;
}}"""

BODIES = {
    "mov.u32 %r3, 5": " mov.u32 %r3, 5;",
    "add.s32 %r1, %r1, 1": " add.s32 %r1, %r1, 1;",
    "add.f32 %f1, %f1, 1.0": " add.f32 %f1, %f1, 0f3F800000;",
    "setp.lt.s32 + selp.b32": " setp.lt.s32 %p2, %r1, 7;\n selp.b32 %r3, %r1, 5, %p2;",
    "rem.s32 %r3, %r1, 7": " rem.s32 %r3, %r1, 7;",
    "div.u32 %r3, %r1, %r2": " div.u32 %r3, %r1, %r2;",
}


def instructions() -> None:
    for name, line in BODIES.items():
        body = "\n".join([line] * (200 // (line.count("\n") + 1)))
        dev = Device()
        mod = dev.load_module(KERNEL.format(body=body), source="<micro>")
        out = dev.malloc(4 * 256 * 64)
        dev.launch(mod, "k", (1, 1, 1), (256, 1, 1), [out])      # compile or load the emulator first
        best, n = float("inf"), 0
        for _ in range(3):
            info = dev.launch(mod, "k", (64, 1, 1), (256, 1, 1), [out])
            best, n = min(best, info.seconds), int(info.block_stats[:, 1].sum())
        print(f"warp instruction, {name:24s} {best / n * 1e9:6.1f} ns  ({n / 1e6:.1f} M in {best:.3f} s)")


if __name__ == "__main__":
    lane_loops()
    instructions()
