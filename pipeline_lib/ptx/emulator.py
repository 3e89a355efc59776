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

Counting (ARCHITECTURE.md section 6): every executed instruction is one warp
instruction; its thread instructions are the lanes that execute it (active
and, for a predicated instruction, guard-true; for a branch, all active lanes).
A memory request is one distinct 128-byte line touched by one global or local
memory instruction (loads, stores, atomics) after coalescing.
"""
import math

import numpy as np
from numba import njit

from . import isa
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
    c = cmp % 6 if cmp < 12 else 0
    if c == 0:
        return a == b
    if c == 1:
        return a != b
    if c == 2:
        return a < b
    if c == 3:
        return a <= b
    if c == 4:
        return a > b
    return a >= b


@njit(cache=True)
def float_cmp(cmp, a, b):
    nan = (a != a) or (b != b)
    if cmp == 12:
        return not nan
    if cmp == 13:
        return nan
    if cmp >= 6:
        if nan:
            return True
        cmp -= 6
    elif nan:
        return False
    if cmp == 0:
        return a == b
    if cmp == 1:
        return a != b
    if cmp == 2:
        return a < b
    if cmp == 3:
        return a <= b
    if cmp == 4:
        return a > b
    return a >= b


@njit(cache=True)
def bits_of_f32(x, scratch):
    scratch[0] = 0
    scratch.view(np.float32)[0] = x
    return scratch[0] & 0xFFFFFFFF


@njit(cache=True)
def f32_of_bits(v, scratch):
    scratch[0] = v
    return scratch.view(np.float32)[0]


@njit(cache=True)
def bits_of_f64(x, scratch):
    scratch.view(np.float64)[0] = x
    return scratch[0]


@njit(cache=True)
def f64_of_bits(v, scratch):
    scratch[0] = v
    return scratch.view(np.float64)[0]


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
def _grow_i64(a, n):
    b = np.empty(max(2 * len(a), n), a.dtype)
    b[:len(a)] = a
    return b


@njit(inline="always", cache=True)
def fetch_src(dst, k, v, R, rbase, w, nw, tid_x, tid_y, tid_z, bx, by, bz, cx, cy, cz, gx, gy, gz,
              clock, dyn_smem, smem_size):
    """Read one source operand for all 32 lanes into dst (raw int64 bits)."""
    if k == K_REG:
        o = rbase + v * 32
        for l in range(32):
            dst[l] = R[o + l]
    elif k == K_IMM:
        for l in range(32):
            dst[l] = v
    elif k == K_NREG:
        o = rbase + v * 32
        for l in range(32):
            dst[l] = 1 if R[o + l] == 0 else 0
    else:
        for l in range(32):
            tt = w * 32 + l
            if v == 0:
                x = tid_x[tt]
            elif v == 1:
                x = tid_y[tt]
            elif v == 2:
                x = tid_z[tt]
            elif v == 3:
                x = bx
            elif v == 4:
                x = by
            elif v == 5:
                x = bz
            elif v == 6:
                x = cx
            elif v == 7:
                x = cy
            elif v == 8:
                x = cz
            elif v == 9:
                x = gx
            elif v == 10:
                x = gy
            elif v == 11:
                x = gz
            elif v == 12:
                x = l
            elif v == 13:
                x = w
            elif v == 14:
                x = nw
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
                x = dyn_smem
            elif v == 26:
                x = smem_size
            else:
                x = 0
            dst[l] = x


@njit(inline="always", cache=True)
def lane_access(op, aop, t, tsize, vec, code, pc, m8, m16, m32, m64, i, R, rbase, l, va, vb, vc, vd, d0, scratch):
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
                fo = f32_of_bits(old, scratch)
                fb = f32_of_bits(bval, scratch)
                if aop == 0:
                    fn = np.float32(fo + fb)
                elif aop == 1:
                    fn = fmin(fo, fb)
                else:
                    fn = fmax(fo, fb)
                new = bits_of_f32(np.float32(fn), scratch)
            else:
                do = f64_of_bits(old, scratch)
                db = f64_of_bits(bval, scratch)
                if aop == 0:
                    dn = do + db
                elif aop == 1:
                    dn = fmin(do, db)
                else:
                    dn = fmax(do, db)
                new = bits_of_f64(dn, scratch)
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


@njit(inline="always", cache=True)
def _src(R, o, k, v, l):
    return R[o + l] if k == K_REG else v


@njit(inline="always", cache=True)
def _src_f32(Rf32, o, k, fimm, l):
    return Rf32[2 * (o + l)] if k == K_REG else fimm


@njit(inline="always", cache=True)
def _canon32_64(x, size, signed):
    if size == 8:
        return x
    if signed:
        return ((x & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000
    return x & 0xFFFFFFFF


@njit(inline="always", cache=True)
def _fma_rn_f32(x, y, z, scratch):
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
def insert_line(lines_tmp, n, line):
    """Insert a line address into the sorted, de-duplicated lines_tmp[:n]; return the new length."""
    pos = n
    for k2 in range(n):
        if lines_tmp[k2] == line:
            return n
        if lines_tmp[k2] > line:
            pos = k2
            break
    for k2 in range(n, pos, -1):
        lines_tmp[k2] = lines_tmp[k2 - 1]
    lines_tmp[pos] = line
    return n + 1


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
def fast_mem(fk, t, mask, R, rbase, od, ka, va_, abase, aoff, m8, m16, m32, m64, base, limit, shadow,
             lines_tmp, bank_cnt, bank_words, err, b, w, pc):
    """Non-vector ld/st to global or shared memory in one pass: address,
    bounds and alignment check, access, and the request count (distinct
    128-byte lines for global, bank-conflict degree for shared).  Returns
    the count, or -1 after filling err[3:7] for a faulting lane."""
    size = t & 15
    is_ld = fk == 17 or fk == 19
    glob = fk <= 18
    S = np.int64(0x80000000) if (t >> 4) == TK_S else np.int64(0)  # sign extension of 32-bit loads
    n = 0
    last = np.int64(-1)
    if not glob:
        for k2 in range(32):
            bank_cnt[k2] = 0
    for l in range(32):
        if (mask >> l) & 1:
            a = aoff
            if abase >= 0:
                a += R[rbase + abase * 32 + l]
            i = a - base
            ok = i >= 0 and i + size <= limit
            if ok and glob:
                ok = shadow[i] != 0 and shadow[i + size - 1] != 0
            if not ok or a & (size - 1):  # sizes are powers of two
                fault(err, E_OOB if not ok else E_MISALIGNED, b, w, l, pc, a, SP_GLOBAL if glob else SP_SHARED)
                return -1
            if size == 4:
                if is_ld:
                    x = np.int64(m32[i >> 2])
                    R[od + l] = ((x ^ S) - S)
                else:
                    m32[i >> 2] = np.uint32((R[rbase + va_ * 32 + l] if ka == K_REG else va_) & 0xFFFFFFFF)
            elif is_ld:
                R[od + l] = canon(mem_load(m8, m16, m32, m64, i, size), t)
            else:
                mem_store(m8, m16, m32, m64, i, size, R[rbase + va_ * 32 + l] if ka == K_REG else va_)
            if glob:
                line = a & ~np.int64(127)
                if line != last:
                    n = insert_line(lines_tmp, n, line)
                    last = line
            else:
                n = add_bank_word(bank_cnt, bank_words, a >> 2, n)
    return n


@njit(inline="always", cache=True)
def _operand(k, v, R, tmp, rbase):
    """(array, offset) holding an operand's 32 lanes: the register file, or
    tmp filled with the immediate (absent operands are never read)."""
    if k == K_IMM:
        for l in range(32):
            tmp[l] = v
        return tmp, 0
    return R, (rbase + v * 32 if k == K_REG else 0)


@njit(inline="always", cache=True)
def fast_alu(fk, t, sub, mask, R, Rf32, od, ka, va_, kb, vb_, kc, vc_, rbase, scratch, ta, tb, tc,
             taf, tbf, tcf):
    """Execute a fast-path instruction (isa.FK_*) for the lanes in mask.

    Each operation has its own lane loop on purpose: a shared loop with the
    operation switch inside costs a branch per lane. Operand arrays are chosen once (register file or a temporary filled with
    the immediate), canonicalisation is branch-free ((r & M) ^ S) - S, and
    masked lanes keep their old value through a branch-free select, so the
    lane loops are straight-line code."""
    A, ao = _operand(ka, va_, R, ta, rbase)
    B, bo = _operand(kb, vb_, R, tb, rbase)
    C, co = _operand(kc, vc_, R, tc, rbase)
    size = t & 15
    signed = (t >> 4) == TK_S
    if fk == 10 and (t >> 4) == TK_F:
        signed = False
    M = np.int64(-1) if size == 8 else np.int64(0xFFFFFFFF)
    S = np.int64(0x80000000) if (signed and size == 4) else np.int64(0)
    if fk <= 10 or fk == 15:
        if fk == 10:
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                R[od + l] = old ^ (((((A[ao + l] & M) ^ S) - S) ^ old) & sel)
        elif fk == 1:
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                R[od + l] = old ^ ((((((A[ao + l] + B[bo + l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == 2:
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                R[od + l] = old ^ ((((((A[ao + l] - B[bo + l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == 3:
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                R[od + l] = old ^ ((((((A[ao + l] * B[bo + l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == 4:  # mul.wide of 32-bit operands: exact in int64
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                x = ((A[ao + l] & 0xFFFFFFFF) ^ S) - S
                y = ((B[bo + l] & 0xFFFFFFFF) ^ S) - S
                R[od + l] = old ^ ((x * y ^ old) & sel)
        elif fk == 5:
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                R[od + l] = old ^ ((((((A[ao + l] * B[bo + l] + C[co + l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == 6:
            nbits = size * 8
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                sh = B[bo + l] & 0xFFFFFFFF
                r = A[ao + l] << min(sh, 63)
                r = r if sh < nbits else np.int64(0)
                R[od + l] = old ^ (((((r & M) ^ S) - S) ^ old) & sel)
        elif fk == 7:
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                R[od + l] = old ^ ((((((A[ao + l] & B[bo + l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == 8:
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                R[od + l] = old ^ ((((((A[ao + l] | B[bo + l]) & M) ^ S) - S) ^ old) & sel)
        elif fk == 9:
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                R[od + l] = old ^ ((((((A[ao + l] ^ B[bo + l]) & M) ^ S) - S) ^ old) & sel)
        else:  # setp on integers: canonical operands, unsigned 64-bit by flipping the sign bit
            flip = INT64_MIN if (size == 8 and not signed) else np.int64(0)
            for l in range(32):
                sel = -((mask >> l) & 1)
                old = R[od + l]
                x = (((A[ao + l] & M) ^ S) - S) ^ flip
                y = (((B[bo + l] & M) ^ S) - S) ^ flip
                if sub == 0:
                    c = x == y
                elif sub == 1:
                    c = x != y
                elif sub == 2:
                    c = x < y
                elif sub == 3:
                    c = x <= y
                elif sub == 4:
                    c = x > y
                else:
                    c = x >= y
                R[od + l] = old ^ ((np.int64(c) ^ old) & sel)
        return
    Af = taf if ka == K_IMM else Rf32
    Bf = tbf if kb == K_IMM else Rf32
    Cf = tcf if kc == K_IMM else Rf32
    if fk == 16:  # setp on f32, ordered comparisons
        for l in range(32):
            sel = -((mask >> l) & 1)
            old = R[od + l]
            x = Af[2 * (ao + l)]
            y = Bf[2 * (bo + l)]
            if sub == 0:
                c = x == y
            elif sub == 1:
                c = x != y and x == x and y == y
            elif sub == 2:
                c = x < y
            elif sub == 3:
                c = x <= y
            elif sub == 4:
                c = x > y
            else:
                c = x >= y
            R[od + l] = old ^ ((np.int64(c) ^ old) & sel)
        return
    full = mask == 0xFFFFFFFF
    if fk == 11:
        for l in range(32):
            if full or (mask >> l) & 1:
                r = Af[2 * (ao + l)] + Bf[2 * (bo + l)]
                R[od + l] = 0  # the destination may be a source: read first
                Rf32[2 * (od + l)] = r
    elif fk == 12:
        for l in range(32):
            if full or (mask >> l) & 1:
                r = Af[2 * (ao + l)] - Bf[2 * (bo + l)]
                R[od + l] = 0  # the destination may be a source: read first
                Rf32[2 * (od + l)] = r
    elif fk == 13:
        for l in range(32):
            if full or (mask >> l) & 1:
                r = Af[2 * (ao + l)] * Bf[2 * (bo + l)]
                R[od + l] = 0  # the destination may be a source: read first
                Rf32[2 * (od + l)] = r
    else:
        for l in range(32):
            if full or (mask >> l) & 1:
                r = _fma_rn_f32(Af[2 * (ao + l)], Bf[2 * (bo + l)], Cf[2 * (co + l)], scratch)
                R[od + l] = 0
                Rf32[2 * (od + l)] = r


@njit(cache=True, _nrt=False)
def _interp(code, n_regs, gx, gy, gz, bx, by, bz, blk_begin, blk_end,
            gmem, g16, g32, g64, gshadow, gbase, cmem, c16, c32, c64, pmem, p16, p32, p64,
            smem, s16, s32, s64, smem_size, lmem, l16, l32, l64, local_size,
            R, Rf32, Rf64, va, vb, vc, vd, vr, vr2, vaf, vbf, vcf, vdf, vrf, vad, vbd, vcd, vrd,
            addr, lspace, scratch, lines_tmp, bank_cnt, bank_words, tid_x, tid_y, tid_z,
            spc, srpc, smask, depth, status, tr_warp, tr_pc, tr_mask, tr_space, tr_nreq, lines,
            trace_on, rec_limit, instr_limit, blk_stats, warp_stats, err, dyn_smem, state, lane_on, laddr):
    """The interpreter proper. Compiled without the runtime's reference
    counting (every array is allocated by :func:`run_blocks`), which would
    otherwise cost an atomic increment/decrement per helper call and lane.

    Resumable: ``state`` = [next block, resume warp, block started, n_rec,
    n_lines, instr_done, n_addr].  Returns 0 when blocks up to blk_end (or a
    full trace chunk) are done, 1 when the trace buffers must grow before the
    next instruction, 2 on error (``err`` filled).  With ``lane_on`` each
    recorded memory instruction also appends its executing lanes' addresses
    to ``laddr`` (the code table then has no memory fast paths, so every
    access goes through the general path that computes them).
    """
    nthreads = bx * by * bz
    nw = (nthreads + 31) // 32
    lwords = (local_size + 3) // 4
    glen = len(gmem)
    cap = len(tr_pc)
    lcap = len(lines)
    acap = len(laddr)
    n_rec = state[3]
    n_lines = state[4]
    instr_done = state[5]
    n_addr = state[6]
    b = state[0]
    while b < blk_end:
        cx = b % gx
        cy = (b // gx) % gy
        cz = b // (gx * gy)
        if state[2] == 0:
            if trace_on and n_rec >= rec_limit:
                break
            # registers are not cleared between blocks (PTX leaves them undefined;
            # execution stays deterministic); shared and local memory are.
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
                while True:
                    d = depth[w]
                    if d == 0:
                        status[w] = 2
                        break
                    top = d - 1
                    pc = spc[w, top]
                    amask = smask[w, top]
                    if pc == srpc[w, top] or amask == 0:
                        depth[w] = d - 1
                        continue
                    if trace_on and (n_rec >= cap or n_lines + 32 > lcap or (lane_on and n_addr + 32 > acap)):
                        state[0] = b
                        state[1] = w
                        state[3] = n_rec
                        state[4] = n_lines
                        state[5] = instr_done
                        state[6] = n_addr
                        return 1
                    op = code[pc, F_OP]
                    mask = amask
                    g = code[pc, F_GUARD]
                    if g >= 0:
                        gb = rbase + g * 32
                        gneg = code[pc, F_GNEG]
                        m = 0
                        for l in range(32):
                            m |= (np.int64(R[gb + l] != 0) ^ gneg) << l
                        mask = amask & m
                    instr_done += 1
                    if instr_done > instr_limit:
                        fault(err, E_INSTR_LIMIT, b, w, 0, pc, 0, 0)
                        return 2
                    next_pc = pc + 1
                    t = code[pc, F_TYPE]
                    tsize = t & 15
                    tkind = t >> 4
                    nreq = 0
                    rec_space = 0
                    count_mask = mask
                    # ---- fetch sources (all 32 lanes; only active lanes are used)
                    fk = code[pc, F_FAST]
                    if 17 <= fk <= 20:
                        if fk <= 18:
                            nreq = fast_mem(fk, t, mask, R, rbase, rbase + code[pc, F_D0] * 32, code[pc, F_SK0],
                                            code[pc, F_SV0], code[pc, F_ABASE], code[pc, F_AOFF], gmem, g16, g32,
                                            g64, gbase, glen, gshadow, lines_tmp, bank_cnt, bank_words, err, b, w, pc)
                            rec_space = SP_GLOBAL
                        else:
                            nreq = fast_mem(fk, t, mask, R, rbase, rbase + code[pc, F_D0] * 32, code[pc, F_SK0],
                                            code[pc, F_SV0], code[pc, F_ABASE], code[pc, F_AOFF], smem, s16, s32,
                                            s64, 0, smem_size, gshadow, lines_tmp, bank_cnt, bank_words, err, b, w, pc)
                            rec_space = SP_SHARED
                        if nreq < 0:
                            return 2
                        if mask == 0:
                            rec_space = 0
                        elif rec_space == SP_GLOBAL:
                            bs[BS_GLOBAL_REQS] += nreq
                            ws[WS_MEM_REQS] += nreq
                        else:
                            bs[BS_SHARED_INSTRS] += 1
                            bs[BS_SHARED_WAYS] += nreq
                    elif fk >= 21:
                        od = rbase + code[pc, F_D0] * 32
                        oa = rbase + code[pc, F_SV0] * 32
                        if fk == 21:  # ld.param / ld.const at a fixed address: one load, all lanes
                            a = code[pc, F_AOFF]
                            if code[pc, F_SPACE] == SP_PARAM:
                                ok = a >= 0 and a + tsize <= len(pmem)
                                x = mem_load(pmem, p16, p32, p64, a, tsize) if ok else np.int64(0)
                            else:
                                ok = a >= 0 and a + tsize <= len(cmem)
                                x = mem_load(cmem, c16, c32, c64, a, tsize) if ok else np.int64(0)
                            if (not ok or a & (tsize - 1)) and mask != 0:
                                fault(err, E_OOB if not ok else E_MISALIGNED, b, w, 0, pc, a, code[pc, F_SPACE])
                                return 2
                            x = canon(x, t)
                            for l in range(32):
                                sel = -((mask >> l) & 1)
                                old = R[od + l]
                                R[od + l] = old ^ ((x ^ old) & sel)
                            if mask != 0:
                                rec_space = code[pc, F_SPACE]
                                nreq = 1
                                if lane_on:
                                    for l in range(32):
                                        addr[l] = a
                                        lspace[l] = rec_space
                        elif fk == 22:  # cvta between generic and a state space
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
                                sel = -((mask >> l) & 1)
                                old = R[od + l]
                                R[od + l] = old ^ ((((R[oa + l] + delta) & M) ^ old) & sel)
                        elif fk == 23:  # cvt.rn.f32.{s,u}32
                            t2 = code[pc, F_TYPE2]
                            S2 = np.int64(0x80000000) if (t2 >> 4) == TK_S else np.int64(0)
                            for l in range(32):
                                if (mask >> l) & 1:
                                    r32 = np.float32((((R[oa + l] & 0xFFFFFFFF) ^ S2) - S2))
                                    R[od + l] = 0
                                    Rf32[2 * (od + l)] = r32
                        elif fk == 24:  # cvt.rzi.{s,u}32.f32
                            for l in range(32):
                                if (mask >> l) & 1:
                                    R[od + l] = canon(float_to_int(np.float64(Rf32[2 * (oa + l)]), t, 5), t)
                        else:  # integer widening/narrowing between 32 and 64 bits
                            t2 = code[pc, F_TYPE2]
                            for l in range(32):
                                sel = -((mask >> l) & 1)
                                old = R[od + l]
                                R[od + l] = old ^ ((canon(canon(R[oa + l], t2), t) ^ old) & sel)
                    elif fk != 0:
                        fast_alu(fk, t, code[pc, F_SUB], mask, R, Rf32, rbase + code[pc, F_D0] * 32,
                                 code[pc, F_SK0], code[pc, F_SV0], code[pc, F_SK0 + 2], code[pc, F_SV0 + 2],
                                 code[pc, F_SK0 + 4], code[pc, F_SV0 + 4], rbase, scratch, vb, vc, vd,
                                 vbf, vcf, vdf)
                    else:
                        ns = code[pc, F_NS]
                        if ns > 0:
                            fetch_src(va, code[pc, F_SK0], code[pc, F_SV0], R, rbase, w, nw, tid_x, tid_y, tid_z,
                                      bx, by, bz, cx, cy, cz, gx, gy, gz, ws[WS_WARP_INSTRS], dyn_smem, smem_size)
                        if ns > 1:
                            fetch_src(vb, code[pc, F_SK0 + 2], code[pc, F_SV0 + 2], R, rbase, w, nw, tid_x, tid_y, tid_z,
                                      bx, by, bz, cx, cy, cz, gx, gy, gz, ws[WS_WARP_INSTRS], dyn_smem, smem_size)
                        if ns > 2:
                            fetch_src(vc, code[pc, F_SK0 + 4], code[pc, F_SV0 + 4], R, rbase, w, nw, tid_x, tid_y, tid_z,
                                      bx, by, bz, cx, cy, cz, gx, gy, gz, ws[WS_WARP_INSTRS], dyn_smem, smem_size)
                        if ns > 3:
                            fetch_src(vd, code[pc, F_SK0 + 6], code[pc, F_SV0 + 6], R, rbase, w, nw, tid_x, tid_y, tid_z,
                                      bx, by, bz, cx, cy, cz, gx, gy, gz, ws[WS_WARP_INSTRS], dyn_smem, smem_size)
                        d0 = code[pc, F_D0]
                        # ---- execute
                        if op == OP_MOV:
                            for l in range(32):
                                vr[l] = canon(va[l], t) if tkind != TK_F else va[l]
                        elif op == OP_BRA:
                            count_mask = amask
                            taken = mask
                            nt = amask & ~taken
                            tgt = code[pc, F_TARGET]
                            if nt == 0:
                                next_pc = tgt
                            elif taken != 0:
                                if d + 2 > MAX_STACK:
                                    fault(err, E_STACK, b, w, 0, pc, 0, 0)
                                    return 2
                                rpc = code[pc, F_RPC]
                                spc[w, top] = rpc
                                spc[w, d] = pc + 1
                                srpc[w, d] = rpc
                                smask[w, d] = nt
                                spc[w, d + 1] = tgt
                                srpc[w, d + 1] = rpc
                                smask[w, d + 1] = taken
                                depth[w] = d + 2
                                next_pc = -3  # stack already updated
                        elif op == OP_RET or op == OP_EXIT:
                            if mask != 0:
                                for k2 in range(d):
                                    smask[w, k2] &= ~mask
                        elif op == OP_BAR:
                            if mask != 0:
                                status[w] = 1
                        elif op == OP_LD or op == OP_ST or op == OP_ATOM or op == OP_RED:
                            space = code[pc, F_SPACE]
                            vec = code[pc, F_VEC]
                            nbytes = tsize * vec
                            abase = code[pc, F_ABASE]
                            aoff = code[pc, F_AOFF]
                            for l in range(32):
                                if (mask >> l) & 1:
                                    a = aoff
                                    if abase >= 0:
                                        a += R[rbase + abase * 32 + l]
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
                                        ok = i >= 0 and i + nbytes <= glen and gshadow[i] != 0 and gshadow[i + nbytes - 1] != 0
                                    elif sp == SP_SHARED:
                                        ok = a >= 0 and a + nbytes <= smem_size
                                    elif sp == SP_LOCAL:
                                        ok = a >= 0 and a + nbytes <= local_size
                                    elif sp == SP_CONST:
                                        ok = a >= 0 and a + nbytes <= len(cmem)
                                    elif sp == SP_PARAM:
                                        ok = a >= 0 and a + nbytes <= len(pmem)
                                    if (op != OP_LD) and (sp == SP_CONST or sp == SP_PARAM):
                                        ok = False
                                    if not ok or a & (nbytes - 1):  # sizes are powers of two (vec is 1, 2 or 4)
                                        fault(err, E_OOB if not ok else E_MISALIGNED, b, w, l, pc, a, sp)
                                        return 2
                            # perform the accesses lane by lane (atomics in lane order)
                            aop = code[pc, F_SUB]
                            for l in range(32):
                                if not (mask >> l) & 1:
                                    continue
                                sp = lspace[l]
                                a = addr[l]
                                if sp == SP_GLOBAL:
                                    lane_access(op, aop, t, tsize, vec, code, pc, gmem, g16, g32, g64, a - gbase,
                                                R, rbase, l, va, vb, vc, vd, d0, scratch)
                                elif sp == SP_SHARED:
                                    lane_access(op, aop, t, tsize, vec, code, pc, smem, s16, s32, s64, a,
                                                R, rbase, l, va, vb, vc, vd, d0, scratch)
                                elif sp == SP_LOCAL:
                                    # interleave words across the warp's lanes, as hardware does
                                    lane_access(op, aop, t, tsize, vec, code, pc, lmem, l16, l32, l64,
                                                ((w * lwords + (a >> 2)) * 32 + l) * 4 + (a & 3),
                                                R, rbase, l, va, vb, vc, vd, d0, scratch)
                                elif sp == SP_CONST:
                                    lane_access(op, aop, t, tsize, vec, code, pc, cmem, c16, c32, c64, a,
                                                R, rbase, l, va, vb, vc, vd, d0, scratch)
                                else:
                                    lane_access(op, aop, t, tsize, vec, code, pc, pmem, p16, p32, p64, a,
                                                R, rbase, l, va, vb, vc, vd, d0, scratch)
                            # requests: distinct 128-byte lines (global/local), bank ways (shared)
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
                                        nreq = insert_line(lines_tmp, nreq, line)
                                if rec_space == SP_LOCAL:
                                    bs[BS_LOCAL_REQS] += nreq
                                else:
                                    bs[BS_GLOBAL_REQS] += nreq
                                ws[WS_MEM_REQS] += nreq
                            elif rec_space == SP_SHARED:
                                for k2 in range(32):
                                    bank_cnt[k2] = 0
                                ways = 0
                                for l in range(32):
                                    if (mask >> l) & 1:
                                        ways = add_bank_word(bank_cnt, bank_words, addr[l] >> 2, ways)
                                nreq = ways
                                bs[BS_SHARED_INSTRS] += 1
                                bs[BS_SHARED_WAYS] += ways
                            elif rec_space == SP_CONST:
                                nreq = 0
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
                            next_pc = pc + 1
                            d0 = -1  # results already written
                        elif op == OP_SHFL:
                            mode = code[pc, F_SUB]
                            for l in range(32):
                                bval = vb[l] & 31
                                cval = vc[l] & 31
                                segmask = (vc[l] >> 8) & 31
                                max_lane = (l & segmask) | (cval & ~segmask)
                                min_lane = l & segmask
                                if mode == 0:
                                    j = l - bval
                                    pv = j >= max_lane
                                elif mode == 1:
                                    j = l + bval
                                    pv = j <= max_lane
                                elif mode == 2:
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
                            mode = code[pc, F_SUB]
                            ballot = 0
                            for l in range(32):
                                if (mask >> l) & 1 and va[l] != 0:
                                    ballot |= np.int64(1) << l
                            for l in range(32):
                                if mode == 3:
                                    vr[l] = ballot
                                elif mode == 0:
                                    vr[l] = 1 if ballot == mask else 0
                                elif mode == 1:
                                    vr[l] = 1 if ballot != 0 else 0
                                else:
                                    vr[l] = 1 if (ballot == mask or ballot == 0) else 0
                        elif op == OP_ACTIVEMASK:
                            for l in range(32):
                                vr[l] = amask
                        elif op == OP_MEMBAR:
                            d0 = -1
                        elif op == OP_SETP:
                            cmp = code[pc, F_SUB]
                            bop = code[pc, F_TYPE2]
                            for l in range(32):
                                if (mask >> l) & 1:
                                    if tkind == TK_F:
                                        if tsize == 4:
                                            rb = float_cmp(cmp, np.float64(vaf[2 * l]), np.float64(vbf[2 * l]))
                                        else:
                                            rb = float_cmp(cmp, vad[l], vbd[l])
                                    else:
                                        rb = int_cmp(cmp, t, canon(va[l], t), canon(vb[l], t))
                                    x = 1 if rb else 0
                                    if bop == 1:
                                        x2 = x & vc[l]
                                        x3 = (1 - x) & vc[l]
                                    elif bop == 2:
                                        x2 = x | vc[l]
                                        x3 = (1 - x) | vc[l]
                                    elif bop == 3:
                                        x2 = x ^ vc[l]
                                        x3 = (1 - x) ^ vc[l]
                                    else:
                                        x2 = x
                                        x3 = 1 - x
                                    vr[l] = x2
                                    vr2[l] = x3
                        elif op == OP_SELP:
                            for l in range(32):
                                vr[l] = va[l] if vc[l] != 0 else vb[l]
                        elif op == OP_SLCT:
                            t2 = code[pc, F_TYPE2]
                            for l in range(32):
                                if (t2 >> 4) == TK_F:
                                    cnd = vcf[2 * l] >= 0.0
                                else:
                                    cnd = canon(vc[l], t2) >= 0
                                vr[l] = va[l] if cnd else vb[l]
                        elif op == OP_CVTA:
                            sp = code[pc, F_SPACE]
                            to = code[pc, F_SUB]
                            for l in range(32):
                                x = va[l]
                                if sp == SP_SHARED:
                                    x = x - SHARED_WINDOW if to == 1 else x + SHARED_WINDOW
                                elif sp == SP_LOCAL:
                                    x = x - LOCAL_WINDOW if to == 1 else x + LOCAL_WINDOW
                                vr[l] = canon(x, t)
                        elif op == OP_CVT:
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
                        elif tkind == TK_F:
                            rnd = code[pc, F_RND]
                            flags = code[pc, F_FLAGS]
                            ftz = (flags & FL_FTZ) != 0
                            sat = (flags & FL_SAT) != 0
                            rmode = rnd if rnd < 4 else 0
                            if tsize == 4:
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
                                    if op == OP_ADD:
                                        fr = add_f32(fx, fy, rmode)
                                    elif op == OP_SUB:
                                        fr = add_f32(fx, -fy, rmode)
                                    elif op == OP_MUL:
                                        fr = mul_f32(fx, fy, rmode)
                                    elif op == OP_FMA or op == OP_MAD:
                                        fr = fma_f32(fx, fy, fz, rmode)
                                    elif op == OP_DIV:
                                        if rnd == 0:
                                            fr = np.float32(fx / fy) if fy != 0 else np.float32(
                                                np.inf * math.copysign(1.0, fx) * math.copysign(1.0, fy) if fx != 0 and fx == fx else np.nan)
                                        else:
                                            fr = np.float32(np.float64(fx) / np.float64(fy)) if fy != 0 else np.float32(
                                                np.inf * math.copysign(1.0, fx) * math.copysign(1.0, fy) if fx != 0 and fx == fx else np.nan)
                                    elif op == OP_MIN:
                                        fr = np.float32(fmin(fx, fy))
                                    elif op == OP_MAX:
                                        fr = np.float32(fmax(fx, fy))
                                    elif op == OP_ABS:
                                        fr = np.float32(abs(fx))
                                    elif op == OP_NEG:
                                        fr = -fx
                                    elif op == OP_RCP:
                                        fr = np.float32(np.float32(1.0) / fx) if fx != 0 else np.float32(math.copysign(np.inf, fx))
                                    elif op == OP_SQRT:
                                        fr = np.float32(np.sqrt(fx)) if fx >= 0 else np.float32(np.nan) if fx == fx and fx != 0 else fx
                                    elif op == OP_RSQRT:
                                        fr = np.float32(1.0 / math.sqrt(np.float64(fx))) if fx > 0 else (
                                            np.float32(math.copysign(np.inf, fx)) if fx == 0 else np.float32(np.nan))
                                    # transcendentals: evaluated in f64 and rounded once (on an f32 argument
                                    # numba would call single-precision libm, up to 1 ulp off)
                                    elif op == OP_SIN:
                                        fr = np.float32(math.sin(np.float64(fx))) if not math.isinf(fx) else np.float32(np.nan)
                                    elif op == OP_COS:
                                        fr = np.float32(math.cos(np.float64(fx))) if not math.isinf(fx) else np.float32(np.nan)
                                    elif op == OP_TANH:
                                        fr = np.float32(math.tanh(np.float64(fx)))
                                    elif op == OP_LG2:
                                        fr = np.float32(math.log2(np.float64(fx))) if fx > 0 else (
                                            np.float32(-np.inf) if fx == 0 else np.float32(np.nan))
                                    elif op == OP_EX2:
                                        fxx = np.float64(fx)
                                        fr = np.float32(2.0 ** fxx) if (fxx < 1024 or fxx != fxx) else np.float32(np.inf)
                                    elif op == OP_COPYSIGN:
                                        fr = np.float32(math.copysign(fy, fx))
                                    else:
                                        fault(err, E_BAD_OP, b, w, 0, pc, 0, 0)
                                        return 2
                                    if sat:
                                        fr = np.float32(0.0) if fr != fr else min(max(fr, np.float32(0.0)), np.float32(1.0))
                                    if ftz:
                                        fr = ftz32(fr)
                                    vr[l] = 0
                                    vrf[2 * l] = fr
                            else:
                                for l in range(32):
                                    if not (mask >> l) & 1:
                                        continue
                                    dx = vad[l]
                                    dy = vbd[l]
                                    dz = vcd[l]
                                    if op == OP_ADD:
                                        dr = dx + dy
                                    elif op == OP_SUB:
                                        dr = dx - dy
                                    elif op == OP_MUL:
                                        dr = dx * dy
                                    elif op == OP_FMA or op == OP_MAD:
                                        dr = fma_f64(dx, dy, dz, rmode)
                                    elif op == OP_DIV:
                                        dr = dx / dy if dy != 0 else (math.copysign(np.inf, dx) * math.copysign(1.0, dy) if dx != 0 and dx == dx else np.nan)
                                    elif op == OP_MIN:
                                        dr = fmin(dx, dy)
                                    elif op == OP_MAX:
                                        dr = fmax(dx, dy)
                                    elif op == OP_ABS:
                                        dr = abs(dx)
                                    elif op == OP_NEG:
                                        dr = -dx
                                    elif op == OP_RCP:
                                        dr = 1.0 / dx if dx != 0 else math.copysign(np.inf, dx)
                                    elif op == OP_SQRT:
                                        dr = math.sqrt(dx) if dx >= 0 else (dx if dx == 0 else np.nan)
                                    elif op == OP_RSQRT:
                                        dr = 1.0 / math.sqrt(dx) if dx > 0 else (math.copysign(np.inf, dx) if dx == 0 else np.nan)
                                    elif op == OP_COPYSIGN:
                                        dr = math.copysign(dy, dx)
                                    else:
                                        fault(err, E_BAD_OP, b, w, 0, pc, 0, 0)
                                        return 2
                                    if sat:
                                        dr = 0.0 if dr != dr else min(max(dr, 0.0), 1.0)
                                    vrd[l] = dr
                        else:
                            # integer and predicate ALU
                            sub = code[pc, F_SUB]
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
                                    r = (x ^ 1) if tkind == TK_P else canon(~x, t)
                                elif op == OP_CNOT:
                                    r = np.int64(1) if x == 0 else np.int64(0)
                                elif op == OP_NEG:
                                    r = canon(-x, t)
                                elif op == OP_ABS:
                                    r = canon(abs(x), t)
                                elif op == OP_POPC:
                                    u = x & 0xFFFFFFFF if tsize == 4 else x
                                    c = 0
                                    while u != 0:
                                        u &= u - 1
                                        c += 1
                                    r = np.int64(c)
                                elif op == OP_CLZ:
                                    nb = tsize * 8
                                    c = 0
                                    for k2 in range(nb - 1, -1, -1):
                                        if (x >> k2) & 1:
                                            break
                                        c += 1
                                    r = np.int64(c)
                                elif op == OP_BREV:
                                    nb = tsize * 8
                                    r = np.int64(0)
                                    for k2 in range(nb):
                                        if (x >> k2) & 1:
                                            r |= np.int64(1) << (nb - 1 - k2)
                                    r = canon(r, t)
                                elif op == OP_BFE:
                                    nb = tsize * 8
                                    pos = vb[l] & 0xFF
                                    ln = vc[l] & 0xFF
                                    # PTX ISA bfe: sbit = 0 for unsigned or len 0, else a[min(pos+len-1, msb)]
                                    if tkind == TK_S and ln != 0:
                                        sbit = ((x >> min(pos + ln - 1, nb - 1)) & 1) == 1
                                    else:
                                        sbit = False
                                    r = np.int64(0)
                                    for k2 in range(nb):
                                        if k2 < ln and pos + k2 <= nb - 1:
                                            bit = (x >> (pos + k2)) & 1
                                        else:
                                            bit = 1 if sbit else 0
                                        if bit:
                                            r |= np.int64(1) << k2
                                    r = canon(r, t)
                                elif op == OP_BFI:
                                    nb = tsize * 8
                                    y = canon(vb[l], t)
                                    pos = vc[l] & 0xFF
                                    ln = vd[l] & 0xFF
                                    r = y
                                    for k2 in range(ln):
                                        if pos + k2 >= nb:
                                            break
                                        bit = np.int64(1) << (pos + k2)
                                        if (x >> k2) & 1:
                                            r |= bit
                                        else:
                                            r &= ~bit
                                    r = canon(r, t)
                                elif op == OP_PRMT:
                                    y = vb[l] & 0xFFFFFFFF
                                    sel = vc[l]
                                    src8 = (x & 0xFFFFFFFF) | (y << 32)
                                    r = np.int64(0)
                                    for k2 in range(4):
                                        nib = (sel >> (4 * k2)) & 15
                                        byte = (src8 >> (8 * (nib & 7))) & 0xFF
                                        if nib & 8:
                                            byte = 0xFF if (byte & 0x80) else 0
                                        r |= byte << (8 * k2)
                                else:
                                    fault(err, E_BAD_OP, b, w, 0, pc, 0, 0)
                                    return 2
                                vr[l] = r
                        # ---- write back
                        if d0 >= 0 and code[pc, F_ND] > 0 and op != OP_BRA:
                            o = rbase + d0 * 32
                            if op == OP_SETP or op == OP_VOTE and code[pc, F_SUB] != 3:
                                for l in range(32):
                                    if (mask >> l) & 1:
                                        R[o + l] = vr[l]
                                if code[pc, F_ND] > 1:
                                    o2 = rbase + code[pc, F_D0 + 1] * 32
                                    for l in range(32):
                                        if (mask >> l) & 1:
                                            R[o2 + l] = vr2[l]
                            else:
                                tw = t
                                if op == OP_MUL and code[pc, F_SUB] == 2 or op == OP_MAD and code[pc, F_SUB] == 2:
                                    tw = t + tsize
                                for l in range(32):
                                    if (mask >> l) & 1:
                                        R[o + l] = canon(vr[l], tw) if (tw >> 4) != TK_F else (
                                            vr[l] & 0xFFFFFFFF if (tw & 15) == 4 else vr[l])
                                if op == OP_SHFL and code[pc, F_ND] > 1:
                                    o2 = rbase + code[pc, F_D0 + 1] * 32
                                    for l in range(32):
                                        if (mask >> l) & 1:
                                            R[o2 + l] = vr2[l]
                    # ---- statistics and trace
                    cm = count_mask - ((count_mask >> 1) & 0x55555555)
                    cm = (cm & 0x33333333) + ((cm >> 2) & 0x33333333)
                    nthr = (((cm + (cm >> 4)) & 0x0F0F0F0F) * 0x01010101 & 0xFFFFFFFF) >> 24
                    bs[BS_WARP_INSTRS] += 1
                    bs[BS_THREAD_INSTRS] += nthr
                    ws[WS_WARP_INSTRS] += 1
                    ws[WS_THREAD_INSTRS] += nthr
                    if trace_on:
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
                        n_rec += 1
                    # ---- advance
                    if next_pc != -3:
                        spc[w, top] = next_pc
                    if status[w] == 1:
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
    state[0] = b
    state[3] = n_rec
    state[4] = n_lines
    state[5] = instr_done
    state[6] = n_addr
    return 0


@njit(cache=True)
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
    gx, gy, gz = grid[0], grid[1], grid[2]
    bx, by, bz = block[0], block[1], block[2]
    nthreads = bx * by * bz
    nw = (nthreads + 31) // 32
    g16 = gmem.view(np.uint16)
    g32 = gmem.view(np.uint32)
    g64 = gmem.view(np.int64)
    c16 = cmem.view(np.uint16)
    c32 = cmem.view(np.uint32)
    c64 = cmem.view(np.int64)
    p16 = pmem.view(np.uint16)
    p32 = pmem.view(np.uint32)
    p64 = pmem.view(np.int64)
    smem = np.zeros(((smem_size + 7) // 8) * 8 + 8, np.uint8)
    s16 = smem.view(np.uint16)
    s32 = smem.view(np.uint32)
    s64 = smem.view(np.int64)
    lwords = (local_size + 3) // 4
    lmem = np.zeros(max(8, ((nw * 32 * lwords * 4 + 7) // 8) * 8), np.uint8)
    l16 = lmem.view(np.uint16)
    l32 = lmem.view(np.uint32)
    l64 = lmem.view(np.int64)
    glen = len(gmem)
    R = np.zeros(nw * n_regs * 32, np.int64)
    Rf32 = R.view(np.float32)
    Rf64 = R.view(np.float64)
    va = np.zeros(32, np.int64)
    vb = np.zeros(32, np.int64)
    vc = np.zeros(32, np.int64)
    vd = np.zeros(32, np.int64)
    vr = np.zeros(32, np.int64)
    vr2 = np.zeros(32, np.int64)
    vaf = va.view(np.float32)
    vbf = vb.view(np.float32)
    vcf = vc.view(np.float32)
    vdf = vd.view(np.float32)
    vrf = vr.view(np.float32)
    vad = va.view(np.float64)
    vbd = vb.view(np.float64)
    vcd = vc.view(np.float64)
    vrd = vr.view(np.float64)
    addr = np.zeros(32, np.int64)
    lspace = np.zeros(32, np.int64)
    scratch = np.zeros(1, np.int64)
    lines_tmp = np.zeros(32, np.int64)
    bank_cnt = np.zeros(32, np.int64)
    bank_words = np.zeros((32, 32), np.int64)
    tid_x = np.zeros(nw * 32, np.int64)
    tid_y = np.zeros(nw * 32, np.int64)
    tid_z = np.zeros(nw * 32, np.int64)
    for t in range(nw * 32):
        tid_x[t] = t % bx
        tid_y[t] = (t // bx) % by
        tid_z[t] = t // (bx * by)
    spc = np.zeros((nw, MAX_STACK), np.int64)
    srpc = np.zeros((nw, MAX_STACK), np.int64)
    smask = np.zeros((nw, MAX_STACK), np.int64)
    depth = np.zeros(nw, np.int64)
    status = np.zeros(nw, np.int64)  # 0 run, 1 at barrier, 2 done
    cap = 1 << 16
    tr_warp = np.zeros(cap, np.int32)
    tr_pc = np.zeros(cap, np.int32)
    tr_mask = np.zeros(cap, np.uint32)
    tr_space = np.zeros(cap, np.int8)
    tr_nreq = np.zeros(cap, np.int16)
    lines = np.zeros(cap, np.int64)
    laddr = np.zeros(cap if lane_on else 1, np.int64)
    n_rec = 0
    n_lines = 0
    state = np.zeros(8, np.int64)
    state[0] = blk_begin
    state[5] = instr_done
    while True:
        rc = _interp(code, n_regs, gx, gy, gz, bx, by, bz, blk_begin, blk_end,
                     gmem, g16, g32, g64, gshadow, gbase, cmem, c16, c32, c64, pmem, p16, p32, p64,
                     smem, s16, s32, s64, smem_size, lmem, l16, l32, l64, local_size,
                     R, Rf32, Rf64, va, vb, vc, vd, vr, vr2, vaf, vbf, vcf, vdf, vrf, vad, vbd, vcd, vrd,
                     addr, lspace, scratch, lines_tmp, bank_cnt, bank_words, tid_x, tid_y, tid_z,
                     spc, srpc, smask, depth, status, tr_warp, tr_pc, tr_mask, tr_space, tr_nreq, lines,
                     trace_on, rec_limit, instr_limit, blk_stats, warp_stats, err, dyn_smem, state, lane_on, laddr)
        if rc != 1:
            break
        n = state[3]
        if n >= len(tr_pc):
            nc = 2 * len(tr_pc)
            t1 = np.empty(nc, np.int32)
            t1[:n] = tr_warp[:n]
            tr_warp = t1
            t2 = np.empty(nc, np.int32)
            t2[:n] = tr_pc[:n]
            tr_pc = t2
            t3 = np.empty(nc, np.uint32)
            t3[:n] = tr_mask[:n]
            tr_mask = t3
            t4 = np.empty(nc, np.int8)
            t4[:n] = tr_space[:n]
            tr_space = t4
            t5 = np.empty(nc, np.int16)
            t5[:n] = tr_nreq[:n]
            tr_nreq = t5
        if state[4] + 32 > len(lines):
            lines = _grow_i64(lines, state[4] + 32)
        if lane_on and state[6] + 32 > len(laddr):
            laddr = _grow_i64(laddr, state[6] + 32)
    return (state[0], state[5], state[3], tr_warp, tr_pc, tr_mask, tr_space, tr_nreq, state[4], lines, state[6],
            laddr)
