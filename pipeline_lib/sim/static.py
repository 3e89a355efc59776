"""The per-instruction static table: what the timing models know of each
instruction of a kernel before it runs.

This is the public interface between a trace's instruction table and the
two timing models that read it, the simulator's engine
(:mod:`pipeline_lib.sim.engine`) and GPUMech (:mod:`pipeline_lib.gpumech`):
one integer row per PC, columns ``P_*`` (kind, compute latency, opcode
class, register counts, global basic block), then the source and the
destination registers.  It is one packed array, not a record type, because
both models read it inside numba-compiled loops.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..ptx import isa

# static instruction kinds (per PC)
K_ALU, K_LOAD, K_STORE, K_ATOM, K_BRANCH, K_BAR, K_EXIT = 0, 1, 2, 3, 4, 5, 6

# Memory spaces of the trace (docs/trace_format.md): the emulator's codes,
# defined once in isa; SP_MIXED is an access whose lanes resolved to several
# spaces, which the timing models send to the caches as a global one.
SP_NONE, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM, SP_MIXED = (
    isa.SP_NONE, isa.SP_GLOBAL, isa.SP_SHARED, isa.SP_LOCAL, isa.SP_CONST, isa.SP_PARAM, isa.SP_MIXED)

# Columns of P[pc, ...]: the register lists follow as two blocks of R
# columns each, -1 padded (sources at P_SRC, destinations at P_SRC + R,
# R = (P.shape[1] - P_SRC) // 2).  Packed into one array because calls
# between compiled functions with more than 30 arguments go through a tuple
# (CPython's call convention), which costs reference counting on every
# array per call.
P_KIND, P_LAT, P_CLS, P_NSRC, P_NDST, P_GBB, P_SRC = range(7)

#: opcode class -> the hardware latency field (``latency.<field>``) it takes
ALU_LATENCY = {"int": "int", "int_mul": "int_mul", "fp32": "fp32", "fp64": "fp64", "sfu": "sfu",
               "warp": "warp", "branch": "branch", "barrier": "barrier", "exit": "int", "misc": "int",
               "load": "int", "store": "int", "atomic": "int"}
#: opcode class -> kind (every other class is K_ALU)
KIND = {"load": K_LOAD, "store": K_STORE, "atomic": K_ATOM, "branch": K_BRANCH, "barrier": K_BAR, "exit": K_EXIT}


class StaticTableError(ValueError):
    """A kernel's instruction table cannot be laid out (names the kernel)."""


def global_bb_ids(instructions: pd.DataFrame) -> tuple[dict, int]:
    """Global basic-block ids used by the basic-block vectors: kernels in name
    order, each kernel's blocks ascending, numbered consecutively.  Returns
    ({kernel: offset}, number of global blocks)."""
    offsets, total = {}, 0
    for k in sorted(instructions["kernel"].unique()):
        offsets[k] = total
        total += int(instructions.loc[instructions["kernel"] == k, "bb"].max()) + 1
    return offsets, total


def kernel_static(instr: pd.DataFrame, hw: dict, bb_offset: int, reg_width: int) -> np.ndarray:
    """The per-PC table of one kernel (rows of ``instructions`` sorted by pc;
    columns ``P_*``, then ``reg_width`` source and ``reg_width`` destination
    registers, -1 padded) on hardware ``hw`` (its ``latency`` fields)."""
    instr = instr.sort_values("pc")
    n = len(instr)
    if n and not np.array_equal(instr["pc"].to_numpy(), np.arange(n)):
        raise StaticTableError(f"kernel {instr['kernel'].iloc[0]}: instructions table has gaps in pc")
    P = np.full((n, P_SRC + 2 * reg_width), -1, np.int64)
    oc = instr["opclass"].to_numpy()
    P[:, P_KIND] = [KIND.get(c, K_ALU) for c in oc]
    P[:, P_LAT] = [hw["latency"][ALU_LATENCY[c]] for c in oc]
    P[:, P_CLS] = [isa.OC[c] for c in oc]
    P[:, P_NSRC] = [len(x) for x in instr["src_regs"]]
    P[:, P_NDST] = [len(x) for x in instr["dst_regs"]]
    P[:, P_GBB] = instr["bb"].to_numpy() + bb_offset
    dst0 = P_SRC + reg_width
    for i, (src, dst) in enumerate(zip(instr["src_regs"], instr["dst_regs"])):
        P[i, P_SRC:P_SRC + len(src)] = src
        P[i, dst0:dst0 + len(dst)] = dst
    return P


def kernel_tables(instr: pd.DataFrame, hw: dict, bb_offsets: dict) -> dict[str, np.ndarray]:
    """:func:`kernel_static` of every kernel, all with one register width."""
    width = max([1] + [len(x) for x in instr["src_regs"]] + [len(x) for x in instr["dst_regs"]])
    return {k: kernel_static(g, hw, bb_offsets[k], width) for k, g in instr.groupby("kernel")}


def memory_kind(kind) -> np.ndarray | bool:
    """Whether instructions of ``kind`` (scalar or array) access memory
    through the load/store unit (loads, stores, atomics)."""
    return (kind == K_LOAD) | (kind == K_STORE) | (kind == K_ATOM)
