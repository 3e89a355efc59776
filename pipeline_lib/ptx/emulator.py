"""The numba SIMT interpreter: executes decoded PTX one warp at a time.

Execution model (documented in docs/emulator.md):

* Blocks run one after another in linear block-id order (x fastest).  Inside
  a block, warps run cooperatively: warp 0 runs until it reaches ``bar.sync``
  or exits, then warp 1, ...; when every warp has arrived or exited, the
  barrier releases and the round starts again from warp 0.  Exited warps count
  as arrived.  A warp arrives at a barrier when it executes ``bar.sync`` with
  any active lane (barriers are warp-granular).
* Control flow uses a SIMT reconvergence stack per warp; the reconvergence
  point of a divergent branch is the immediate post-dominator of its basic
  block (computed in :mod:`pipeline_lib.ptx.decode`).  ``bra.uni`` is treated
  like ``bra``: divergence is detected from the lanes, never assumed away.
* Atomics are applied in warp order, then lane order (lane 0 first), which
  makes every run deterministic.
* Registers hold raw bits in int64 slots, canonicalised per instruction type
  (signed types sign-extended, unsigned and float types zero-extended).

Counting (docs/trace_format.md, "Definitions"): every executed instruction is one warp
instruction; its thread instructions are the lanes that execute it (active
and, for a predicated instruction, guard-true; for a branch, all active lanes).
A memory request is one distinct 128-byte line touched by one global or local
memory instruction (loads, stores, atomics) after coalescing.
"""
import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..intrinsics import (bits_of_f32, bits_of_f64, f32_of_bits, f64_of_bits, lowest_bit, popcount, prefetch, sort8,
                          sort16, sort32)
from . import isa
from .isa import (FK_AND, FK_ATOM_GLOBAL, FK_ATOM_SHARED, FK_BFI, FK_CVT_F2I, FK_CVT_I2F, FK_CVTA, FK_FABS,
                  FK_FADD, FK_FDIV, FK_FMAX, FK_FMIN, FK_FMUL, FK_FNEG, FK_FSQRT, FK_FSUB, FK_IADD, FK_IDIV,
                  FK_IMAD_LO, FK_IMAX, FK_IMIN, FK_IMUL_LO, FK_IMUL_WIDE, FK_INOT, FK_IREM, FK_ISUB, FK_LD_GLOBAL,
                  FK_LD_SHARED, FK_LD_UNIFORM, FK_MOV, FK_MOV_SPECIAL, FK_NONE, FK_OR, FK_PAND, FK_PNOT, FK_POR,
                  FK_PXOR, FK_SELP, FK_SETP_F32, FK_SETP_INT, FK_SHFL, FK_SHL, FK_SHR, FK_ST_GLOBAL, FK_ST_SHARED,
                  FK_XOR, FK_FLOAT, FK_CVT_F2F)
from .fpmath import (add_f32, fma_f32, fma_f64, fmax, fmin, ftz32, mul_f32, round_int_f64,
                     round_pair_f32)

# constants captured as globals by numba
F_OP, F_TYPE, F_TYPE2, F_RND, F_SUB, F_FLAGS = isa.F_OP, isa.F_TYPE, isa.F_TYPE2, isa.F_RND, isa.F_SUB, isa.F_FLAGS
F_GUARD, F_GNEG, F_ND, F_D0, F_NS, F_SK0, F_SV0 = isa.F_GUARD, isa.F_GNEG, isa.F_ND, isa.F_D0, isa.F_NS, isa.F_SK0, isa.F_SV0
F_SPACE, F_ABASE, F_AOFF, F_VEC, F_TARGET, F_RPC = isa.F_SPACE, isa.F_ABASE, isa.F_AOFF, isa.F_VEC, isa.F_TARGET, isa.F_RPC
F_FAST = isa.F_FAST
K_REG, K_IMM, K_SPECIAL, K_NREG = isa.K_REG, isa.K_IMM, isa.K_SPECIAL, isa.K_NREG
TK_U, TK_S, TK_F, TK_P = isa.TK_U, isa.TK_S, isa.TK_F, isa.TK_P
SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM, SP_GENERIC = (
    isa.SP_GLOBAL, isa.SP_SHARED, isa.SP_LOCAL, isa.SP_CONST, isa.SP_PARAM, isa.SP_GENERIC)
SHARED_WINDOW, LOCAL_WINDOW = isa.SHARED_WINDOW, isa.LOCAL_WINDOW
FL_FTZ, FL_SAT = isa.FL_FTZ, isa.FL_SAT
MAX_STACK = isa.MAX_STACK
E_OK, E_OOB, E_MISALIGNED, E_INSTR_LIMIT, E_BAD_OP, E_STACK, E_BAD_SPACE = (
    isa.E_OK, isa.E_OOB, isa.E_MISALIGNED, isa.E_INSTR_LIMIT, isa.E_BAD_OP, isa.E_STACK, isa.E_BAD_SPACE)
(OP_NOP, OP_MOV, OP_CVT, OP_CVTA, OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_FMA, OP_DIV, OP_REM, OP_ABS,
 OP_NEG, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR, OP_NOT, OP_CNOT, OP_SHL, OP_SHR, OP_POPC, OP_CLZ,
 OP_BREV, OP_BFE, OP_BFI, OP_PRMT, OP_SETP, OP_SELP, OP_SLCT, OP_RCP, OP_SQRT, OP_RSQRT, OP_SIN,
 OP_COS, OP_LG2, OP_EX2, OP_COPYSIGN, OP_LD, OP_ST, OP_ATOM, OP_RED, OP_BAR, OP_BRA, OP_RET,
 OP_EXIT, OP_SHFL, OP_VOTE, OP_ACTIVEMASK, OP_MEMBAR, OP_TESTP, OP_TANH) = range(len(isa.OPS))
INT64_MIN = np.int64(-9223372036854775808)
INT64_MAX = np.int64(9223372036854775807)

# block-stat columns
BS_THREAD_INSTRS, BS_WARP_INSTRS, BS_GLOBAL_REQS, BS_LOCAL_REQS, BS_SHARED_INSTRS, BS_SHARED_WAYS, BS_THREADS = range(7)
N_BLOCK_STATS = 7
# warp-stat columns
WS_WARP_INSTRS, WS_THREAD_INSTRS, WS_MEM_REQS = range(3)
N_WARP_STATS = 3


@njit(inline="always", cache=True)
def canon(v, t):
    size = t & 15
    kind = t >> 4
    if size == 8:
        return v
    if kind == TK_P:
        return np.int64(1) if v != 0 else np.int64(0)
    if size == 4:
        if kind == TK_S:
            return np.int64(np.int32(v & 0xFFFFFFFF))
        return v & 0xFFFFFFFF
    if size == 2:
        if kind == TK_S:
            return np.int64(np.int16(v & 0xFFFF))
        return v & 0xFFFF
    if kind == TK_S:
        return np.int64(np.int8(v & 0xFF))
    return v & 0xFF


@njit(inline="always", cache=True)
def ult(a, b):
    """Unsigned 64-bit a < b on int64 bit patterns."""
    return (a ^ INT64_MIN) < (b ^ INT64_MIN)


@njit(cache=True)
def udiv64(a, b):
    return np.int64(np.uint64(a) // np.uint64(b))


@njit(cache=True)
def urem64(a, b):
    return np.int64(np.uint64(a) % np.uint64(b))


@njit(cache=True)
def sdiv(a, b):
    """C-style (truncating) signed division; |INT64_MIN| is handled in uint64."""
    if b == -1:
        return -a  # wraps for INT64_MIN
    ua = np.uint64(a) if a >= 0 else np.uint64(0) - np.uint64(a)
    ub = np.uint64(b) if b >= 0 else np.uint64(0) - np.uint64(b)
    q = np.int64(ua // ub)
    return q if (a < 0) == (b < 0) else -q


@njit(cache=True)
def mulhi_u64(a, b):
    a_lo = a & 0xFFFFFFFF
    a_hi = (a >> 32) & 0xFFFFFFFF
    b_lo = b & 0xFFFFFFFF
    b_hi = (b >> 32) & 0xFFFFFFFF
    lo_lo = np.uint64(a_lo) * np.uint64(b_lo)
    hi_lo = np.uint64(a_hi) * np.uint64(b_lo)
    lo_hi = np.uint64(a_lo) * np.uint64(b_hi)
    hi_hi = np.uint64(a_hi) * np.uint64(b_hi)
    cross = (lo_lo >> np.uint64(32)) + (hi_lo & np.uint64(0xFFFFFFFF)) + lo_hi
    return np.int64(hi_hi + (hi_lo >> np.uint64(32)) + (cross >> np.uint64(32)))


@njit(cache=True)
def mulhi_s64(a, b):
    r = mulhi_u64(a, b)
    if a < 0:
        r -= b
    if b < 0:
        r -= a
    return r


@njit(cache=True)
def int_binop(op, sub, t, a, b):
    size = t & 15
    signed = (t >> 4) == TK_S
    bits = size * 8
    if op == OP_ADD:
        return canon(a + b, t)
    if op == OP_SUB:
        return canon(a - b, t)
    if op == OP_MUL:
        if sub == 0:
            return canon(a * b, t)
        if sub == 2:  # wide: result twice as wide as the operands
            return canon(a * b, t + size)
        if size == 8:
            return mulhi_s64(a, b) if signed else mulhi_u64(a, b)
        return canon((a * b) >> bits, t)
    if op == OP_MIN or op == OP_MAX:
        if size == 8 and not signed:
            lt = ult(a, b)
        else:
            lt = a < b
        if op == OP_MIN:
            return a if lt else b
        return b if lt else a
    if op == OP_AND:
        return a & b
    if op == OP_OR:
        return a | b
    if op == OP_XOR:
        return canon(a ^ b, t)
    if op == OP_SHL:
        if b >= bits or b < 0:
            return np.int64(0)
        return canon(a << b, t)
    if op == OP_SHR:
        if signed:
            if b >= bits or b < 0:
                return np.int64(-1) if a < 0 else np.int64(0)
            return canon(a >> b, t)
        if b >= bits or b < 0:
            return np.int64(0)
        if size == 8:
            return np.int64(np.uint64(a) >> np.uint64(b))
        return canon(a >> b, t)
    if op == OP_DIV or op == OP_REM:
        if b == 0:  # PTX leaves this undefined; hardware returns all ones / a
            return canon(np.int64(-1), t) if op == OP_DIV else a
        if size == 8 and not signed:
            return udiv64(a, b) if op == OP_DIV else urem64(a, b)
        q = sdiv(a, b)
        if op == OP_DIV:
            return canon(q, t)
        return canon(a - q * b, t)
    return np.int64(0)


@njit(cache=True)
def int_cmp(cmp, t, a, b):
    if (t & 15) == 8 and (t >> 4) != TK_S:
        a = a ^ INT64_MIN
        b = b ^ INT64_MIN
    return _compare_ordered(cmp % 6 if cmp < 12 else 0, a, b)


@njit(cache=True)
def float_to_int(x, t, mode):
    """cvt.{rni,rzi,rmi,rpi}.<int>.<float>: round, saturate to the range, NaN -> 0."""
    if x != x:
        return np.int64(0)
    r = round_int_f64(x, mode if mode >= 4 else 5)
    size = t & 15
    bits = size * 8
    if (t >> 4) == TK_S:
        lo = -(2.0 ** (bits - 1))
        hi = 2.0 ** (bits - 1) - 1
        if r <= lo:
            return canon(np.int64(-(1 << (bits - 1))) if bits < 64 else INT64_MIN, t)
        if r >= hi:
            return np.int64((1 << (bits - 1)) - 1) if bits < 64 else np.int64(9223372036854775807)
        return np.int64(r)
    if r <= 0.0:
        return np.int64(0)
    if r >= 2.0 ** bits - 1:
        return canon(np.int64(-1), t)
    if bits == 64 and r >= 9.223372036854775807e18:
        return np.int64(np.uint64(r))
    return np.int64(r)


@njit(cache=True)
def int_sat(v, t_src, t_dst):
    """Clamp an integer value (canonical in t_src) to the range of t_dst."""
    bits = (t_dst & 15) * 8
    if bits == 64:
        return v
    if (t_dst >> 4) == TK_S:
        lo = -(np.int64(1) << (bits - 1))
        hi = (np.int64(1) << (bits - 1)) - 1
    else:
        lo = np.int64(0)
        hi = (np.int64(1) << bits) - 1
    if (t_src & 15) == 8 and (t_src >> 4) != TK_S and v < 0:
        return hi  # a huge unsigned 64-bit value
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@njit(inline="always", cache=True)
def mem_load(m8, m16, m32, m64, idx, size):
    if size == 4:
        return np.int64(m32[idx >> 2])
    if size == 8:
        return m64[idx >> 3]
    if size == 2:
        return np.int64(m16[idx >> 1])
    return np.int64(m8[idx])


@njit(inline="always", cache=True)
def mem_store(m8, m16, m32, m64, idx, size, v):
    if size == 4:
        m32[idx >> 2] = np.uint32(v & 0xFFFFFFFF)
    elif size == 8:
        m64[idx >> 3] = v
    elif size == 2:
        m16[idx >> 1] = np.uint16(v & 0xFFFF)
    else:
        m8[idx] = np.uint8(v & 0xFF)


@njit(cache=True)
def _grow(a, n):
    """``a`` copied into an array of twice its length, or ``n`` if larger."""
    b = np.empty(max(2 * len(a), n), a.dtype)
    b[:len(a)] = a
    return b


@njit(inline="always", cache=True)
def fetch_src(dst, k, v, R, rbase, w, tids, geo, cta, clock):
    """Read one source operand for all 32 lanes into dst (raw int64 bits);
    special registers come from the thread indices ``tids``, the launch
    geometry ``geo`` (see :func:`_interp`) and the block's index ``cta``."""
    if k == K_REG:
        Rv = R[rbase + v * 32:rbase + v * 32 + 32]     # 32-lane views, as fast_alu's
        for l in range(32):
            dst[l] = Rv[l]
    elif k == K_IMM:
        for l in range(32):
            dst[l] = v
    elif k == K_NREG:
        Rv = R[rbase + v * 32:rbase + v * 32 + 32]
        for l in range(32):
            dst[l] = 1 if Rv[l] == 0 else 0
    else:
        for l in range(32):
            tt = w * 32 + l
            if v <= 2:      # %tid.{x,y,z}
                x = tids[v][tt]
            elif v <= 5:    # %ntid
                x = geo[1 + v]
            elif v <= 8:    # %ctaid
                x = cta[v - 6]
            elif v <= 11:   # %nctaid
                x = geo[v - 8]
            elif v == 12:
                x = l
            elif v == 13:
                x = w
            elif v == 14:
                x = (geo[4] * geo[5] * geo[6] + 31) // 32
            elif v == 18:
                x = np.int64(1) << l
            elif v == 19:
                x = (np.int64(2) << l) - 1
            elif v == 20:
                x = (np.int64(1) << l) - 1
            elif v == 21:
                x = (0xFFFFFFFF << l) & 0xFFFFFFFF
            elif v == 22:
                x = (0xFFFFFFFF << (l + 1)) & 0xFFFFFFFF
            elif v == 23 or v == 24:
                x = clock
            elif v == 25:
                x = geo[11]
            elif v == 26:
                x = geo[9]
            else:
                x = 0
            dst[l] = x


@njit(inline="always", cache=True)
def fetch_sources(V, code, pc, n, R, rbase, w, tids, geo, cta, clock):
    """The first ``n`` source operands of instruction ``pc`` into the
    operand rows ``V[0:n]`` (:func:`fetch_src`)."""
    for k in range(n):
        fetch_src(V[k], code[pc, F_SK0 + 2 * k], code[pc, F_SV0 + 2 * k], R, rbase, w, tids, geo, cta, clock)


@njit(inline="always", cache=True)
def count_requests(glob, nreq, bs, ws):
    """Count a fast-path global or shared access's ``nreq`` (distinct lines;
    bank-conflict ways) into the block and warp statistics, as the general
    path's request count does; return the trace record's space."""
    if glob:
        bs[BS_GLOBAL_REQS] += nreq
        ws[WS_MEM_REQS] += nreq
        return SP_GLOBAL
    bs[BS_SHARED_INSTRS] += 1
    bs[BS_SHARED_WAYS] += nreq
    return SP_SHARED


@njit(inline="always", cache=True)
def lane_access(op, aop, t, tsize, vec, code, pc, m8, m16, m32, m64, i, R, rbase, l, va, vb, vc, vd, d0):
    """One lane's load, store or atomic at byte index i of the given memory."""
    tkind = t >> 4
    if op == OP_LD:
        for k2 in range(vec):
            x = mem_load(m8, m16, m32, m64, i + k2 * tsize, tsize)
            R[rbase + code[pc, F_D0 + k2] * 32 + l] = canon(x, t)
    elif op == OP_ST:
        for k2 in range(vec):
            if k2 == 0:
                x = va[l]
            elif k2 == 1:
                x = vb[l]
            elif k2 == 2:
                x = vc[l]
            else:
                x = vd[l]
            mem_store(m8, m16, m32, m64, i + k2 * tsize, tsize, x)
    else:
        old = canon(mem_load(m8, m16, m32, m64, i, tsize), t)
        bval = canon(va[l], t)
        if aop == 3:
            new = bval
        elif aop == 4:
            new = canon(vb[l], t) if old == bval else old
        elif tkind == TK_F:
            if tsize == 4:
                fo = f32_of_bits(old)
                fb = f32_of_bits(bval)
                if aop == 0:
                    fn = np.float32(fo + fb)
                elif aop == 1:
                    fn = fmin(fo, fb)
                else:
                    fn = fmax(fo, fb)
                new = bits_of_f32(np.float32(fn))
            else:
                do = f64_of_bits(old)
                db = f64_of_bits(bval)
                if aop == 0:
                    dn = do + db
                elif aop == 1:
                    dn = fmin(do, db)
                else:
                    dn = fmax(do, db)
                new = bits_of_f64(np.float64(dn))
        elif aop == 8:  # inc: wrap to 0 at >= b
            new = 0 if not ult(old, bval) else canon(old + 1, t)
        elif aop == 9:  # dec
            new = bval if (old == 0 or ult(bval, old)) else canon(old - 1, t)
        elif aop == 0:
            new = int_binop(OP_ADD, 0, t, old, bval)
        elif aop == 1:
            new = int_binop(OP_MIN, 0, t, old, bval)
        elif aop == 2:
            new = int_binop(OP_MAX, 0, t, old, bval)
        elif aop == 5:
            new = old & bval
        elif aop == 6:
            new = old | bval
        else:
            new = old ^ bval
        mem_store(m8, m16, m32, m64, i, tsize, new)
        if op == OP_ATOM:
            R[rbase + d0 * 32 + l] = old


@intrinsic
def fma32(typingctx, x, y, z):
    """x * y + z rounded once (LLVM's fma: the machine's instruction where it
    has one, else the C library's fmaf)."""
    def codegen(context, builder, sig, args):
        f32 = ir.FloatType()
        f = cgutils.get_or_insert_function(builder.module, ir.FunctionType(f32, [f32, f32, f32]), "llvm.fma.f32")
        return builder.call(f, args)
    return types.float32(types.float32, types.float32, types.float32), codegen


@njit(inline="always", cache=True)
def _fma_rn_f32(x, y, z):
    """Fused f32 multiply-add, round to nearest even (fpmath.fma_f32). The
    exact pair rounding is needed only when s = fl64(x*y + z) is inexact and
    lies exactly halfway between two f32 values (then the double rounding may
    go the wrong way)."""
    p = np.float64(x) * np.float64(y)
    zz = np.float64(z)
    s = p + zz
    r = np.float32(s)
    d = s - np.float64(r)
    # s is halfway between r and its neighbour iff s + d is that neighbour
    if d != 0.0 and (np.float64(np.float32(s + d)) == s + d or abs(s) < 1.1754943508222875e-38):
        bb = s - p
        e = (p - (s - bb)) + (zz - bb)
        if e != 0.0:
            return round_pair_f32(s, e, 0)
    return r


@njit(inline="always", cache=True)
def fault(err, kind, b, w, lane, pc, addr, space):
    """Record an error (isa.E_*) with its location for Device._error."""
    err[0] = kind
    err[1] = b
    err[2] = w
    err[3] = lane
    err[4] = pc
    err[5] = addr
    err[6] = space


@njit(inline="always", cache=True)
def allocated(shadow, size, i, n):
    """Whether bytes i and i + n - 1 of a global memory of ``size`` bytes are
    allocated, from its shadow (device._shadow): the 128-byte lines' bytes
    after the byte shadow first, the byte shadow only on a line allocated
    in part."""
    return (shadow[size + (i >> 7)] != 0 and shadow[size + ((i + n - 1) >> 7)] != 0) or (
        shadow[i] != 0 and shadow[i + n - 1] != 0)


@njit(inline="always", cache=True)
def append_line(lines_tmp, n, line):
    """Append a line address to lines_tmp[:n] unless it repeats the last
    one; return the new length (:func:`sort_lines` then orders the list
    and drops the other repeats)."""
    if n == 0 or lines_tmp[n - 1] != line:
        lines_tmp[n] = line
        return n + 1
    return n


@njit(inline="always", cache=True)
def prefetch_lanes(m, mask, Ra, off, shift):
    """Ask for the element ``(off + Ra[l]) >> shift`` of memory view ``m``
    of every active lane before a lane loop reads them, so that a gather's
    misses overlap (the checks and the line list between two loads kept
    the host from running ahead on its own)."""
    active = mask & 0xFFFFFFFF
    while active != 0:
        l = lowest_bit(active)
        active &= active - 1
        prefetch(m, (off + Ra[l]) >> shift)


@njit(inline="always", cache=True)
def sort_lines(lines_tmp, m):
    """Sort the line addresses lines_tmp[:m] (at most 32, in lane order with
    consecutive repeats dropped) and drop the repeats, as an insertion lane
    by lane into a sorted list would; return the count.  Lines already in
    increasing order are left as they are.  Otherwise the first 8, 16 or
    32 slots, the fewest that hold them, padded with the largest int64, go
    through a sorting network on the host's vector registers
    (:func:`~pipeline_lib.intrinsics.sort8`, ``sort16``, ``sort32``) and
    the repeats, now neighbours, are squeezed out.
    An insertion per lane cost a search and a shift, each ended by a
    mispredicted branch (a fifth of `cfd`'s samples, whose gathers touch
    28-32 lines in no order); counting each line's rank over all m, in
    vector compares, then took a quarter of them."""
    i = 1
    while i < m and lines_tmp[i] > lines_tmp[i - 1]:
        i += 1
    if i >= m:
        return m
    w = 8 if m <= 8 else (16 if m <= 16 else 32)     # the smallest network that holds them
    for i in range(m, w):
        lines_tmp[i] = INT64_MAX
    if w == 8:
        sort8(lines_tmp)
    elif w == 16:
        sort16(lines_tmp)
    else:
        sort32(lines_tmp)
    prev = lines_tmp[0]
    n = 1
    for i in range(1, m):    # the last repeat's slot is written and then passed over
        v = lines_tmp[i]
        lines_tmp[n] = v
        n += v != prev
        prev = v
    return n


@njit(inline="always", cache=True)
def add_bank_word(bank_cnt, bank_words, word, ways):
    """Count a 4-byte shared-memory word in its bank (32 banks; equal words
    broadcast); return the bank-conflict degree so far."""
    bk = word & 31
    for k2 in range(bank_cnt[bk]):
        if bank_words[bk, k2] == word:
            return ways
    bank_words[bk, bank_cnt[bk]] = word
    bank_cnt[bk] += 1
    return max(ways, bank_cnt[bk])


@njit(inline="always", cache=True)
def _coalesced(is_ld, glob, size, t, S, R, ab, aoff, od, ka, va_, rbase, m32, m64, base, limit, shadow, lines_tmp,
               bank_cnt, bank_words):
    """:func:`fast_mem` for a full warp whose half-warps each access
    ``size``-byte words at one stride in lane order (a multiple of the size,
    0 included), wherever each half starts.  The full warp over 32
    consecutive words, the most frequent access (two thirds of `cfd`'s and
    three quarters of `lbm`'s global and shared accesses), is done here:
    one bounds, alignment and allocation check for the whole span, and lane
    loops over consecutive words that compile to vector loads and stores.
    The other forms go to :func:`_half_warps`, compiled on its own so that
    the interpreter's loop stays as small as it was with the full warp alone
    (inlined, it made the lane-by-lane path of `spmv` about 7% slower).
    Returns the request count (distinct 128-byte lines for global; the
    bank-conflict degree for shared, as :func:`add_bank_word` counts them,
    lane by lane), or 0 when the access is not of this kind or a check
    fails, for the lane-by-lane path to do it (and report the fault)."""
    Ra = R[ab:ab + 32]               # 32-lane views, as fast_alu's
    h = Ra[1] - Ra[0]                # the stride between lanes of a half-warp
    dev = np.int64(0)
    for l in range(16):
        dev |= (Ra[l] - Ra[0] - l * h) | (Ra[16 + l] - Ra[16] - l * h)
    a0 = Ra[0] + aoff
    a1 = Ra[16] + aoff
    if dev != 0 or h < 0 or h > limit or (a0 | a1 | h) & (size - 1):
        return 0
    if h != size or a1 != a0 + 16 * size:
        if is_ld and glob and h == 0 and a1 == a0:
            # one global word read by every lane (`kmeans`' centroids[c * nf + f]): one line, one check,
            # here rather than through the call, which pushes some sixty words
            i0 = a0 - base
            if i0 < 0 or i0 > limit - size or shadow[limit + (i0 >> 7)] == 0:
                return 0
            v = (np.int64(m32[i0 >> 2]) ^ S) - S if size == 4 else canon(m64[i0 >> 3], t)
            D = R[od:od + 32]
            for l in range(32):
                D[l] = v
            lines_tmp[0] = a0 & ~np.int64(127)
            return 1
        if is_ld and not glob and size == 4 and (h == 0 or (h == 4 and a1 == a0)):
            # a word broadcast to each half-warp, or one row read by both (`matmul`'s inner loop):
            # here rather than through the call, which passes some twenty arguments
            i0 = a0 - base
            i1 = a1 - base
            hspan = 15 * h + 4
            if i0 < 0 or i1 < 0 or i0 > limit - hspan or i1 > limit - hspan:
                return 0
            w0, w1 = i0 >> 2, i1 >> 2
            D = R[od:od + 32]
            if h == 0:
                v0 = (np.int64(m32[w0]) ^ S) - S
                v1 = (np.int64(m32[w1]) ^ S) - S
                for l in range(16):
                    D[l] = v0
                    D[16 + l] = v1
                # two ways if the halves' words differ within one bank (as _half_warps)
                b0, b1 = a0 >> 2, a1 >> 2
                return 2 if (b0 != b1 and ((b0 - b1) & 31) == 0) else 1
            W = m32[w0:w0 + 16]
            for l in range(16):
                x = (np.int64(W[l]) ^ S) - S
                D[l] = x
                D[16 + l] = x
            return 1
        return _half_warps(is_ld, glob, size, t, S, R, od, ka, va_, rbase, m32, m64, base, limit, shadow,
                           lines_tmp, bank_cnt, bank_words, a0, a1, h)
    i0 = a0 - base
    span = 32 * size
    if i0 < 0 or i0 > limit - span:  # (no sum that could overflow)
        return 0
    if glob:
        for ln in range(i0 >> 7, ((i0 + span - 1) >> 7) + 1):
            if shadow[limit + ln] == 0:       # a line allocated in part: the lane path checks each byte
                return 0
        # The next span, which the next warp reads (warps run in turn to each barrier, and block-linear
        # indexing gives warp w + 1 the words after warp w's): asked for now, it arrives while this
        # warp runs on; the host's own prefetcher, with a stream per array and one step per warp, does
        # not run that far ahead.  A hint: past the end it does nothing.
        for k in range(0, span, 64):
            prefetch(m32, (i0 + span + k) >> 2)
    D = R[od:od + 32]
    Vs = R[rbase + va_ * 32:rbase + va_ * 32 + 32]   # a store's value; read only when it is a register
    if size == 4:
        W = m32[(i0 >> 2):(i0 >> 2) + 32]
        if is_ld:
            for l in range(32):
                D[l] = (np.int64(W[l]) ^ S) - S
        elif ka == K_REG:
            for l in range(32):
                W[l] = np.uint32(Vs[l] & 0xFFFFFFFF)
        else:
            for l in range(32):
                W[l] = np.uint32(va_ & 0xFFFFFFFF)
    else:
        W64 = m64[(i0 >> 3):(i0 >> 3) + 32]
        if is_ld:
            for l in range(32):
                D[l] = canon(W64[l], t)
        elif ka == K_REG:
            for l in range(32):
                W64[l] = Vs[l]
        else:
            for l in range(32):
                W64[l] = va_
    if not glob:
        return 1 if size == 4 else 2
    first = a0 & ~np.int64(127)
    n = ((a0 + span - 1 - first) >> 7) + 1
    for k2 in range(n):
        lines_tmp[k2] = first + 128 * k2
    return n


@njit(cache=True, _nrt=False)
def _half_warps(is_ld, glob, size, t, S, R, od, ka, va_, rbase, m32, m64, base, limit, shadow, lines_tmp,
                bank_cnt, bank_words, a0, a1, h):
    """:func:`_coalesced`'s other forms: half-warps that start at ``a0`` and
    ``a1`` and step by ``h`` bytes (a multiple of ``size``, 0 included) --
    the accesses of 16 x 16 thread blocks, whose half-warps are rows (a row
    of a tile, read by both halves or each half its own, or one word of it
    broadcast: `matmul`'s inner loop), and strided accesses (a field of an
    array of records).  One bounds, alignment and allocation check per
    half-warp (per line at strides over a line).  Returns as
    :func:`_coalesced` does."""
    i0 = a0 - base
    i1 = a1 - base
    hspan = 15 * h + size            # bytes a half-warp's accesses span
    if i0 < 0 or i1 < 0 or i0 > limit - hspan or i1 > limit - hspan:
        return 0
    if glob:     # a line allocated in part: the lane path checks each byte (a word never spans two lines)
        for i in (i0, i1):
            if h <= 128:
                for ln in range(i >> 7, ((i + hspan - 1) >> 7) + 1):
                    if shadow[limit + ln] == 0:
                        return 0
            else:
                for l in range(16):
                    if shadow[limit + ((i + l * h) >> 7)] == 0:
                        return 0
    if size == 4 and is_ld:          # the frequent case without the per-lane branches
        for half in range(2):
            w0 = (i0 if half == 0 else i1) >> 2
            Dh = R[od + 16 * half:od + 16 * half + 16]
            if h == 0:
                v = (np.int64(m32[w0]) ^ S) - S
                for l in range(16):
                    Dh[l] = v
            else:
                W = m32[w0:w0 + 15 * (h >> 2) + 1:h >> 2]     # the half's words, a strided view
                for l in range(16):
                    Dh[l] = (np.int64(W[l]) ^ S) - S
    else:            # lane by lane, in lane order, so that of two lanes storing to one word the later wins
        for l in range(32):
            i = (i0 if l < 16 else i1) + (l & 15) * h
            if size == 4:
                if is_ld:
                    R[od + l] = (np.int64(m32[i >> 2]) ^ S) - S
                else:
                    m32[i >> 2] = np.uint32((R[rbase + va_ * 32 + l] if ka == K_REG else va_) & 0xFFFFFFFF)
            elif is_ld:
                R[od + l] = canon(m64[i >> 3], t)
            else:
                m64[i >> 3] = R[rbase + va_ * 32 + l] if ka == K_REG else va_
    n = 0
    if glob:
        for a in (a0, a1):
            if h <= 128:             # the half's lines are consecutive
                for line in range(a & ~np.int64(127), ((a + hspan - 1) & ~np.int64(127)) + 1, 128):
                    n = append_line(lines_tmp, n, line)
            else:                    # a line per lane
                for l in range(16):
                    n = append_line(lines_tmp, n, (a + l * h) & ~np.int64(127))
        return sort_lines(lines_tmp, n)
    if size == 4 and (h == 0 or (h == 4 and a1 == a0)):
        # one word per half: two ways if they differ within a bank; one row read by both halves:
        # 16 consecutive words in 16 banks
        w0, w1 = a0 >> 2, a1 >> 2
        return 2 if (h == 0 and w0 != w1 and ((w0 - w1) & 31) == 0) else 1
    for k2 in range(32):
        bank_cnt[k2] = 0
    # each half's words once (the lane path's second visit of a word changes nothing, and the
    # degree does not depend on the order in which words are counted)
    for l in range(16 if h else 1):
        n = add_bank_word(bank_cnt, bank_words, (a0 + l * h) >> 2, n)
    if a1 != a0:
        for l in range(16 if h else 1):
            n = add_bank_word(bank_cnt, bank_words, (a1 + l * h) >> 2, n)
    return n


@njit(inline="always", cache=True)
def fast_mem(fk, t, mask, R, rbase, od, ka, va_, abase, aoff, m8, m16, m32, m64, base, limit, shadow,
             lines_tmp, bank_cnt, bank_words, err, b, w, pc):
    """Non-vector ld/st to global or shared memory in one pass: address,
    bounds and alignment check, access, and the request count (distinct
    128-byte lines for global, bank-conflict degree for shared).  Returns
    the count, or -1 after filling err[3:7] for a faulting lane."""
    size = t & 15
    is_ld = fk == FK_LD_GLOBAL or fk == FK_LD_SHARED
    glob = fk <= FK_ST_GLOBAL
    S = np.int64(0x80000000) if (t >> 4) == TK_S else np.int64(0)  # sign extension of 32-bit loads
    if mask == 0xFFFFFFFF and abase >= 0 and (size == 4 or size == 8):
        n = _coalesced(is_ld, glob, size, t, S, R, rbase + abase * 32, aoff, od, ka, va_, rbase, m32, m64, base,
                       limit, shadow, lines_tmp, bank_cnt, bank_words)
        if n > 0:
            return n
    n = 0
    D = R[od:od + 32]                            # 32-lane views, as fast_alu's
    Ra = R[rbase + abase * 32:rbase + abase * 32 + 32]
    Vs = R[rbase + va_ * 32:rbase + va_ * 32 + 32]   # read only when the value is a register
    if glob and is_ld and size == 4 and abase >= 0:
        # the gather of 4-byte words (`spmv`'s x[col[j]], `cfd`'s neighbours):
        # the loop below without its tests of size, direction and space
        prefetch_lanes(m32, mask, Ra, aoff - base, 2)
        active = mask & 0xFFFFFFFF
        while active != 0:
            l = lowest_bit(active)
            active &= active - 1
            a = aoff + Ra[l]
            i = a - base
            ok = i >= 0 and i + 4 <= limit and allocated(shadow, limit, i, 4)
            if not ok or a & 3:
                fault(err, E_OOB if not ok else E_MISALIGNED, b, w, l, pc, a, SP_GLOBAL)
                return -1
            D[l] = (np.int64(m32[i >> 2]) ^ S) - S
            n = append_line(lines_tmp, n, a & ~np.int64(127))
        return sort_lines(lines_tmp, n)
    if not glob:
        for k2 in range(32):
            bank_cnt[k2] = 0
    elif abase >= 0:
        prefetch_lanes(m8, mask, Ra, aoff - base, 0)
    active = mask & 0xFFFFFFFF
    while active != 0:               # the active lanes in order, without a test per lane
        l = lowest_bit(active)
        active &= active - 1
        a = aoff
        if abase >= 0:
            a += Ra[l]
        i = a - base
        ok = i >= 0 and i + size <= limit
        if ok and glob:
            ok = allocated(shadow, limit, i, size)
        if not ok or a & (size - 1):  # sizes are powers of two
            fault(err, E_OOB if not ok else E_MISALIGNED, b, w, l, pc, a, SP_GLOBAL if glob else SP_SHARED)
            return -1
        if size == 4:
            if is_ld:
                x = np.int64(m32[i >> 2])
                D[l] = ((x ^ S) - S)
            else:
                m32[i >> 2] = np.uint32((Vs[l] if ka == K_REG else va_) & 0xFFFFFFFF)
        elif is_ld:
            D[l] = canon(mem_load(m8, m16, m32, m64, i, size), t)
        else:
            mem_store(m8, m16, m32, m64, i, size, Vs[l] if ka == K_REG else va_)
        if glob:
            n = append_line(lines_tmp, n, a & ~np.int64(127))
        else:
            n = add_bank_word(bank_cnt, bank_words, a >> 2, n)
    return sort_lines(lines_tmp, n) if glob else n


@njit(inline="always", cache=True)
def merge_f32(D, Tu, SEL):
    """The lanes selected in ``SEL`` (the instruction's lane selects, 0 or
    all ones, filled by :func:`_interp`) take the f32 results whose bits
    are ``Tu`` (zero-extended, as registers hold f32), the others keep their
    value: a branch-free select, so the results can be computed for every
    lane first, without a branch per lane.  The loop runs to len(D) (32 lanes),
    a count the compiler does not know: with the constant 32 it sometimes
    unrolled the loop into 32 tests and branches (`mandelbrot` 0.50-0.63x
    after an unrelated change to the memory path) instead of vectorising it."""
    for l in range(len(D)):
        sel = SEL[l]
        old = D[l]
        D[l] = old ^ ((np.int64(Tu[l]) ^ old) & sel)


@njit(inline="always", cache=True)
def merge_f32_low(D, T, SEL):
    """As :func:`merge_f32`, from results computed on both halves of each
    lane (``T[l]``'s low 32 bits are lane l's f32 result)."""
    for l in range(len(D)):
        sel = SEL[l]
        old = D[l]
        D[l] = old ^ (((T[l] & 0xFFFFFFFF) ^ old) & sel)


@njit(inline="always", cache=True)
def _div_rem_32(div, SEL, D, A, B, M, S):
    """32-bit div (``div``) or rem for the lanes selected in ``SEL``:
    int_binop's division inlined (a call per lane cost lbm's periodic
    boundaries, 18 rem.s32 per thread, a fifth of its interpreter time).
    The quotient takes the operands' sign (C-style truncation, as sdiv), and
    a zero divisor gives all ones (div) or a (rem).  ``M``, ``S``:
    fast_alu's canonicalisation masks.

    The magnitudes' quotient is the host's f64 divide, truncated, with no
    branch per lane, so that the lane loop runs on vector divides where the
    hardware's 32-bit divide took one lane at a time (12% of `lbm`'s
    interpreter samples).  It is exact: both magnitudes are below 2^32, so
    exact in f64, and a quotient that is not an integer lies at least
    1 / |y| below the next one, more than half an f64 ulp of it (that would
    need |y| (q + 1) >= 2^53, where |y| (q + 1) <= |x| + |y| < 2^33); the
    correctly rounded quotient therefore never reaches the next integer."""
    for l in range(32):
        x = ((A[l] & M) ^ S) - S
        y = ((B[l] & M) ^ S) - S
        sx = x >> 63
        sy = y >> 63
        ax = (x ^ sx) - sx
        ay = (y ^ sy) - sy
        sq = sx ^ sy                 # all ones where the quotient is negative
        q = np.int64(np.float64(ax) / (np.float64(ay) if ay != 0 else 1.0))
        q = (q ^ sq) - sq
        r = q if div else x - q * y
        if y == 0:
            r = np.int64(-1) if div else x
        r = ((r & M) ^ S) - S
        old = D[l]
        D[l] = old ^ ((r ^ old) & SEL[l])


@njit(inline="always", cache=True)
def _operand(k, v, R, rbase):
    """An operand's 32 lanes: a view of its registers in the register file,
    or of the row past the warps' registers that holds the immediate in
    every lane (``v`` its offset there, :func:`immediate_rows`; absent
    operands are never read)."""
    o = rbase + v * 32 if k == K_REG else (v if k == K_IMM else 0)
    return R[o:o + 32]


@njit(cache=True)
def immediate_rows(code, base):
    """The code table as the fast ALU paths read it, and the immediates they
    take from the register file: each immediate source operand (of the
    first three) of an ALU fast-path row gets a row of 32 lanes from offset
    ``base`` on, in order, and its value column becomes that row's offset.
    Returns (code, values); the caller puts ``values[i]`` in every lane of
    row i.  Filling a row per instruction cost a store per lane and then a
    failed store-to-load forwarding when the lane loop read the row back in
    vectors (a third of the time of a ``mov`` of an immediate).  Only these
    rows change: the general path and the other fast paths read the
    immediates themselves."""
    code = code.copy()
    values = np.zeros(3 * len(code), np.int64)
    i = 0
    for pc in range(len(code)):
        if FK_NONE < code[pc, F_FAST] < FK_LD_GLOBAL:
            for k in range(3):
                if code[pc, F_SK0 + 2 * k] == K_IMM:
                    values[i] = code[pc, F_SV0 + 2 * k]
                    code[pc, F_SV0 + 2 * k] = base + 32 * i
                    i += 1
    return code, values[:i]


@njit(inline="always", cache=True)
def _compare_ordered(sub, x, y):
    """setp's tests 0-5 (isa.CMP: eq, ne, lt, le, gt, ge; unsigned ones on
    operands already flipped) on two canonical integers, or on two floats
    known not to be NaN."""
    if sub == 0:
        return x == y
    if sub == 1:
        return x != y
    if sub == 2:
        return x < y
    if sub == 3:
        return x <= y
    if sub == 4:
        return x > y
    return x >= y


@njit(inline="always", cache=True)
def _compare(sub, x, y):
    """setp's test ``sub`` (isa.CMP) on two floats: 0-5 ordered (false on a
    NaN operand), 6-11 unordered (true on one: the opposite ordered test
    fails), 12 num, 13 nan.  The general path and the fast path share it."""
    if sub == 1:
        return x != y and x == x and y == y
    if sub < 6:
        return _compare_ordered(sub, x, y)
    if sub == 6:
        return not (x < y or x > y)
    if sub == 7:
        return x != y
    if sub == 8:
        return not (x >= y)
    if sub == 9:
        return not (x > y)
    if sub == 10:
        return not (x <= y)
    if sub == 11:
        return not (x < y)
    if sub == 12:
        return x == x and y == y
    return x != x or y != y


@njit(inline="always", cache=True)
def _fast_select_logic(fk, size, signed, M, S, SEL, D, A, B, C, alias):
    """:func:`fast_alu`'s integer min, max, shr and not, selp, and predicate
    and/or/xor/not: the general path's results (``int_binop`` on canonical
    operands, ``exec_compare_select``, ``write_back``'s canonical form of
    the type) in branch-free lane loops; masked lanes keep their value."""
    if fk == FK_IMIN or fk == FK_IMAX:
        flip = INT64_MIN if (size == 8 and not signed) else np.int64(0)   # u64 compares unsigned
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            x = ((A[l] & M) ^ S) - S
            y = ((B[l] & M) ^ S) - S
            lt = (x ^ flip) < (y ^ flip)
            r = (x if lt else y) if fk == FK_IMIN else (y if lt else x)
            D[l] = old ^ ((r ^ old) & sel)
    elif fk == FK_SHR:
        # shift counts are u32; from the width on, signed gives the sign, unsigned 0
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            x = ((A[l] & M) ^ S) - S
            sh = B[l] & 0xFFFFFFFF
            if size == 8 and not signed:
                r = np.int64(np.uint64(x) >> np.uint64(min(sh, 63)))
                r = r if sh < 64 else np.int64(0)
            else:     # signed (sign-extended) or u32 (below 2^32): an arithmetic shift, capped at 63
                r = x >> min(sh, 63)
            D[l] = old ^ ((r ^ old) & sel)
    elif fk == FK_INOT:
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            D[l] = old ^ (((((~A[l] & M) ^ S) - S) ^ old) & sel)
    elif fk == FK_SELP:
        # both sources loaded and the value chosen (c all ones where the predicate holds): choosing
        # which source to load, a pointer select per lane, kept these loops scalar
        if alias == 2:     # `selp %r1, %r2, %r1, %p`, a running choice (`kmeans`' nearest centre): see fast_alu
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                c = -np.int64(C[l] != 0)
                v = (A[l] & c) | (old & ~c)
                D[l] = old ^ (((((v & M) ^ S) - S) ^ old) & sel)
        elif alias == 1:
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                c = -np.int64(C[l] != 0)
                v = (old & c) | (B[l] & ~c)
                D[l] = old ^ (((((v & M) ^ S) - S) ^ old) & sel)
        else:
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                c = -np.int64(C[l] != 0)
                v = (A[l] & c) | (B[l] & ~c)
                D[l] = old ^ (((((v & M) ^ S) - S) ^ old) & sel)
    else:   # predicates: 0 or 1 in the register file, any non-zero bits true
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            x = np.int64(A[l] != 0)
            if fk == FK_PAND:
                r = x & np.int64(B[l] != 0)
            elif fk == FK_POR:
                r = x | np.int64(B[l] != 0)
            elif fk == FK_PXOR:
                r = x ^ np.int64(B[l] != 0)
            else:
                r = x ^ 1
            D[l] = old ^ ((r ^ old) & sel)


@njit(inline="always", cache=True)
def _not_ieee_lane(div, A, B, l):
    """Whether x86's IEEE answer for lane l of f32 ``div.rn`` (``div``) or
    ``sqrt.rn`` may not be PTX's, from the low 32 bits of its operands: a
    zero divisor, or a root of a value with its sign bit set or of a NaN."""
    return (B[l] & 0x7FFFFFFF) == 0 if div else (A[l] & 0xFFFFFFFF) > 0x7F800000


@njit(inline="always", cache=True)
def fast_alu(fk, op, t, sub, mask, SEL, R, od, ka, va_, kb, vb_, kc, vc_, rbase, Tf, Tu):
    """Execute a fast-path instruction (isa.FK_*; ``op`` its opcode, which
    the forms that call the general path's lane operation pass on) for the
    lanes in mask (``SEL``: the same lanes as 32 selects, 0 or all ones, for
    the branch-free merges; see :func:`_interp`).

    Each operation has its own lane loop on purpose: a shared loop with the
    operation switch inside costs a branch per lane. Operands are chosen
    once as 32-lane views (of the register file, or of the immediate's row,
    :func:`immediate_rows`), canonicalisation is branch-free ((r & M) ^ S) - S, and
    masked lanes keep their old value through a branch-free select, so the
    lane loops are straight-line code.  f32 results are computed for every
    lane into ``Tf`` (``Tu`` its bits) and then merged the same way."""
    # 32-lane views: indices the compiler knows are in range and non-negative, so the
    # lane loops carry no negative-index wrap-around (which kept them scalar and 3x slower)
    D = R[od:od + 32]
    A = _operand(ka, va_, R, rbase)
    B = _operand(kb, vb_, R, rbase)
    C = _operand(kc, vc_, R, rbase)
    # A destination that is also a source is read through D itself in the forms that check
    # ``alias`` (1: it is A, 2: it is B): the loop then has only distinct arrays to tell apart
    # and vectorises, where with a second view of the same registers the compiler's overlap
    # check failed and the scalar loop ran with a branch per lane
    alias = 1 if (ka == K_REG and od == rbase + va_ * 32) else (2 if (kb == K_REG and od == rbase + vb_ * 32) else 0)
    size = t & 15
    signed = (t >> 4) == TK_S
    if fk == FK_MOV and (t >> 4) == TK_F:
        signed = False
    # canonical forms ((x & M) ^ S) - S; 16 bits for mov, setp and selp (mul.wide has its own)
    M = np.int64(-1) if size == 8 else (np.int64(0xFFFF) if size == 2 else np.int64(0xFFFFFFFF))
    S = np.int64(0x80000000) if (signed and size == 4) else (np.int64(0x8000) if (signed and size == 2) else
                                                              np.int64(0))
    if fk <= FK_MOV or fk == FK_SETP_INT:
        if fk == FK_MOV:
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                D[l] = old ^ (((((A[l] & M) ^ S) - S) ^ old) & sel)
        elif fk == FK_IADD:
            if alias == 1:     # `add.s32 %r1, %r1, 1`, loop counters
                for l in range(32):
                    sel = SEL[l]
                    old = D[l]
                    D[l] = old ^ ((((((old + B[l]) & M) ^ S) - S) ^ old) & sel)
            else:
                for l in range(32):
                    sel = SEL[l]
                    old = D[l]
                    D[l] = old ^ ((((((A[l] + B[l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == FK_ISUB:
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                D[l] = old ^ ((((((A[l] - B[l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == FK_IMUL_LO:
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                D[l] = old ^ ((((((A[l] * B[l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == FK_IMUL_WIDE:  # mul.wide of 16- or 32-bit operands: exact in int64, canonical for twice the width
            MW = (np.int64(1) << (8 * size)) - 1
            SW = (np.int64(1) << (8 * size - 1)) if signed else np.int64(0)
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                x = ((A[l] & MW) ^ SW) - SW
                y = ((B[l] & MW) ^ SW) - SW
                D[l] = old ^ ((x * y ^ old) & sel)
        elif fk == FK_IMAD_LO:
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                D[l] = old ^ ((((((A[l] * B[l] + C[l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == FK_SHL:
            nbits = size * 8
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                sh = B[l] & 0xFFFFFFFF
                r = A[l] << min(sh, 63)
                r = r if sh < nbits else np.int64(0)
                D[l] = old ^ (((((r & M) ^ S) - S) ^ old) & sel)
        elif fk == FK_AND:
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                D[l] = old ^ ((((((A[l] & B[l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == FK_OR:
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                D[l] = old ^ ((((((A[l] | B[l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == FK_XOR:
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                D[l] = old ^ ((((((A[l] ^ B[l]) & M) ^ S) - S) ^ old) & sel)
        else:  # setp on integers: canonical operands, unsigned 64-bit by flipping the sign bit
            flip = INT64_MIN if (size == 8 and not signed) else np.int64(0)
            for l in range(32):
                sel = SEL[l]
                old = D[l]
                x = (((A[l] & M) ^ S) - S) ^ flip
                y = (((B[l] & M) ^ S) - S) ^ flip
                D[l] = old ^ ((np.int64(_compare_ordered(sub, x, y)) ^ old) & sel)
        return
    if (fk == FK_IDIV or fk == FK_IREM) and size == 4:
        _div_rem_32(fk == FK_IDIV, SEL, D, A, B, M, S)
        return
    if fk == FK_IDIV or fk == FK_IREM:   # int_binop per lane, as the general path (exec_int, write_back)
        for l in range(32):
            if (mask >> l) & 1:
                D[l] = canon(int_binop(op, sub, t, canon(A[l], t), canon(B[l], t)), t)
        return
    if FK_IMIN <= fk <= FK_INOT:
        _fast_select_logic(fk, size, signed, M, S, SEL, D, A, B, C, alias)
        return
    Af, Bf, Cf = A.view(np.float32), B.view(np.float32), C.view(np.float32)   # a lane's f32 at 2 * l
    if fk == FK_SETP_F32:
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            D[l] = old ^ ((np.int64(_compare(sub, Af[2 * l], Bf[2 * l])) ^ old) & sel)
        return
    # f32 results go to the row of 32 f32 values ``Tf`` first (every lane: no
    # branch per lane, and IEEE arithmetic does not trap), then into the
    # register file zero-extended, masked lanes keeping their value
    if fk == FK_FADD or fk == FK_FSUB or fk == FK_FMUL:
        # on both halves of every lane's register (64 f32 in a row, a contiguous loop that
        # vectorises, where the even halves alone, stride 2, ran as one scalar operation per lane).
        # The merge keeps the low half, whatever the high one held; IEEE arithmetic does not trap,
        # and as registers hold 32-bit values zero- or sign-extended, the high halves are 0 or all
        # ones (a NaN), so the extra operations meet no slow subnormal either
        if fk == FK_FADD:
            for i in range(len(Tf)):
                Tf[i] = Af[i] + Bf[i]
        elif fk == FK_FSUB:
            for i in range(len(Tf)):
                Tf[i] = Af[i] - Bf[i]
        else:
            for i in range(len(Tf)):
                Tf[i] = Af[i] * Bf[i]
        merge_f32_low(D, Tf.view(np.int64), SEL)
        return
    if fk == FK_FDIV or fk == FK_FSQRT:
        # IEEE's quotient and root, on both halves of every lane as FK_FADD (vector divides and
        # roots, where f32_op per lane went through its opcode switch: 5% of `cfd`'s interpreter
        # samples).  They are f32_op's except where PTX's answer is not IEEE's on x86 (a zero
        # divisor: the sign of 0/0's NaN and NaN/0's payload; a negative or NaN root): those lanes,
        # found on the low halves' bits, are redone by f32_op itself
        div = fk == FK_FDIV
        if div:
            for i in range(len(Tf)):     # (a zero divisor would raise: numba's error model is Python's)
                y = Bf[i]
                Tf[i] = Af[i] / (y if y != 0 else np.float32(1.0))
        else:
            for i in range(len(Tf)):
                Tf[i] = np.sqrt(Af[i])
        redo = False
        for l in range(32):
            redo |= _not_ieee_lane(div, A, B, l)
        if redo:
            for l in range(32):
                if _not_ieee_lane(div, A, B, l):
                    x = Af[2 * l]
                    Tf[2 * l] = f32_op(op, 0, 0, x, Bf[2 * l], x)[1]
        merge_f32_low(D, Tf.view(np.int64), SEL)
        return
    if FK_FABS <= fk <= FK_FMAX:   # f32_op per lane, as exec_float
        for l in range(32):
            if (mask >> l) & 1:
                x = Af[2 * l]
                _, r = f32_op(op, 0, 0, x, Bf[2 * l], x)   # unary: B is absent, read and unused
                Tf[l] = r
    else:  # FK_FFMA: the machine's fused multiply-add, correctly rounded as _fma_rn_f32; NaNs through it
        # (in a second pass, so that the first has no branch per lane and vectorises)
        nan = False
        for l in range(32):
            r = fma32(Af[2 * l], Bf[2 * l], Cf[2 * l])
            nan |= r != r
            Tf[l] = r
        if nan:
            for l in range(32):
                if Tf[l] != Tf[l]:
                    Tf[l] = _fma_rn_f32(Af[2 * l], Bf[2 * l], Cf[2 * l])
    merge_f32(D, Tu, SEL)


@njit(inline="always", cache=True)
def fast_misc(fk, code, pc, t, mask, SEL, R, rbase, C, P, addr, lspace, lane_on, err, b, w, Tf, Tu):
    """The fast paths that are neither ALU nor ld/st: a uniform ld.param /
    ld.const, cvta, the common cvt forms and ``bfi`` with an immediate
    position and length (isa.FK_LD_UNIFORM and above).  Returns (rc, nreq,
    rec_space); rc = 2 after a fault."""
    tsize = t & 15
    od = rbase + code[pc, F_D0] * 32
    oa = rbase + code[pc, F_SV0] * 32
    D, A = R[od:od + 32], R[oa:oa + 32]    # 32-lane views, as fast_alu's
    if fk == FK_LD_UNIFORM:  # one load at a fixed address, all lanes
        a = code[pc, F_AOFF]
        m = P if code[pc, F_SPACE] == SP_PARAM else C
        ok = a >= 0 and a + tsize <= len(m[0])
        x = mem_load(m[0], m[1], m[2], m[3], a, tsize) if ok else np.int64(0)
        if (not ok or a & (tsize - 1)) and mask != 0:
            fault(err, E_OOB if not ok else E_MISALIGNED, b, w, 0, pc, a, code[pc, F_SPACE])
            return 2, 0, 0
        x = canon(x, t)
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            D[l] = old ^ ((x ^ old) & sel)
        if mask == 0:
            return 0, 0, 0
        if lane_on:
            for l in range(32):
                addr[l] = a
                lspace[l] = code[pc, F_SPACE]
        return 0, 1, code[pc, F_SPACE]
    if fk == FK_CVTA:  # between generic and a state space
        sp = code[pc, F_SPACE]
        delta = np.int64(0)
        if sp == SP_SHARED:
            delta = SHARED_WINDOW
        elif sp == SP_LOCAL:
            delta = LOCAL_WINDOW
        if code[pc, F_SUB] == 1:
            delta = -delta
        M = np.int64(-1) if tsize == 8 else np.int64(0xFFFFFFFF)
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            D[l] = old ^ ((((A[l] + delta) & M) ^ old) & sel)
    elif fk == FK_CVT_I2F:  # cvt.rn.f32.{s,u}32
        t2 = code[pc, F_TYPE2]
        S2 = np.int64(0x80000000) if (t2 >> 4) == TK_S else np.int64(0)
        for l in range(32):   # every lane, then merged as fast_alu's f32 results
            Tf[l] = np.float32((((A[l] & 0xFFFFFFFF) ^ S2) - S2))
        merge_f32(D, Tu, SEL)
    elif fk == FK_CVT_F2I:  # cvt.rzi.{s,u}32.f32
        Af = A.view(np.float32)
        for l in range(32):
            if (mask >> l) & 1:
                D[l] = canon(float_to_int(np.float64(Af[2 * l]), t, 5), t)
    elif fk == FK_BFI:  # bfi.b{32,64} d, a, b, pos, len: the general path's bit loop as one field mask
        nb = 8 * tsize
        pos = code[pc, F_SV0 + 4] & 0xFF
        width = min(code[pc, F_SV0 + 6] & 0xFF, max(nb - pos, 0))     # the bits that land inside the type
        field = np.int64(0)
        if width > 0:
            field = (np.int64(-1) if width >= 64 else (np.int64(1) << width) - 1) << pos
        M = np.int64(-1) if tsize == 8 else np.int64(0xFFFFFFFF)
        sh = min(pos, 63)
        Bv = R[rbase + code[pc, F_SV0 + 2] * 32:rbase + code[pc, F_SV0 + 2] * 32 + 32]
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            r = ((Bv[l] & M) & ~field) | ((A[l] << sh) & field)
            D[l] = old ^ ((r ^ old) & sel)
    else:  # FK_CVT_I2I: integer widening/narrowing between 32 and 64 bits
        t2 = code[pc, F_TYPE2]
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            D[l] = old ^ ((canon(canon(A[l], t2), t) ^ old) & sel)
    return 0, 0, 0


@njit(inline="always", cache=True)
def exec_control(code, pc, op, mask, amask, w, d, top, spc, srpc, smask, depth, status, err, b):
    """bra, ret/exit and bar.sync: they change the warp's SIMT stack or
    status and write no register.  Returns (rc, next_pc, count_mask);
    next_pc = -3 when the stack has been updated already."""
    if op == OP_BRA:  # a branch counts every active lane
        taken = mask
        nt = amask & ~taken
        if nt == 0:
            return 0, code[pc, F_TARGET], amask
        if taken == 0:
            return 0, pc + 1, amask
        if d + 2 > MAX_STACK:
            fault(err, E_STACK, b, w, 0, pc, 0, 0)
            return 2, pc, amask
        rpc = code[pc, F_RPC]
        spc[w, top] = rpc
        spc[w, d] = pc + 1
        srpc[w, d] = rpc
        smask[w, d] = nt
        spc[w, d + 1] = code[pc, F_TARGET]
        srpc[w, d + 1] = rpc
        smask[w, d + 1] = taken
        depth[w] = d + 2
        return 0, -3, amask
    if op == OP_RET or op == OP_EXIT:
        if mask != 0:
            for k2 in range(d):
                smask[w, k2] &= ~mask
    elif mask != 0:  # OP_BAR
        status[w] = 1
    return 0, pc + 1, mask


@njit(inline="always", cache=True)
def lane_addresses(code, pc, op, mask, R, rbase, G, C, P, gshadow, gbase, smem_size, local_size, addr, lspace, err,
                   b, w):
    """Resolve each active lane's address of a general-path ld/st/atom/red
    into (addr, lspace) and check bounds and alignment.  Returns (rc,
    rec_space): the instruction's space, SP_GENERIC when lanes differ."""
    glen = len(G[0])
    space = code[pc, F_SPACE]
    nbytes = (code[pc, F_TYPE] & 15) * code[pc, F_VEC]
    abase = code[pc, F_ABASE]
    Ra = R[rbase + abase * 32:rbase + abase * 32 + 32]   # a 32-lane view, as fast_alu's
    rec_space = 0
    for l in range(32):
        if (mask >> l) & 1:
            a = code[pc, F_AOFF]
            if abase >= 0:
                a += Ra[l]
            sp = space
            if sp == SP_GENERIC:
                if a >= LOCAL_WINDOW:
                    sp = SP_LOCAL
                    a -= LOCAL_WINDOW
                elif a >= SHARED_WINDOW:
                    sp = SP_SHARED
                    a -= SHARED_WINDOW
                else:
                    sp = SP_GLOBAL
            addr[l] = a
            lspace[l] = sp
            if rec_space == 0:
                rec_space = sp
            elif rec_space != sp:
                rec_space = SP_GENERIC
            ok = True
            if sp == SP_GLOBAL:
                i = a - gbase
                ok = i >= 0 and i + nbytes <= glen and allocated(gshadow, glen, i, nbytes)
            elif sp == SP_SHARED:
                ok = a >= 0 and a + nbytes <= smem_size
            elif sp == SP_LOCAL:
                ok = a >= 0 and a + nbytes <= local_size
            elif sp == SP_CONST:
                ok = a >= 0 and a + nbytes <= len(C[0])
            elif sp == SP_PARAM:
                ok = a >= 0 and a + nbytes <= len(P[0])
            if (op != OP_LD) and (sp == SP_CONST or sp == SP_PARAM):
                ok = False
            if not ok or a & (nbytes - 1):  # sizes are powers of two (vec is 1, 2 or 4)
                fault(err, E_OOB if not ok else E_MISALIGNED, b, w, l, pc, a, sp)
                return 2, rec_space
    return 0, rec_space


@njit(inline="always", cache=True)
def memory_requests(mask, rec_space, addr, lspace, wid, lwords, work, bs, ws):
    """The requests of a general-path memory instruction: distinct 128-byte
    lines (global and local), bank-conflict ways (shared) or distinct
    addresses (constant); counted into the block and warp statistics."""
    lines_tmp, bank_cnt, bank_words = work[2], work[3], work[4]
    nreq = 0
    if rec_space == SP_GLOBAL or rec_space == SP_LOCAL or rec_space == SP_GENERIC:
        for l in range(32):
            if (mask >> l) & 1:
                sp = lspace[l]
                if sp == SP_GLOBAL:
                    line = addr[l] & ~np.int64(127)
                elif sp == SP_LOCAL:
                    line = (LOCAL_WINDOW + (((wid * lwords + (addr[l] >> 2)) * 32 + l) * 4)) & ~np.int64(127)
                else:
                    continue
                nreq = append_line(lines_tmp, nreq, line)
        nreq = sort_lines(lines_tmp, nreq)
        if rec_space == SP_LOCAL:
            bs[BS_LOCAL_REQS] += nreq
        else:
            bs[BS_GLOBAL_REQS] += nreq
        ws[WS_MEM_REQS] += nreq
    elif rec_space == SP_SHARED:
        for k2 in range(32):
            bank_cnt[k2] = 0
        for l in range(32):
            if (mask >> l) & 1:
                nreq = add_bank_word(bank_cnt, bank_words, addr[l] >> 2, nreq)
        bs[BS_SHARED_INSTRS] += 1
        bs[BS_SHARED_WAYS] += nreq
    elif rec_space == SP_CONST:
        for l in range(32):
            if (mask >> l) & 1:
                dup = False
                for k2 in range(nreq):
                    if lines_tmp[k2] == addr[l]:
                        dup = True
                        break
                if not dup:
                    lines_tmp[nreq] = addr[l]
                    nreq += 1
    return nreq


@njit(inline="always", cache=True)
def fast_atom(code, pc, t, mask, shared, R, rbase, V, m8, m16, m32, m64, gbase, limit, gshadow, lines_tmp,
              bank_cnt, bank_words, err, b, w):
    """atom/red on one global or shared word per lane (isa.FK_ATOM_GLOBAL,
    isa.FK_ATOM_SHARED; sources already in ``V``; ``m8`` .. ``m64`` the
    space's memory, ``limit`` its size in bytes, shared memory's for a
    block): what :func:`exec_memory` does for them, the same checks, lane
    order and requests (distinct lines, or bank-conflict ways), without its
    per-lane resolution of the space.  Every active lane's address is
    checked before any lane's access, as :func:`lane_addresses` does, so a
    fault leaves memory as it was.  Returns the requests, -1 after a
    fault."""
    op = code[pc, F_OP]
    tsize = t & 15
    abase = code[pc, F_ABASE]
    aoff = code[pc, F_AOFF]
    base = np.int64(0) if shared else gbase
    Ra = R[rbase + abase * 32:rbase + abase * 32 + 32]
    nreq = 0
    if shared:
        for k2 in range(32):
            bank_cnt[k2] = 0
    mm = mask
    while mm != 0:
        l = lowest_bit(mm)
        mm &= mm - 1
        a = aoff + Ra[l] if abase >= 0 else aoff
        i = a - base
        if shared:
            ok = i >= 0 and i + tsize <= limit
        else:
            ok = i >= 0 and i + tsize <= limit and allocated(gshadow, limit, i, tsize)
        if not ok or a & (tsize - 1):
            fault(err, E_OOB if not ok else E_MISALIGNED, b, w, l, pc, a, SP_SHARED if shared else SP_GLOBAL)
            return -1
        if shared:
            nreq = add_bank_word(bank_cnt, bank_words, a >> 2, nreq)
        else:
            nreq = append_line(lines_tmp, nreq, a & ~np.int64(127))
    if not shared:
        nreq = sort_lines(lines_tmp, nreq)
    mm = mask
    while mm != 0:
        l = lowest_bit(mm)
        mm &= mm - 1
        a = aoff + Ra[l] if abase >= 0 else aoff
        lane_access(op, code[pc, F_SUB], t, tsize, 1, code, pc, m8, m16, m32, m64, a - base, R, rbase, l,
                    V[0], V[1], V[2], V[3], code[pc, F_D0])
    return nreq


@njit(inline="always", cache=True)
def fast_row_ops(fk, code, pc, t, mask, amask, SEL, R, rbase, V, w, tids, geo, cta, clock):
    """The fast paths that compute on the general path's operand rows ``V``
    with its own lane operation, then merge the result into the guarded
    lanes as the other fast paths merge, without the general path's call
    (:func:`exec_general`, which passes every array's descriptor) and its
    per-lane write-back: ``mov`` from a special register
    (isa.FK_MOV_SPECIAL, :func:`fetch_src`), ``shfl.sync`` (isa.FK_SHFL,
    :func:`exec_warp_op` on the first three sources; the fourth, the member
    mask, is not read), and f32 arithmetic and f32-to-f32 ``cvt`` with
    rounding modes, .ftz, .sat or .approx (isa.FK_FLOAT, isa.FK_CVT_F2F,
    :func:`float_lanes`)."""
    if fk == FK_MOV_SPECIAL:
        fetch_src(V[0], K_SPECIAL, code[pc, F_SV0], R, rbase, w, tids, geo, cta, clock)
        for l in range(32):
            V[4][l] = canon(V[0][l], t)
    else:
        fetch_sources(V, code, pc, 3 if fk == FK_SHFL else code[pc, F_NS], R, rbase, w, tids, geo, cta, clock)
        if fk == FK_SHFL:
            exec_warp_op(OP_SHFL, code[pc, F_SUB], mask, amask, V[0], V[1], V[2], V[4], V[5])
        else:
            float_lanes(code, pc, t, mask, V)
    # an f32 result is its register's low half, zero-extended (as write_back writes it)
    M = np.int64(0xFFFFFFFF) if fk >= FK_FLOAT else np.int64(-1)
    for k in range(code[pc, F_ND]):     # shfl's value and predicate; the others' value
        D = R[rbase + code[pc, F_D0 + k] * 32:rbase + code[pc, F_D0 + k] * 32 + 32]
        Vs = V[4 + k]
        for l in range(32):
            sel = SEL[l]
            old = D[l]
            D[l] = old ^ (((Vs[l] & M) ^ old) & sel)


@njit(cache=True, _nrt=False)
def float_lanes(code, pc, t, mask, V):
    """isa.FK_FLOAT and isa.FK_CVT_F2F: the general path's f32 lane
    operation (:func:`exec_float`, or :func:`exec_convert` for ``cvt``) on
    the operand rows, its result in ``V[4]``.  Compiled on its own: the
    transcendentals and roundings would make the interpreter's loop larger
    to compile, and a call passing two arrays costs little beside them."""
    op = code[pc, F_OP]
    va, vr = V[0], V[4]
    vaf, vbf, vcf, vrf = va.view(np.float32), V[1].view(np.float32), V[2].view(np.float32), vr.view(np.float32)
    vad, vrd = va.view(np.float64), vr.view(np.float64)
    if op == OP_CVT:
        exec_convert(code, pc, op, t, mask, va, vaf, vad, vr, vrf, vrd)
    else:
        exec_float(code, pc, op, t, mask, vaf, vbf, vcf, vad, V[1].view(np.float64), V[2].view(np.float64), vr,
                   vrf, vrd)


@njit(inline="always", cache=True)
def exec_memory(code, pc, mask, b, w, wid, rbase, R, V, views, gshadow, work, geo, bs, ws, err):
    """A general-path ld/st/atom/red (vector, generic, local, constant or
    atomic accesses; sources already in ``V``): addresses, the lanes'
    accesses in lane order (so atomics are deterministic), then the
    requests.  Inlined, unlike :func:`exec_general`: it needs some thirty
    arrays, and passing their descriptors on every call cost 12% of the
    emulator's speed on sssp, whose atomics take this path.  Returns (rc,
    nreq, rec_space)."""
    op = code[pc, F_OP]
    t = code[pc, F_TYPE]
    gbase, smem_size, local_size = geo[12], geo[9], geo[10]
    lwords = (local_size + 3) // 4
    addr, lspace = work[0], work[1]
    G, C, P, S, L = views
    rc, rec_space = lane_addresses(code, pc, op, mask, R, rbase, G, C, P, gshadow, gbase, smem_size, local_size,
                                   addr, lspace, err, b, w)
    if rc != 0:
        return rc, 0, 0
    va, vb, vc, vd = V[0], V[1], V[2], V[3]
    tsize = t & 15
    vec = code[pc, F_VEC]
    aop = code[pc, F_SUB]
    d0 = code[pc, F_D0]
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        sp = lspace[l]
        a = addr[l]
        if sp == SP_GLOBAL:
            m = G
            i = a - gbase
        elif sp == SP_SHARED:
            m = S
            i = a
        elif sp == SP_LOCAL:  # words interleaved across the warp's lanes, as hardware does
            m = L
            i = ((w * lwords + (a >> 2)) * 32 + l) * 4 + (a & 3)
        elif sp == SP_CONST:
            m = C
            i = a
        else:
            m = P
            i = a
        lane_access(op, aop, t, tsize, vec, code, pc, m[0], m[1], m[2], m[3], i, R, rbase, l, va, vb, vc, vd, d0)
    return 0, memory_requests(mask, rec_space, addr, lspace, wid, lwords, work, bs, ws), rec_space


@njit(inline="always", cache=True)
def exec_warp_op(op, sub, mask, amask, va, vb, vc, vr, vr2):
    """shfl.sync, vote.sync and activemask: lanes read each other's values."""
    if op == OP_SHFL:
        for l in range(32):
            bval = vb[l] & 31
            cval = vc[l] & 31
            segmask = (vc[l] >> 8) & 31
            max_lane = (l & segmask) | (cval & ~segmask)
            min_lane = l & segmask
            if sub == 0:
                j = l - bval
                pv = j >= max_lane
            elif sub == 1:
                j = l + bval
                pv = j <= max_lane
            elif sub == 2:
                j = l ^ bval
                pv = j <= max_lane
            else:
                j = min_lane | (bval & ~segmask)
                pv = j <= max_lane
            if not pv:
                j = l
            vr[l] = va[j] & 0xFFFFFFFF
            vr2[l] = 1 if pv else 0
    elif op == OP_VOTE:
        ballot = 0
        for l in range(32):
            if (mask >> l) & 1 and va[l] != 0:
                ballot |= np.int64(1) << l
        for l in range(32):
            if sub == 3:
                vr[l] = ballot
            elif sub == 0:
                vr[l] = 1 if ballot == mask else 0
            elif sub == 1:
                vr[l] = 1 if ballot != 0 else 0
            else:
                vr[l] = 1 if (ballot == mask or ballot == 0) else 0
    else:  # OP_ACTIVEMASK
        for l in range(32):
            vr[l] = amask


@njit(inline="always", cache=True)
def exec_compare_select(code, pc, op, t, mask, va, vb, vc, vaf, vbf, vcf, vad, vbd, vr, vr2):
    """mov, setp (with its optional boolean combination), selp and slct."""
    tsize = t & 15
    tkind = t >> 4
    if op == OP_MOV:
        for l in range(32):
            vr[l] = canon(va[l], t) if tkind != TK_F else va[l]
    elif op == OP_SETP:
        cmp = code[pc, F_SUB]
        bop = code[pc, F_TYPE2]
        for l in range(32):
            if (mask >> l) & 1:
                if tkind == TK_F:
                    if tsize == 4:
                        rb = _compare(cmp, np.float64(vaf[2 * l]), np.float64(vbf[2 * l]))
                    else:
                        rb = _compare(cmp, vad[l], vbd[l])
                else:
                    rb = int_cmp(cmp, t, canon(va[l], t), canon(vb[l], t))
                x = 1 if rb else 0
                if bop == 1:
                    vr[l] = x & vc[l]
                    vr2[l] = (1 - x) & vc[l]
                elif bop == 2:
                    vr[l] = x | vc[l]
                    vr2[l] = (1 - x) | vc[l]
                elif bop == 3:
                    vr[l] = x ^ vc[l]
                    vr2[l] = (1 - x) ^ vc[l]
                else:
                    vr[l] = x
                    vr2[l] = 1 - x
    elif op == OP_SELP:
        for l in range(32):
            vr[l] = va[l] if vc[l] != 0 else vb[l]
    else:  # OP_SLCT
        t2 = code[pc, F_TYPE2]
        for l in range(32):
            if (t2 >> 4) == TK_F:
                cnd = vcf[2 * l] >= 0.0
            else:
                cnd = canon(vc[l], t2) >= 0
            vr[l] = va[l] if cnd else vb[l]


@njit(inline="always", cache=True)
def exec_convert(code, pc, op, t, mask, va, vaf, vad, vr, vrf, vrd):
    """cvta (general path) and cvt between any integer and float types, with
    rounding modes, .ftz and .sat."""
    tsize = t & 15
    tkind = t >> 4
    if op == OP_CVTA:
        sp = code[pc, F_SPACE]
        to = code[pc, F_SUB]
        for l in range(32):
            x = va[l]
            if sp == SP_SHARED:
                x = x - SHARED_WINDOW if to == 1 else x + SHARED_WINDOW
            elif sp == SP_LOCAL:
                x = x - LOCAL_WINDOW if to == 1 else x + LOCAL_WINDOW
            vr[l] = canon(x, t)
        return
    t2 = code[pc, F_TYPE2]
    rnd = code[pc, F_RND]
    flags = code[pc, F_FLAGS]
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        if (t2 >> 4) == TK_F:
            xf = np.float64(vaf[2 * l]) if (t2 & 15) == 4 else vad[l]
            if (flags & FL_FTZ) and (t2 & 15) == 4:
                xf = np.float64(ftz32(np.float32(xf)))
            if tkind == TK_F:
                if rnd >= 4:
                    xf = round_int_f64(xf, rnd)
                if flags & FL_SAT:
                    xf = 0.0 if xf != xf else min(max(xf, 0.0), 1.0)
                if tsize == 4:
                    cf = round_pair_f32(xf, 0.0, rnd if rnd < 4 else 0)
                    if flags & FL_FTZ:
                        cf = ftz32(cf)
                    vrf[2 * l] = cf
                else:
                    vrd[l] = xf
            else:
                vr[l] = canon(float_to_int(xf, t, rnd), t)
        else:
            cx_ = canon(va[l], t2)
            if tkind == TK_F:
                if (t2 & 15) == 8 and (t2 >> 4) != TK_S and cx_ < 0:
                    xf = np.float64(np.uint64(cx_))
                else:
                    xf = np.float64(cx_)
                if tsize == 4:
                    vrf[2 * l] = round_pair_f32(xf, 0.0, rnd if rnd < 4 else 0)
                else:
                    vrd[l] = xf
            else:
                if flags & FL_SAT:
                    cx_ = int_sat(cx_, t2, t)
                vr[l] = canon(cx_, t)


@njit(inline="always", cache=True)
def _div_by_zero(x, y):
    """x / 0 as IEEE: a signed infinity, NaN for 0/0 and NaN/0."""
    return np.inf * math.copysign(1.0, x) * math.copysign(1.0, y) if x != 0 and x == x else np.nan


@njit(inline="always", cache=True)
def f32_op(op, rnd, rmode, fx, fy, fz):
    """One lane of an f32 general-path operation on flushed operands.
    Returns (ok, result); ok is False for an opcode without an f32 form."""
    if op == OP_ADD:
        return True, add_f32(fx, fy, rmode)
    if op == OP_SUB:
        return True, add_f32(fx, -fy, rmode)
    if op == OP_MUL:
        return True, mul_f32(fx, fy, rmode)
    if op == OP_FMA or op == OP_MAD:
        return True, fma_f32(fx, fy, fz, rmode)
    if op == OP_DIV:
        if fy == 0:
            return True, np.float32(_div_by_zero(fx, fy))
        if rnd == 0:  # div.approx / div.full: the f32 quotient
            return True, np.float32(fx / fy)
        return True, np.float32(np.float64(fx) / np.float64(fy))
    if op == OP_MIN:
        return True, np.float32(fmin(fx, fy))
    if op == OP_MAX:
        return True, np.float32(fmax(fx, fy))
    if op == OP_ABS:
        return True, np.float32(abs(fx))
    if op == OP_NEG:
        return True, -fx
    if op == OP_RCP:
        return True, np.float32(np.float32(1.0) / fx) if fx != 0 else np.float32(math.copysign(np.inf, fx))
    if op == OP_SQRT:
        return True, np.float32(np.sqrt(fx)) if fx >= 0 else np.float32(np.nan) if fx == fx and fx != 0 else fx
    if op == OP_RSQRT:
        return True, np.float32(1.0 / math.sqrt(np.float64(fx))) if fx > 0 else (
            np.float32(math.copysign(np.inf, fx)) if fx == 0 else np.float32(np.nan))
    # transcendentals: evaluated in f64 and rounded once (on an f32 argument
    # numba would call single-precision libm, up to 1 ulp off)
    if op == OP_SIN:
        return True, np.float32(math.sin(np.float64(fx))) if not math.isinf(fx) else np.float32(np.nan)
    if op == OP_COS:
        return True, np.float32(math.cos(np.float64(fx))) if not math.isinf(fx) else np.float32(np.nan)
    if op == OP_TANH:
        return True, np.float32(math.tanh(np.float64(fx)))
    if op == OP_LG2:
        return True, np.float32(math.log2(np.float64(fx))) if fx > 0 else (
            np.float32(-np.inf) if fx == 0 else np.float32(np.nan))
    if op == OP_EX2:
        fxx = np.float64(fx)
        return True, np.float32(2.0 ** fxx) if (fxx < 1024 or fxx != fxx) else np.float32(np.inf)
    if op == OP_COPYSIGN:
        return True, np.float32(math.copysign(fy, fx))
    return False, np.float32(0.0)


@njit(inline="always", cache=True)
def f64_op(op, rmode, dx, dy, dz):
    """One lane of an f64 general-path operation.  Returns (ok, result)."""
    if op == OP_ADD:
        return True, dx + dy
    if op == OP_SUB:
        return True, dx - dy
    if op == OP_MUL:
        return True, dx * dy
    if op == OP_FMA or op == OP_MAD:
        return True, fma_f64(dx, dy, dz, rmode)
    if op == OP_DIV:
        return True, dx / dy if dy != 0 else _div_by_zero(dx, dy)
    if op == OP_MIN:
        return True, fmin(dx, dy)
    if op == OP_MAX:
        return True, fmax(dx, dy)
    if op == OP_ABS:
        return True, abs(dx)
    if op == OP_NEG:
        return True, -dx
    if op == OP_RCP:
        return True, 1.0 / dx if dx != 0 else math.copysign(np.inf, dx)
    if op == OP_SQRT:
        return True, math.sqrt(dx) if dx >= 0 else (dx if dx == 0 else np.nan)
    if op == OP_RSQRT:
        return True, 1.0 / math.sqrt(dx) if dx > 0 else (math.copysign(np.inf, dx) if dx == 0 else np.nan)
    if op == OP_COPYSIGN:
        return True, math.copysign(dy, dx)
    return False, 0.0


@njit(inline="always", cache=True)
def exec_float(code, pc, op, t, mask, vaf, vbf, vcf, vad, vbd, vcd, vr, vrf, vrd):
    """A general-path f32 or f64 arithmetic instruction, with rounding
    modes, .ftz and .sat.  Returns False for an opcode without a float form."""
    rnd = code[pc, F_RND]
    flags = code[pc, F_FLAGS]
    ftz = (flags & FL_FTZ) != 0
    sat = (flags & FL_SAT) != 0
    rmode = rnd if rnd < 4 else 0
    if (t & 15) == 4:
        for l in range(32):
            if not (mask >> l) & 1:
                continue
            fx = vaf[2 * l]
            fy = vbf[2 * l]
            fz = vcf[2 * l]
            if ftz:
                fx = ftz32(fx)
                fy = ftz32(fy)
                fz = ftz32(fz)
            ok, fr = f32_op(op, rnd, rmode, fx, fy, fz)
            if not ok:
                return False
            if sat:
                fr = np.float32(0.0) if fr != fr else min(max(fr, np.float32(0.0)), np.float32(1.0))
            if ftz:
                fr = ftz32(fr)
            vr[l] = 0
            vrf[2 * l] = fr
        return True
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        ok, dr = f64_op(op, rmode, vad[l], vbd[l], vcd[l])
        if not ok:
            return False
        if sat:
            dr = 0.0 if dr != dr else min(max(dr, 0.0), 1.0)
        vrd[l] = dr
    return True


@njit(inline="always", cache=True)
def bit_op(op, t, x, b, c, d):
    """One lane of popc, clz, brev, bfe, bfi or prmt (x canonical in t)."""
    tsize = t & 15
    nb = tsize * 8
    if op == OP_POPC:
        u = x & 0xFFFFFFFF if tsize == 4 else x
        n = 0
        while u != 0:
            u &= u - 1
            n += 1
        return np.int64(n)
    if op == OP_CLZ:
        n = 0
        for k2 in range(nb - 1, -1, -1):
            if (x >> k2) & 1:
                break
            n += 1
        return np.int64(n)
    if op == OP_BREV:
        r = np.int64(0)
        for k2 in range(nb):
            if (x >> k2) & 1:
                r |= np.int64(1) << (nb - 1 - k2)
        return canon(r, t)
    if op == OP_BFE:
        pos = b & 0xFF
        ln = c & 0xFF
        # PTX ISA bfe: sbit = 0 for unsigned or len 0, else a[min(pos+len-1, msb)]
        sbit = (t >> 4) == TK_S and ln != 0 and ((x >> min(pos + ln - 1, nb - 1)) & 1) == 1
        r = np.int64(0)
        for k2 in range(nb):
            if k2 < ln and pos + k2 <= nb - 1:
                bit = (x >> (pos + k2)) & 1
            else:
                bit = 1 if sbit else 0
            if bit:
                r |= np.int64(1) << k2
        return canon(r, t)
    if op == OP_BFI:
        r = canon(b, t)
        pos = c & 0xFF
        for k2 in range(d & 0xFF):
            if pos + k2 >= nb:
                break
            bit = np.int64(1) << (pos + k2)
            if (x >> k2) & 1:
                r |= bit
            else:
                r &= ~bit
        return canon(r, t)
    # OP_PRMT
    src8 = (x & 0xFFFFFFFF) | ((b & 0xFFFFFFFF) << 32)
    r = np.int64(0)
    for k2 in range(4):
        nib = (c >> (4 * k2)) & 15
        byte = (src8 >> (8 * (nib & 7))) & 0xFF
        if nib & 8:
            byte = 0xFF if (byte & 0x80) else 0
        r |= byte << (8 * k2)
    return r


@njit(inline="always", cache=True)
def exec_int(code, pc, op, t, mask, va, vb, vc, vd, vr):
    """A general-path integer or predicate ALU instruction.  Returns False
    for an opcode without an integer form."""
    tsize = t & 15
    sub = code[pc, F_SUB]
    bits = op == OP_POPC or op == OP_CLZ or op == OP_BREV or op == OP_BFE or op == OP_BFI or op == OP_PRMT
    for l in range(32):
        if not (mask >> l) & 1:
            continue
        x = canon(va[l], t)
        if op == OP_ADD or op == OP_SUB or op == OP_MUL or op == OP_MIN or op == OP_MAX or \
                op == OP_AND or op == OP_OR or op == OP_XOR or op == OP_DIV or op == OP_REM:
            r = int_binop(op, sub, t, x, canon(vb[l], t))
        elif op == OP_SHL or op == OP_SHR:
            r = int_binop(op, sub, t, x, vb[l] & 0xFFFFFFFF)
        elif op == OP_MAD:
            y = canon(vb[l], t)
            if sub == 2:
                r = canon(int_binop(OP_MUL, 2, t, x, y) + canon(vc[l], t + tsize), t + tsize)
            elif sub == 1:
                r = canon(int_binop(OP_MUL, 1, t, x, y) + canon(vc[l], t), t)
            else:
                r = canon(x * y + vc[l], t)
        elif op == OP_NOT:
            r = (x ^ 1) if (t >> 4) == TK_P else canon(~x, t)
        elif op == OP_CNOT:
            r = np.int64(1) if x == 0 else np.int64(0)
        elif op == OP_NEG:
            r = canon(-x, t)
        elif op == OP_ABS:
            r = canon(abs(x), t)
        elif bits:
            r = bit_op(op, t, x, vb[l], vc[l], vd[l])
        else:
            return False
        vr[l] = r
    return True


@njit(inline="always", cache=True)
def write_back(code, pc, op, t, mask, R, rbase, vr, vr2):
    """Write a general-path result (and setp's, shfl's second one) to the
    destination registers of the lanes in mask."""
    if code[pc, F_D0] < 0 or code[pc, F_ND] == 0:
        return
    o = rbase + code[pc, F_D0] * 32
    o2 = rbase + code[pc, F_D0 + 1] * 32
    D, D2 = R[o:o + 32], R[o2:o2 + 32]      # 32-lane views, as fast_alu's
    if op == OP_SETP or op == OP_VOTE and code[pc, F_SUB] != 3:
        for l in range(32):
            if (mask >> l) & 1:
                D[l] = vr[l]
        if code[pc, F_ND] > 1:
            for l in range(32):
                if (mask >> l) & 1:
                    D2[l] = vr2[l]
        return
    tw = t
    if op == OP_MUL and code[pc, F_SUB] == 2 or op == OP_MAD and code[pc, F_SUB] == 2:
        tw = t + (t & 15)
    for l in range(32):
        if (mask >> l) & 1:
            D[l] = canon(vr[l], tw) if (tw >> 4) != TK_F else (
                vr[l] & 0xFFFFFFFF if (tw & 15) == 4 else vr[l])
    if op == OP_SHFL and code[pc, F_ND] > 1:
        for l in range(32):
            if (mask >> l) & 1:
                D2[l] = vr2[l]


@njit(cache=True, _nrt=False)
def exec_general(code, pc, mask, amask, b, w, rbase, R, V, err):
    """An instruction without a fast path that is neither a control nor a
    memory instruction (sources already in ``V``): execute it and write its
    results.  Compiled on its own (not inlined into :func:`_interp`), so the
    interpreter's hot loop stays small and each part compiles and caches
    separately; it takes few arrays because every array argument is passed
    as its whole descriptor.  Returns rc = 2 after a fault, else 0."""
    va, vb, vc, vd, vr, vr2 = V[0], V[1], V[2], V[3], V[4], V[5]
    vaf, vbf, vcf, vrf = va.view(np.float32), vb.view(np.float32), vc.view(np.float32), vr.view(np.float32)
    vad, vbd, vcd, vrd = va.view(np.float64), vb.view(np.float64), vc.view(np.float64), vr.view(np.float64)
    op = code[pc, F_OP]
    t = code[pc, F_TYPE]
    if op == OP_MEMBAR:
        return 0
    if op == OP_SHFL or op == OP_VOTE or op == OP_ACTIVEMASK:
        exec_warp_op(op, code[pc, F_SUB], mask, amask, va, vb, vc, vr, vr2)
    elif op == OP_MOV or op == OP_SETP or op == OP_SELP or op == OP_SLCT:
        exec_compare_select(code, pc, op, t, mask, va, vb, vc, vaf, vbf, vcf, vad, vbd, vr, vr2)
    elif op == OP_CVTA or op == OP_CVT:
        exec_convert(code, pc, op, t, mask, va, vaf, vad, vr, vrf, vrd)
    elif (t >> 4) == TK_F:
        if not exec_float(code, pc, op, t, mask, vaf, vbf, vcf, vad, vbd, vcd, vr, vrf, vrd):
            fault(err, E_BAD_OP, b, w, 0, pc, 0, 0)
            return 2
    elif not exec_int(code, pc, op, t, mask, va, vb, vc, vd, vr):
        fault(err, E_BAD_OP, b, w, 0, pc, 0, 0)
        return 2
    write_back(code, pc, op, t, mask, R, rbase, vr, vr2)
    return 0


@njit(inline="always", cache=True)
def start_block(smem, lmem, nthreads, nw, spc, srpc, smask, depth, status):
    """Every warp at pc 0 with its threads active; shared and local memory
    zeroed.  Registers are not cleared between blocks (PTX leaves them
    undefined; execution stays deterministic)."""
    smem[:] = 0
    lmem[:] = 0
    for w in range(nw):
        depth[w] = 1
        spc[w, 0] = 0
        srpc[w, 0] = -2
        m = 0
        for l in range(32):
            if w * 32 + l < nthreads:
                m |= np.int64(1) << l
        smask[w, 0] = m
        status[w] = 0


@njit(inline="always", cache=True)
def guard_mask(R, gb, gneg):
    """The lanes whose guard predicate (register offset gb, negated when
    gneg = 1) holds."""
    G = R[gb:gb + 32]
    m = 0
    for l in range(len(G)):     # not range(32): unrolled, the 32 tests stayed scalar
        m |= np.int64(G[l] != 0) << l
    return m ^ (0xFFFFFFFF if gneg else 0)


@njit(inline="always", cache=True)
def record(trace, n_rec, n_lines, n_addr, wid, pc, count_mask, rec_space, nreq, lines_tmp, lane_on, addr, lspace,
           lwords):
    """Append one instruction's trace record, its request lines and, with
    ``lane_on``, its executing lanes' addresses.  Returns the new (n_rec,
    n_lines, n_addr)."""
    tr_warp, tr_pc, tr_mask, tr_space, tr_nreq, lines, laddr = trace
    tr_warp[n_rec] = wid
    tr_pc[n_rec] = pc
    tr_mask[n_rec] = np.uint32(count_mask & 0xFFFFFFFF)
    tr_space[n_rec] = rec_space
    tr_nreq[n_rec] = nreq
    if nreq > 0 and (rec_space == SP_GLOBAL or rec_space == SP_LOCAL or rec_space == SP_GENERIC):
        for k2 in range(nreq):
            lines[n_lines + k2] = lines_tmp[k2]
        n_lines += nreq
    if lane_on and rec_space != 0:
        for l in range(32):
            if (count_mask >> l) & 1:
                sp = lspace[l]
                a = addr[l]
                if sp == SP_SHARED:
                    a += SHARED_WINDOW
                elif sp == SP_LOCAL:   # as the lines: interleaved per warp
                    a = LOCAL_WINDOW + ((wid * lwords + (a >> 2)) * 32 + l) * 4 + (a & 3)
                laddr[n_addr] = a
                n_addr += 1
    return n_rec + 1, n_lines, n_addr


@njit(cache=True, _nrt=False)
def _interp(code, geo, flags, mem, R, V, work, tids, warps, trace, blk_stats, warp_stats, err, state):
    """The interpreter proper: blocks in order, warps of a block in turn to
    each barrier, one instruction at a time through the fast paths
    (isa.FK_*), :func:`exec_control` or :func:`exec_general`.  Compiled
    without the runtime's reference counting (every array is allocated by
    :func:`run_blocks`), which would otherwise cost an atomic
    increment/decrement per helper call and lane.

    The arguments are :func:`run_blocks`'s arrays grouped by role: ``geo``
    = (n_regs, gx, gy, gz, bx, by, bz, blk_begin, blk_end, smem_size,
    local_size, dyn_smem, gbase); ``flags`` = (trace_on, rec_limit,
    instr_limit, lane_on); ``mem`` = the global, const, param, shared and
    local memories (bytes) and the global shadow; ``R`` the register file;
    ``V`` the operand rows a, b, c, d and result rows r, r2; ``work`` =
    (addr, lspace, lines_tmp, bank_cnt, bank_words, SEL); ``tids`` =
    thread indices; ``warps`` = (spc, srpc, smask, depth, status), the SIMT
    stacks; ``trace`` = (warp, pc, mask, space, nreq, lines, lane
    addresses).

    Resumable: ``state`` = [next block, resume warp, block started, n_rec,
    n_lines, instr_done, n_addr].  Returns 0 when blocks up to blk_end (or a
    full trace chunk) are done, 1 when the trace buffers must grow before the
    next instruction, 2 on error (``err`` filled).  With ``lane_on`` each
    recorded memory instruction also appends its executing lanes' addresses
    to ``laddr`` (the code table then has no memory fast paths, so every
    access goes through the general path that computes them).
    """
    n_regs, gx, gy, gz, bx, by, bz, blk_begin, blk_end, smem_size, local_size, dyn_smem, gbase = geo
    trace_on, rec_limit, instr_limit, lane_on = flags
    views = (_views(mem[0]), _views(mem[1]), _views(mem[2]), _views(mem[3]), _views(mem[4]))
    G, C, P, S, L = views
    gshadow = mem[5]
    vrf, vru = V[4].view(np.float32), V[4].view(np.uint32)
    addr, lspace, lines_tmp, bank_cnt, bank_words, SEL = work
    # SEL: the lane selects of the fast paths' merges, -((mask >> l) & 1) per lane, filled when the
    # mask changes.  Computed inside each lane loop, the select let LLVM turn
    # ``D[l] = old ^ ((new ^ old) & sel)`` into masked vector stores (vpmaskmovq), slow on AMD Zen
    # processors (half of a `mov`'s time, docs/emulator.md, Speed); read from memory it is opaque to
    # the compiler, and the merges are plain vector arithmetic and stores.
    sel_mask = np.int64(-1)    # the mask SEL was filled for (none yet: masks are 32-bit)
    spc, srpc, smask, depth, status = warps
    nthreads = bx * by * bz
    nw = (nthreads + 31) // 32
    lwords = (local_size + 3) // 4
    cap = len(trace[1])
    lcap = len(trace[5])
    acap = len(trace[6])
    n_rec, n_lines, instr_done, n_addr = state[3], state[4], state[5], state[6]
    b = state[0]
    while b < blk_end:
        cta = (b % gx, (b // gx) % gy, b // (gx * gy))
        if state[2] == 0:
            if trace_on and n_rec >= rec_limit:
                break
            start_block(mem[3], mem[4], nthreads, nw, spc, srpc, smask, depth, status)
            state[2] = 1
            w_first = 0
        else:
            w_first = state[1]
        bs = blk_stats[b - blk_begin]
        bs[BS_THREADS] = nthreads
        live = nw
        while live > 0:
            for w in range(w_first, nw):
                if status[w] != 0:
                    continue
                wid = b * nw + w
                ws = warp_stats[(b - blk_begin) * nw + w]
                rbase = w * n_regs * 32
                # The stack's top (pc, active mask, reconvergence pc) is read
                # again only after a divergent branch, ret/exit, bar.sync or a
                # pop, which alone change more than its pc; pc is carried here.
                # Read at every instruction, the pc stored by the one before
                # began a chain of loads that each step of the next one waited
                # on (7% of `cfd`'s and `spmv`'s interpreter samples).
                reload = True
                d = top = pc = amask = rpc_top = 0
                while True:
                    if reload:
                        d = depth[w]
                        if d == 0:
                            status[w] = 2
                            break
                        top = d - 1
                        pc = spc[w, top]
                        amask = smask[w, top]
                        rpc_top = srpc[w, top]
                        reload = False
                    if pc == rpc_top or amask == 0:
                        depth[w] = d - 1
                        reload = True
                        continue
                    if trace_on and (n_rec >= cap or n_lines + 32 > lcap or (lane_on and n_addr + 32 > acap)):
                        state[0], state[1], state[3], state[4], state[5], state[6] = (
                            b, w, n_rec, n_lines, instr_done, n_addr)
                        return 1
                    mask = amask
                    if code[pc, F_GUARD] >= 0:
                        mask = amask & guard_mask(R, rbase + code[pc, F_GUARD] * 32, code[pc, F_GNEG])
                    instr_done += 1
                    if instr_done > instr_limit:
                        fault(err, E_INSTR_LIMIT, b, w, 0, pc, 0, 0)
                        return 2
                    t = code[pc, F_TYPE]
                    next_pc = pc + 1
                    count_mask = mask
                    rc = 0
                    nreq = 0
                    rec_space = 0
                    fk = code[pc, F_FAST]
                    if mask != sel_mask and fk > FK_NONE:
                        for l in range(32):
                            SEL[l] = -((mask >> l) & 1)
                        sel_mask = mask
                    if FK_LD_GLOBAL <= fk <= FK_ST_GLOBAL:
                        nreq = fast_mem(fk, t, mask, R, rbase, rbase + code[pc, F_D0] * 32, code[pc, F_SK0],
                                        code[pc, F_SV0], code[pc, F_ABASE], code[pc, F_AOFF], G[0], G[1], G[2], G[3],
                                        gbase, len(G[0]), gshadow, lines_tmp, bank_cnt, bank_words, err, b, w, pc)
                        if nreq < 0:
                            return 2
                        if mask != 0:
                            rec_space = count_requests(True, nreq, bs, ws)
                    elif FK_LD_SHARED <= fk <= FK_ST_SHARED:
                        nreq = fast_mem(fk, t, mask, R, rbase, rbase + code[pc, F_D0] * 32, code[pc, F_SK0],
                                        code[pc, F_SV0], code[pc, F_ABASE], code[pc, F_AOFF], S[0], S[1], S[2], S[3],
                                        0, smem_size, gshadow, lines_tmp, bank_cnt, bank_words, err, b, w, pc)
                        if nreq < 0:
                            return 2
                        if mask != 0:
                            rec_space = count_requests(False, nreq, bs, ws)
                    elif fk >= FK_LD_UNIFORM:
                        if fk == FK_ATOM_GLOBAL or fk == FK_ATOM_SHARED:
                            fetch_sources(V, code, pc, code[pc, F_NS], R, rbase, w, tids, geo, cta, ws[WS_WARP_INSTRS])
                            if fk == FK_ATOM_GLOBAL:
                                nreq = fast_atom(code, pc, t, mask, False, R, rbase, V, G[0], G[1], G[2], G[3], gbase,
                                                 len(G[0]), gshadow, lines_tmp, bank_cnt, bank_words, err,
                                                 b, w)
                            else:
                                nreq = fast_atom(code, pc, t, mask, True, R, rbase, V, S[0], S[1], S[2], S[3], gbase,
                                                 smem_size, gshadow, lines_tmp, bank_cnt, bank_words, err,
                                                 b, w)
                            if nreq < 0:
                                return 2
                            if mask != 0:
                                rec_space = count_requests(fk == FK_ATOM_GLOBAL, nreq, bs, ws)
                        elif fk >= FK_SHFL or fk == FK_MOV_SPECIAL:
                            fast_row_ops(fk, code, pc, t, mask, amask, SEL, R, rbase, V, w, tids, geo, cta,
                                         ws[WS_WARP_INSTRS])
                        else:
                            rc, nreq, rec_space = fast_misc(fk, code, pc, t, mask, SEL, R, rbase, C, P, addr,
                                                            lspace, lane_on, err, b, w, vrf, vru)
                    elif fk != FK_NONE:
                        fast_alu(fk, code[pc, F_OP], t, code[pc, F_SUB], mask, SEL, R, rbase + code[pc, F_D0] * 32,
                                 code[pc, F_SK0], code[pc, F_SV0], code[pc, F_SK0 + 2], code[pc, F_SV0 + 2],
                                 code[pc, F_SK0 + 4], code[pc, F_SV0 + 4], rbase, vrf, vru)
                    else:
                        op = code[pc, F_OP]
                        if op == OP_BRA or op == OP_RET or op == OP_EXIT or op == OP_BAR:
                            rc, next_pc, count_mask = exec_control(code, pc, op, mask, amask, w, d, top, spc, srpc,
                                                                   smask, depth, status, err, b)
                            # a uniform branch only moves the top's pc (carried below)
                            reload = op != OP_BRA or next_pc == -3
                        else:
                            fetch_sources(V, code, pc, code[pc, F_NS], R, rbase, w, tids, geo, cta, ws[WS_WARP_INSTRS])
                            if op == OP_LD or op == OP_ST or op == OP_ATOM or op == OP_RED:
                                rc, nreq, rec_space = exec_memory(code, pc, mask, b, w, wid, rbase, R, V, views, gshadow, work,
                                                                  geo, bs, ws, err)
                            else:
                                rc = exec_general(code, pc, mask, amask, b, w, rbase, R, V, err)
                    if rc != 0:
                        return 2
                    nthr = popcount(count_mask)
                    bs[BS_WARP_INSTRS] += 1
                    bs[BS_THREAD_INSTRS] += nthr
                    ws[WS_WARP_INSTRS] += 1
                    ws[WS_THREAD_INSTRS] += nthr
                    if trace_on:
                        n_rec, n_lines, n_addr = record(trace, n_rec, n_lines, n_addr, wid, pc, count_mask,
                                                        rec_space, nreq, lines_tmp, lane_on, addr, lspace, lwords)
                    if next_pc != -3:
                        spc[w, top] = next_pc
                        pc = next_pc
                    if reload and status[w] == 1:    # only bar.sync sets it (and reloads)
                        break
            w_first = 0
            live = 0
            for w in range(nw):
                if status[w] == 1:
                    status[w] = 0
                if status[w] == 0:
                    live += 1
        b += 1
        state[2] = 0
    state[0], state[3], state[4], state[5], state[6] = b, n_rec, n_lines, instr_done, n_addr
    return 0


@njit(inline="always", cache=True)
def _views(m):
    """(u8, u16, u32, i64) views of a byte array."""
    return m, m.view(np.uint16), m.view(np.uint32), m.view(np.int64)


@njit(cache=True)
def _grow_trace(trace, n_rec, n_lines, n_addr, lane_on):
    """The trace buffers with room for the next instruction: the record
    arrays doubled when full, the line and address arrays grown to hold 32
    more entries."""
    tr_warp, tr_pc, tr_mask, tr_space, tr_nreq, lines, laddr = trace
    if n_rec >= len(tr_pc):
        tr_warp, tr_pc, tr_mask = _grow(tr_warp, n_rec + 1), _grow(tr_pc, n_rec + 1), _grow(tr_mask, n_rec + 1)
        tr_space, tr_nreq = _grow(tr_space, n_rec + 1), _grow(tr_nreq, n_rec + 1)
    if n_lines + 32 > len(lines):
        lines = _grow(lines, n_lines + 32)
    if lane_on and n_addr + 32 > len(laddr):
        laddr = _grow(laddr, n_addr + 32)
    return tr_warp, tr_pc, tr_mask, tr_space, tr_nreq, lines, laddr


@njit(cache=True, nogil=True)   # the trace sink encodes the previous chunk meanwhile
def run_blocks(code, n_regs, grid, block, blk_begin, blk_end,
               gmem, gshadow, gbase, cmem, pmem, smem_size, local_size,
               trace_on, rec_limit, instr_limit, instr_done,
               blk_stats, warp_stats, err, dyn_smem, lane_on=False):
    """Run blocks [blk_begin, blk_end) of one launch.

    Returns (next_block, instr_done, n_rec, tr_warp, tr_pc, tr_mask, tr_space,
    tr_nreq, n_lines, lines, n_addr, laddr); ``laddr[:n_addr]`` holds the
    executing lanes' addresses of each recorded memory instruction, in
    record order, with ``lane_on`` (see :func:`_interp`).  Stops early (after a whole block) when the
    trace holds rec_limit records.  On error fills err = [code, block, warp,
    lane, pc, addr, size] and returns.
    """
    bx, by, bz = block[0], block[1], block[2]
    nthreads = bx * by * bz
    nw = (nthreads + 31) // 32
    geo = (np.int64(n_regs), grid[0], grid[1], grid[2], bx, by, bz, np.int64(blk_begin), np.int64(blk_end),
           np.int64(smem_size), np.int64(local_size), np.int64(dyn_smem), np.int64(gbase))
    lwords = (local_size + 3) // 4
    smem = np.zeros(((smem_size + 7) // 8) * 8 + 8, np.uint8)
    lmem = np.zeros(max(8, ((nw * 32 * lwords * 4 + 7) // 8) * 8), np.uint8)
    mem = (gmem, cmem, pmem, smem, lmem, gshadow)
    code, imm = immediate_rows(code, nw * n_regs * 32)
    R = np.zeros((nw * n_regs + len(imm)) * 32, np.int64)
    for i in range(len(imm)):
        R[(nw * n_regs + i) * 32:(nw * n_regs + i + 1) * 32] = imm[i]
    V = np.zeros((6, 32), np.int64)   # operands a, b, c, d and results r, r2
    work = (np.zeros(32, np.int64), np.zeros(32, np.int64), np.zeros(32, np.int64),
            np.zeros(32, np.int64), np.zeros((32, 32), np.int64), np.zeros(32, np.int64))
    tid = np.arange(nw * 32)
    tids = (tid % bx, (tid // bx) % by, tid // (bx * by))
    warps = (np.zeros((nw, MAX_STACK), np.int64), np.zeros((nw, MAX_STACK), np.int64),
             np.zeros((nw, MAX_STACK), np.int64), np.zeros(nw, np.int64),
             np.zeros(nw, np.int64))   # status: 0 run, 1 at barrier, 2 done
    cap = 1 << 16
    trace = (np.zeros(cap, np.int32), np.zeros(cap, np.int32), np.zeros(cap, np.uint32), np.zeros(cap, np.int8),
             np.zeros(cap, np.int16), np.zeros(cap, np.int64), np.zeros(cap if lane_on else 1, np.int64))
    state = np.zeros(8, np.int64)
    state[0] = blk_begin
    state[5] = instr_done
    while _interp(code, geo, (trace_on, rec_limit, instr_limit, lane_on), mem, R, V, work, tids, warps, trace,
                  blk_stats, warp_stats, err, state) == 1:
        trace = _grow_trace(trace, state[3], state[4], state[6], lane_on)
    return (state[0], state[5], state[3], trace[0], trace[1], trace[2], trace[3], trace[4], state[4], trace[5],
            state[6], trace[6])
