"""Every opcode family against numpy semantics (one lane per element)."""
import numpy as np
import pytest
from numba import njit

from pipeline_lib.intrinsics import (bits_of_f32, bits_of_f64, f32_of_bits, f64_of_bits, lowest_bit, popcount, prefetch,
                                     sort8, sort16, sort32)
from pipeline_lib.ptx import Device, isa
from pipeline_lib.ptx.emulator import fma32, sort_lines
from pipeline_lib.ptx.fpmath import fma_f32
from ptx_harness import op_code, run_op

RNG = np.random.default_rng(7)
N = 200


def ints(dtype, n=N, lo=None, hi=None):
    info = np.iinfo(dtype)
    lo = info.min if lo is None else lo
    hi = info.max if hi is None else hi
    v = RNG.integers(lo, hi, n, dtype=np.int64 if info.min < 0 or info.max < 2**63 else np.uint64, endpoint=True)
    v = v.astype(dtype)
    v[:4] = np.array([0, 1, info.max, info.min], dtype=dtype)[:4] if n >= 4 else v[:4]
    return v


@pytest.mark.parametrize("t,dt", [("s32", np.int32), ("u32", np.uint32), ("s64", np.int64), ("u64", np.uint64)])
@pytest.mark.parametrize("op,fn", [
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul.lo", lambda a, b: a * b),
    ("min", np.minimum), ("max", np.maximum), ("and", np.bitwise_and), ("or", np.bitwise_or),
    ("xor", np.bitwise_xor)])
def test_int_binary(t, dt, op, fn):
    a, b = ints(dt), ints(dt)[::-1].copy()
    opname = op if op in ("add", "sub", "mul.lo", "min", "max") else op
    ty = t if op in ("add", "sub", "mul.lo", "min", "max") else "b" + t[1:]
    with np.errstate(over="ignore"):
        want = fn(a, b).astype(dt)
    got = run_op(f"{opname}.{ty} D, A, B;", t, a, t, b)
    np.testing.assert_array_equal(got, want)


def _trunc_div(a, b):
    q = np.abs(a.astype(object)) // np.abs(b.astype(object))
    return np.where((a < 0) != (b < 0), -q, q)


def _check_div_rem(t, dt, a, b):
    """div.t and rem.t of a by b (arrays of dtype dt, no zero divisor) give
    C's truncated quotient and its remainder."""
    q = _trunc_div(a, b)
    r = a.astype(object) - q * b.astype(object)
    np.testing.assert_array_equal(run_op(f"div.{t} D, A, B;", t, a, t, b), q.astype(dt))
    np.testing.assert_array_equal(run_op(f"rem.{t} D, A, B;", t, a, t, b), r.astype(dt))


@pytest.mark.parametrize("t,dt", [("s32", np.int32), ("u32", np.uint32), ("s64", np.int64), ("u64", np.uint64)])
def test_int_div_rem(t, dt):
    a = ints(dt)
    b = ints(dt)[::-1].copy()
    b[b == 0] = 3
    if t[0] == "s":
        b[(a == np.iinfo(dt).min) & (b == -1)] = 2
    _check_div_rem(t, dt, a, b)


@pytest.mark.parametrize("t,dt", [("s32", np.int32), ("u32", np.uint32)])
@pytest.mark.parametrize("op", ["div", "rem"])
def test_32_bit_div_rem_fast_path_agrees_with_the_general_path_on_edge_cases(t, dt, op):
    """The 32-bit division of the fast path is its own lane loop; on the
    cases C leaves undefined (a zero divisor, INT32_MIN / -1) and every sign
    combination it gives the general path's int_binop result."""
    from pipeline_lib.ptx.emulator import int_binop
    info = np.iinfo(dt)
    vals = [0, 1, -1, 2, -2, 7, -7, int(info.min), int(info.max), int(info.min) + 1, 12345, -54321]
    vals = np.array(vals, dtype=np.int64).astype(dt)         # unsigned: the negatives wrap
    a, b = np.repeat(vals, len(vals)), np.tile(vals, len(vals))
    tcode = isa.T_S32 if t == "s32" else isa.T_U32
    opc = isa.OP_DIV if op == "div" else isa.OP_REM
    want = np.array([int_binop(opc, 0, tcode, int(x), int(y)) for x, y in zip(a, b)]).astype(dt)
    np.testing.assert_array_equal(run_op(f"{op}.{t} D, A, B;", t, a, t, b), want)
    # what the general path gives there, so that the two cannot agree on a shared mistake
    i = np.flatnonzero(b == 0)
    np.testing.assert_array_equal(want[i], np.full(len(i), -1).astype(dt) if op == "div" else a[i])
    if t == "s32":
        j = np.flatnonzero((a == info.min) & (b == -1))
        assert want[j].tolist() == ([int(info.min)] if op == "div" else [0])


@pytest.mark.parametrize("t,dt", [("s32", np.int32), ("u32", np.uint32)])
def test_32_bit_div_rem_are_exact_next_to_whole_quotients(t, dt):
    """The fast path divides the magnitudes in f64 and truncates.  Where the
    quotient lies just below a whole number (x = k y - 1 with y large, the
    magnitudes near the type's limit) a divide that rounds to fewer bits
    (f32's) or a rounded instead of a truncated quotient gives k; the exact
    answer is k - 1, and x = k y gives k with remainder 0."""
    info = np.iinfo(dt)
    rng = np.random.default_rng(5)
    y = np.concatenate([rng.integers(1 << 12, int(info.max) // 3, 40), [3, 7, 1 << 16, int(info.max) // 2]])
    k = int(info.max) // y
    x = np.concatenate([k * y - 1, k * y])
    y = np.concatenate([y, y])
    if t == "s32":     # every sign combination of the same magnitudes
        x = np.concatenate([x, -x, x, -x])
        y = np.concatenate([y, y, -y, -y])
    _check_div_rem(t, dt, x.astype(dt), y.astype(dt))


@pytest.mark.parametrize("t,dt,wide", [("s32", np.int32, np.int64), ("u32", np.uint32, np.uint64),
                                       ("s16", np.int16, np.int32), ("u16", np.uint16, np.uint32)])
def test_mul_wide_and_hi(t, dt, wide):
    a, b = ints(dt), ints(dt)[::-1].copy()
    prod = a.astype(object) * b.astype(object)
    bits = np.dtype(dt).itemsize * 8
    np.testing.assert_array_equal(run_op(f"mul.wide.{t} D, A, B;", t, a, t, b, td=t[0] + str(2 * bits)),
                                  prod.astype(wide))
    hi = np.array([int(p) >> bits for p in prod], dtype=object)
    np.testing.assert_array_equal(run_op(f"mul.hi.{t} D, A, B;", t, a, t, b), hi.astype(np.int64).astype(dt))


@pytest.mark.parametrize("t,dt,wide", [("s32", np.int32, np.int64), ("u32", np.uint32, np.uint64),
                                       ("s16", np.int16, np.int32), ("u16", np.uint16, np.uint32)])
def test_mul_wide_fast_path_keeps_guarded_off_lanes(t, dt, wide):
    """mul.wide of 16- and 32-bit operands runs on a fast path (the operands
    sign- or zero-extended from their width): lanes a guard turns off keep
    their value, the others get the exact product."""
    a, b = ints(dt), ints(dt)[::-1].copy()
    td = t[0] + str(2 * np.dtype(dt).itemsize * 8)
    body = f"and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.{td} D, 7;\n @%p5 mul.wide.{t} D, A, B;"
    code = op_code(body, t, t, None, td)
    assert isa.FK_IMUL_WIDE in code[:, isa.F_FAST]
    prod = (a.astype(object) * b.astype(object)).astype(wide)
    want = np.where(np.arange(len(a)) % 2 == 1, prod, wide(7))
    np.testing.assert_array_equal(run_op(body, t, a, t, b, td=td), want)


@pytest.mark.parametrize("neg", ["", "!"])
def test_guard_and_negated_guard_select_the_lanes(neg):
    """``@%p`` runs the lanes whose predicate holds and ``@!%p`` the others
    (the guard mask is built from the predicate's 32 lanes, then inverted
    for a negated guard); lanes the guard turns off keep their value."""
    a, b = ints(np.int32), ints(np.int32)[::-1].copy()
    body = f"and.b32 %r9, %r4, 3;\n setp.eq.s32 %p5, %r9, 0;\n mov.s32 D, 7;\n @{neg}%p5 add.s32 D, A, B;"
    on = (np.arange(len(a)) % 4 == 0) != (neg == "!")
    want = np.where(on, (a.astype(np.int64) + b).astype(np.int32), np.int32(7))
    np.testing.assert_array_equal(run_op(body, "s32", a, "s32", b), want)


def test_fast_paths_in_a_row_under_changing_guards():
    """The fast paths take the lanes to write from a row of lane selects
    that the interpreter fills when the mask changes (emulator.py, SEL):
    fast-path instructions one after the other under a full mask, two
    different guards and a negated one each write exactly their lanes (and
    the last warp, 8 of 32 lanes live, only those)."""
    a, b = ints(np.int32), ints(np.int32)[::-1].copy()
    body = ("and.b32 %r9, %r4, 3;\n setp.eq.s32 %p5, %r9, 0;\n setp.eq.s32 %p6, %r9, 1;\n"
            " mov.s32 D, 7;\n @%p5 add.s32 D, A, B;\n @%p6 sub.s32 D, A, B;\n @!%p5 xor.b32 D, D, 1;")
    code = op_code(body, "s32", "s32", None, "s32")
    assert {isa.FK_IADD, isa.FK_ISUB, isa.FK_XOR} <= set(code[:, isa.F_FAST])
    lane = np.arange(len(a)) % 4
    wide_a = a.astype(np.int64)
    want = np.where(lane == 0, wide_a + b, np.where(lane == 1, (wide_a - b) ^ 1, 6)).astype(np.int32)
    np.testing.assert_array_equal(run_op(body, "s32", a, "s32", b), want)


@pytest.mark.parametrize("op,fk,want", [
    ("selp.b32 D, B, D, %p6", isa.FK_SELP, lambda a, b: np.where(a < b, b, a)),    # D is the second source
    ("selp.b32 D, D, B, %p6", isa.FK_SELP, lambda a, b: np.where(a < b, a, b)),    # D is the first source
    ("add.s32 D, D, B", isa.FK_IADD, lambda a, b: (a.astype(np.int64) + b).astype(np.int32))])
def test_fast_paths_whose_destination_is_a_source(op, fk, want):
    """A destination that is also a source (a running maximum, a loop
    counter) is read through the destination's own lanes on the fast path:
    the guarded lanes get the operation of the old value, the others keep
    it."""
    a, b = ints(np.int32), ints(np.int32)[::-1].copy()
    body = f"and.b32 %r9, %r4, 3;\n setp.eq.s32 %p5, %r9, 0;\n setp.lt.s32 %p6, A, B;\n mov.b32 D, A;\n @!%p5 {op};"
    code = op_code(body, "s32", "s32", None, "s32")
    assert fk in code[:, isa.F_FAST]
    on = np.arange(len(a)) % 4 != 0
    np.testing.assert_array_equal(run_op(body, "s32", a, "s32", b), np.where(on, want(a, b), a))


@pytest.mark.parametrize("t,dt", [("s64", np.int64), ("u64", np.uint64)])
def test_mul_hi_64(t, dt):
    a, b = ints(dt), ints(dt)[::-1].copy()
    hi = [(int(x) * int(y)) >> 64 for x, y in zip(a, b)]
    want = np.array([h & (2**64 - 1) for h in hi], dtype=np.uint64).view(dt)
    np.testing.assert_array_equal(run_op(f"mul.hi.{t} D, A, B;", t, a, t, b), want)


def test_mad_lo_and_wide():
    a, b, c = ints(np.int32), ints(np.int32)[::-1].copy(), ints(np.int32, lo=-1000, hi=1000)
    want = (a.astype(np.int64) * b + c).astype(np.int32)
    np.testing.assert_array_equal(run_op("mad.lo.s32 D, A, B, C;", "s32", a, "s32", b, "s32", c), want)
    c64 = ints(np.int64, lo=-2**40, hi=2**40)
    want = a.astype(np.int64) * b + c64
    got = run_op("mad.wide.s32 D, A, B, C;", "s32", a, "s32", b, "s64", c64, td="s64")
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("t,dt", [("b32", np.uint32), ("b64", np.uint64)])
def test_shifts(t, dt):
    bits = np.dtype(dt).itemsize * 8
    a = ints(dt)
    s = RNG.integers(0, bits + 8, N).astype(np.uint32)
    want_l = np.array([(int(x) << int(k)) & (2**bits - 1) if k < bits else 0 for x, k in zip(a, s)], dtype=object)
    want_r = np.array([int(x) >> int(k) if k < bits else 0 for x, k in zip(a, s)], dtype=object)
    np.testing.assert_array_equal(run_op(f"shl.{t} D, A, B;", t, a, "u32", s), want_l.astype(dt))
    np.testing.assert_array_equal(run_op(f"shr.u{bits} D, A, B;", "u" + t[1:], a, "u32", s), want_r.astype(dt))
    sa = a.view(np.int64 if bits == 64 else np.int32)
    want_s = np.array([int(x) >> min(int(k), bits - 1) for x, k in zip(sa, s)])
    np.testing.assert_array_equal(run_op(f"shr.s{bits} D, A, B;", "s" + t[1:], sa, "u32", s), want_s.astype(sa.dtype))


def test_bit_ops():
    a = ints(np.uint32)
    np.testing.assert_array_equal(run_op("popc.b32 D, A;", "b32", a), [bin(int(x)).count("1") for x in a])
    np.testing.assert_array_equal(run_op("clz.b32 D, A;", "b32", a), [32 - int(x).bit_length() for x in a])
    np.testing.assert_array_equal(run_op("brev.b32 D, A;", "b32", a),
                                  np.array([int(f"{int(x):032b}"[::-1], 2) for x in a], np.uint32))
    np.testing.assert_array_equal(run_op("not.b32 D, A;", "b32", a), ~a)
    s = ints(np.int32)
    np.testing.assert_array_equal(run_op("neg.s32 D, A;", "s32", s), (-s.astype(np.int64)).astype(np.int32))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(run_op("abs.s32 D, A;", "s32", s), np.abs(s))
    np.testing.assert_array_equal(run_op("cnot.b32 D, A;", "b32", a), (a == 0).astype(np.uint32))


def test_bfe_bfi():
    a = ints(np.uint32)
    pos = RNG.integers(0, 32, N).astype(np.uint32)
    ln = RNG.integers(0, 33, N).astype(np.uint32)
    want = np.array([(int(x) >> int(p)) & ((1 << int(n)) - 1) if n else 0 for x, p, n in zip(a, pos, ln)],
                    dtype=np.uint64).astype(np.uint32)
    got = run_op("bfe.u32 D, A, B, C;", "u32", a, "u32", pos, "u32", ln)
    np.testing.assert_array_equal(got, want)
    sa = a.view(np.int32)

    def sbfe(x, p, n):  # the PTX ISA's pseudo-code, literally
        bits = [(int(x) >> i) & 1 for i in range(32)]
        sbit = 0 if n == 0 else bits[min(p + n - 1, 31)]
        d = [bits[p + i] if (i < n and p + i <= 31) else sbit for i in range(32)]
        v = sum(b << i for i, b in enumerate(d))
        return v - (1 << 32) if d[31] else v
    want_s = np.array([sbfe(x, int(p), int(n)) for x, p, n in zip(sa, pos, ln)]).astype(np.int32)
    np.testing.assert_array_equal(run_op("bfe.s32 D, A, B, C;", "s32", sa, "u32", pos, "u32", ln), want_s)
    # bfi.b32 d, a, b, c(pos), len as an immediate 8
    base = ints(np.uint32)[::-1].copy()
    p8 = (pos % 25).astype(np.uint32)
    want_i = np.array([(int(y) & ~(0xFF << int(p))) | ((int(x) & 0xFF) << int(p)) for x, y, p in zip(a, base, p8)],
                      dtype=np.uint64).astype(np.uint32)
    np.testing.assert_array_equal(run_op("bfi.b32 D, A, B, C, 8;", "b32", a, "b32", base, "u32", p8), want_i)


@pytest.mark.parametrize("t,dt", [("b32", np.uint32), ("b64", np.uint64)])
def test_bfi_fast_path_with_a_fixed_field(t, dt):
    """bfi with an immediate position and length runs on a fast path
    (isa.FK_BFI; mst packs two words into a 64-bit key with ``bfi.b64 d, a,
    b, 32, 32``): the PTX ISA's bit loop, fields that reach past the type's
    top bit or start beyond it, lengths of 0 and of the whole width, and
    lanes a guard turns off keep their value."""
    bits = np.dtype(dt).itemsize * 8
    a, b = ints(dt), ints(dt)[::-1].copy()
    on = np.arange(N) % 2 == 1

    def bfi(x, y, pos, ln):     # the ISA's pseudo-code: f = b; f[pos + i] = a[i] while i < len, pos + i <= msb
        f = int(y)
        for i in range(ln & 0xFF):
            if (pos & 0xFF) + i > bits - 1:
                break
            bit = 1 << ((pos & 0xFF) + i)
            f = (f | bit) if (int(x) >> i) & 1 else (f & ~bit)
        return f
    for pos, ln in [(32, 32), (0, 0), (0, 8), (5, 3), (0, 32), (0, 64), (31, 1), (31, 5), (63, 1), (60, 10),
                    (64, 4), (200, 8), (8, 255), (256 + 4, 4)]:
        body = (f"and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.{t} D, 7;\n"
                f" @%p5 bfi.{t} D, A, B, {pos}, {ln};")
        code = op_code(body, t, t, None, t)
        assert isa.FK_BFI in code[:, isa.F_FAST]
        want = np.array([bfi(x, y, pos, ln) if o else 7 for x, y, o in zip(a, b, on)], dtype=object).astype(dt)
        np.testing.assert_array_equal(run_op(body, t, a, t, b), want, err_msg=f"pos {pos} len {ln}")


def test_prmt_default_mode():
    a, b = ints(np.uint32), ints(np.uint32)[::-1].copy()
    sel = 0x5140
    src = a.astype(np.uint64) | (b.astype(np.uint64) << np.uint64(32))
    want = np.zeros(N, np.uint64)
    for k in range(4):
        nib = (sel >> (4 * k)) & 7
        want |= ((src >> np.uint64(8 * nib)) & np.uint64(0xFF)) << np.uint64(8 * k)
    np.testing.assert_array_equal(run_op(f"prmt.b32 D, A, B, {sel};", "b32", a, "b32", b), want.astype(np.uint32))


F32_SPECIAL = np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, 1e-40, 3.4e38], np.float32)


def floats(dt, n=N):
    v = (RNG.standard_normal(n) * 10 ** RNG.uniform(-3, 3, n)).astype(dt)
    v[:len(F32_SPECIAL)] = F32_SPECIAL.astype(dt)
    return v


@pytest.mark.parametrize("t,dt", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("op,fn", [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                                   ("div.rn", np.divide), ("min", np.fmin), ("max", np.fmax)])
def test_float_binary(t, dt, op, fn):
    a, b = floats(dt), floats(dt)[::-1].copy()
    with np.errstate(all="ignore"):
        want = fn(a, b).astype(dt)
    got = run_op(f"{op}.{t} D, A, B;", t, a, t, b)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("t,dt", [("f32", np.float32), ("f64", np.float64)])
def test_float_unary(t, dt):
    a = floats(dt)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(run_op(f"abs.{t} D, A;", t, a), np.abs(a))
        np.testing.assert_array_equal(run_op(f"neg.{t} D, A;", t, a), -a)
        np.testing.assert_array_equal(run_op(f"sqrt.rn.{t} D, A;", t, a), np.sqrt(a))
        np.testing.assert_array_equal(run_op(f"rcp.rn.{t} D, A;", t, a), (dt(1) / a).astype(dt))


def test_fma_f32_is_fused_and_correctly_rounded():
    # a*b+c where the unfused computation rounds twice: fma keeps the product exact
    a = np.array([1 + 2**-12, 1 + 2**-23, 3.0, 0.1] * 50, np.float32)
    b = np.array([1 - 2**-12, 1 - 2**-23, 1 / 3, 10.0] * 50, np.float32)
    c = np.array([-1.0, -1.0, -1.0, -1.0] * 50, np.float32)
    exact = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
    want = exact.astype(np.float32)  # exact is representable in f64 here
    got = run_op("fma.rn.f32 D, A, B, C;", "f32", a, "f32", b, "f32", c)
    np.testing.assert_array_equal(got, want)
    unfused = (a * b).astype(np.float32) + c
    assert (got != unfused).any(), "test inputs must distinguish fused from unfused"


def test_directed_rounding_fma_and_cvt():
    a = floats(np.float32)
    b = floats(np.float32)[::-1].copy()
    c = floats(np.float32)
    with np.errstate(over="ignore"):
        fin = np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & (np.abs(a * b) < 1e30)
    a, b, c = a[fin], b[fin], c[fin]
    exact = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
    dn = run_op("fma.rm.f32 D, A, B, C;", "f32", a, "f32", b, "f32", c)
    up = run_op("fma.rp.f32 D, A, B, C;", "f32", a, "f32", b, "f32", c)
    assert (dn.astype(np.float64) <= exact).all() and (up.astype(np.float64) >= exact).all()
    assert ((up == dn) | (np.nextafter(dn, np.float32(np.inf)) == up)).all()
    x = floats(np.float32)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(run_op("cvt.rmi.f32.f32 D, A;", "f32", x), np.floor(x))
        np.testing.assert_array_equal(run_op("cvt.rpi.f32.f32 D, A;", "f32", x), np.ceil(x))
        np.testing.assert_array_equal(run_op("cvt.rzi.f32.f32 D, A;", "f32", x), np.trunc(x))
        np.testing.assert_array_equal(run_op("cvt.rni.f32.f32 D, A;", "f32", x), np.rint(x))
        np.testing.assert_array_equal(run_op("cvt.sat.f32.f32 D, A;", "f32", x), np.clip(x, 0, 1))


def test_cvt_int_float():
    x = floats(np.float32)
    want = np.clip(np.nan_to_num(np.trunc(x.astype(np.float64)), nan=0), -2**31, 2**31 - 1).astype(np.int32)
    np.testing.assert_array_equal(run_op("cvt.rzi.s32.f32 D, A;", "f32", x, td="s32"), want)
    want_u = np.clip(np.nan_to_num(np.rint(x.astype(np.float64)), nan=0), 0, 2**32 - 1).astype(np.uint32)
    np.testing.assert_array_equal(run_op("cvt.rni.u32.f32 D, A;", "f32", x, td="u32"), want_u)
    i = ints(np.int32)
    np.testing.assert_array_equal(run_op("cvt.rn.f32.s32 D, A;", "s32", i, td="f32"), i.astype(np.float32))
    np.testing.assert_array_equal(run_op("cvt.f64.f32 D, A;", "f32", x, td="f64"), x.astype(np.float64))
    d = floats(np.float64)
    np.testing.assert_array_equal(run_op("cvt.rn.f32.f64 D, A;", "f64", d, td="f32"), d.astype(np.float32))
    np.testing.assert_array_equal(run_op("cvt.s64.s32 D, A;", "s32", i, td="s64"), i.astype(np.int64))
    u = ints(np.uint32)
    np.testing.assert_array_equal(run_op("cvt.u64.u32 D, A;", "u32", u, td="u64"), u.astype(np.uint64))
    big = ints(np.int64)
    np.testing.assert_array_equal(run_op("cvt.u32.u64 D, A;", "u64", big.view(np.uint64), td="u32"),
                                  big.view(np.uint64).astype(np.uint32))
    np.testing.assert_array_equal(run_op("cvt.s16.s32 D, A;", "s32", i, td="s16"), i.astype(np.int16))


@pytest.mark.parametrize("t,dt", [("s32", np.int32), ("u32", np.uint32), ("u64", np.uint64), ("f32", np.float32)])
@pytest.mark.parametrize("cmp,fn", [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                                    ("gt", np.greater), ("ge", np.greater_equal)])
def test_setp_selp(t, dt, cmp, fn):
    if t == "f32":
        a = floats(dt)
        a[10] = np.nan
    else:
        a = ints(dt)
    b = a.copy()
    b[::3] = (ints(dt) if t != "f32" else floats(dt))[::3]
    body = f"setp.{cmp}.{t} %p2, A, B;\n selp.s32 D, 1, 0, %p2;"
    got = run_op(body, t, a, t, b, td="s32")
    with np.errstate(invalid="ignore"):
        want = fn(a, b)
    if cmp == "ne" and t == "f32":
        want = want & ~np.isnan(a) & ~np.isnan(b)   # ordered compare
    np.testing.assert_array_equal(got, want.astype(np.int32))


@pytest.mark.parametrize("cmp,fn", [
    ("equ", lambda a, b: a == b), ("neu", lambda a, b: a != b), ("ltu", lambda a, b: a < b),
    ("leu", lambda a, b: a <= b), ("gtu", lambda a, b: a > b), ("geu", lambda a, b: a >= b),
    ("num", lambda a, b: np.zeros(len(a), bool)), ("nan", lambda a, b: np.zeros(len(a), bool))])
def test_unordered_float_compare(cmp, fn):
    """The unordered comparisons (true where either operand is NaN), num
    and nan, on f32's fast path (isa.FK_SETP_F32) under a guard: lanes it
    turns off keep their value."""
    a = floats(np.float32)
    a[5] = np.nan
    b = floats(np.float32)[::-1].copy()
    b[[20, 21]] = [np.nan, a[21]]
    body = f"and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.s32 D, 7;\n @%p5 setp.{cmp}.f32 %p2, A, B;\n" \
           " @%p5 selp.s32 D, 1, 0, %p2;"
    code = op_code(body, "f32", "f32", None, "s32")
    assert (code[(code[:, isa.F_OP] == isa.OP_SETP) & (code[:, isa.F_TYPE] == isa.T_F32), isa.F_FAST]
            == isa.FK_SETP_F32).tolist() == [True]
    got = run_op(body, "f32", a, "f32", b, td="s32")
    nan = np.isnan(a) | np.isnan(b)
    with np.errstate(invalid="ignore"):
        want = ~nan if cmp == "num" else (nan | fn(a, b))
    on = np.arange(N) % 2 == 1
    np.testing.assert_array_equal(got, np.where(on, want, 7).astype(np.int32))


@pytest.mark.parametrize("t,dt", [("s16", np.int16), ("u16", np.uint16)])
def test_16_bit_mov_setp_selp_fast_paths(t, dt):
    """16-bit mov, setp and selp (`pathfinder`'s flags) run on the integer
    fast paths with the type's 16-bit canonical form: a guarded minimum of
    signed or unsigned halves, and 65535 below 0 only as s16; lanes a
    guard turns off keep their value."""
    a, b = ints(dt), ints(dt)[::-1].copy()
    body = (f"and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.{t} D, 7;\n @%p5 setp.lt.{t} %p6, A, B;\n"
            f" @%p5 selp.{t} D, A, B, %p6;")
    code = op_code(body, t, t, None, t)
    rows = (code[:, isa.F_TYPE] & 15) == 2
    alu = rows & np.isin(code[:, isa.F_OP], [isa.OP_MOV, isa.OP_SETP, isa.OP_SELP])
    assert set(code[alu, isa.F_FAST]) == {isa.FK_MOV, isa.FK_SETP_INT, isa.FK_SELP}
    on = np.arange(N) % 2 == 1
    np.testing.assert_array_equal(run_op(body, t, a, t, b), np.where(on, np.minimum(a, b), 7).astype(dt))
    body = f"mov.u16 %h5, 65535;\n setp.lt.{t} %p6, %h5, 0;\n selp.u32 D, 1, 0, %p6;"
    np.testing.assert_array_equal(run_op(body, "u32", np.zeros(N, np.uint32)), np.full(N, t == "s16"))


def test_predicate_logic_and_bit_punning():
    a, b = ints(np.int32), ints(np.int32)[::-1].copy()
    body = ("setp.lt.s32 %p2, A, 0;\n setp.gt.s32 %p3, B, 0;\n xor.pred %p4, %p2, %p3;\n not.pred %p5, %p4;\n"
            " selp.s32 D, 1, 0, %p5;")
    np.testing.assert_array_equal(run_op(body, "s32", a, "s32", b), (~((a < 0) ^ (b > 0))).astype(np.int32))
    f = floats(np.float32)
    np.testing.assert_array_equal(run_op("mov.b32 D, A;", "f32", f, td="b32"), f.view(np.uint32))


def test_special_registers_and_hex_float_immediates():
    x = np.arange(N, dtype=np.float32)
    got = run_op("mov.u32 %r20, %laneid;\n cvt.rn.f32.u32 %f5, %r20;\n fma.rn.f32 D, A, 0f40000000, %f5;", "f32", x)
    np.testing.assert_array_equal(got, 2 * x + (np.arange(N) % 32))


def test_special_register_fast_path_keeps_guarded_off_lanes():
    """mov from a special register runs on a fast path (isa.FK_MOV_SPECIAL):
    each lane gets its thread's value (the harness launches blocks of 64
    threads, one element each), lanes a guard turns off keep theirs."""
    i = np.arange(N)
    on = i % 2 == 1
    a = np.zeros(N, np.uint32)
    lane = i % 32
    for reg, want in [("%tid.x", i % 64), ("%ntid.x", np.full(N, 64)), ("%ctaid.x", i // 64),
                      ("%nctaid.x", np.full(N, (N + 63) // 64)), ("%laneid", lane), ("%warpid", (i % 64) // 32),
                      ("%lanemask_lt", (1 << lane) - 1), ("%lanemask_ge", (0xFFFFFFFF << lane) & 0xFFFFFFFF)]:
        body = f"and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.u32 D, 7;\n @%p5 mov.u32 D, {reg};"
        code = op_code(body, "u32", None, None, "u32")
        assert isa.FK_MOV_SPECIAL in code[:, isa.F_FAST], reg
        np.testing.assert_array_equal(run_op(body, "u32", a), np.where(on, want, 7).astype(np.uint32), err_msg=reg)


@pytest.mark.parametrize("mode", ["down", "up", "bfly", "idx"])
def test_shfl_fast_path_keeps_guarded_off_lanes(mode):
    """shfl.sync runs on a fast path (isa.FK_SHFL): each lane gets the
    source lane's value and the predicate says whether that lane was inside
    the clamp (else the lane keeps its own value, predicate false); lanes a
    guard turns off keep both their registers."""
    a = ints(np.uint32)
    i = np.arange(N)
    lane, on = i % 32, i % 2 == 1
    delta, clamp = 3, 0x81f if mode in ("down", "bfly", "idx") else 0x800   # segments of 16 lanes for up
    body = (f"and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.u32 D, 7;\n setp.ne.s32 %p6, %r9, 0;\n"
            f" @%p5 shfl.sync.{mode}.b32 D|%p6, A, {delta}, {clamp}, -1;\n selp.u32 %r10, 1, 0, %p6;\n"
            f" shl.b32 %r10, %r10, 31;\n xor.b32 D, D, %r10;")
    code = op_code(body, "u32", None, None, "u32")
    assert isa.FK_SHFL in code[:, isa.F_FAST]
    seg = (clamp >> 8) & 31
    cval = clamp & 31
    want = []
    for k in range(N):
        l = int(lane[k])
        if not on[k]:
            want.append(7)                   # both registers as they were (%p6 false there)
            continue
        max_lane = (l & seg) | (cval & ~seg)
        j = {"down": l + delta, "up": l - delta, "bfly": l ^ delta, "idx": (l & seg) | (delta & ~seg)}[mode]
        pv = j >= max_lane if mode == "up" else j <= max_lane
        src = k - l + (j if pv else l)
        want.append(int(a[src]) ^ (int(pv) << 31) if src < N else None)
    got = run_op(body, "u32", a)
    keep = [k for k in range(N) if want[k] is not None]
    np.testing.assert_array_equal(got[keep], np.array([want[k] for k in keep], dtype=np.uint32))


@pytest.mark.parametrize("op,fn", [
    ("ex2.approx.f32", np.exp2), ("lg2.approx.f32", np.log2), ("sin.approx.f32", np.sin),
    ("cos.approx.f32", np.cos), ("rsqrt.approx.f32", lambda x: 1 / np.sqrt(x)), ("tanh.approx.f32", np.tanh)])
def test_sfu_ops_are_correctly_rounded(op, fn):
    # documented deviation: .approx results are the correctly rounded value,
    # not the hardware's approximation
    x = floats(np.float32)
    x = np.abs(x[np.isfinite(x)]) % 50 + np.float32(0.01)
    x[3] = np.nan
    with np.errstate(all="ignore"):
        want = fn(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(run_op(f"{op} D, A;", "f32", x), want)


@pytest.mark.parametrize("body,kind", [
    ("fma.rm.f32 D, A, B, C;", isa.FK_FLOAT), ("fma.rp.ftz.f32 D, A, 0f3F000001, C;", isa.FK_FLOAT),
    ("add.rz.f32 D, A, B;", isa.FK_FLOAT), ("sub.rm.ftz.sat.f32 D, A, B;", isa.FK_FLOAT),
    ("mul.rp.f32 D, A, B;", isa.FK_FLOAT), ("mad.rz.f32 D, A, B, C;", isa.FK_FLOAT),
    ("div.full.f32 D, A, B;", isa.FK_FLOAT), ("div.approx.ftz.f32 D, A, B;", isa.FK_FLOAT),
    ("rcp.rn.f32 D, A;", isa.FK_FLOAT), ("rcp.rn.ftz.f32 D, A;", isa.FK_FLOAT),
    ("sqrt.approx.f32 D, A;", isa.FK_FLOAT), ("rsqrt.approx.f32 D, A;", isa.FK_FLOAT),
    ("ex2.approx.ftz.f32 D, A;", isa.FK_FLOAT), ("lg2.approx.f32 D, A;", isa.FK_FLOAT),
    ("sin.approx.f32 D, A;", isa.FK_FLOAT), ("tanh.approx.f32 D, A;", isa.FK_FLOAT),
    ("neg.ftz.f32 D, A;", isa.FK_FLOAT), ("max.ftz.f32 D, A, B;", isa.FK_FLOAT),
    ("cvt.sat.f32.f32 D, A;", isa.FK_CVT_F2F), ("cvt.rmi.f32.f32 D, A;", isa.FK_CVT_F2F),
    ("cvt.rpi.ftz.f32.f32 D, A;", isa.FK_CVT_F2F), ("cvt.rni.sat.f32.f32 D, A;", isa.FK_CVT_F2F),
    ("cvt.rzi.f32.f32 D, A;", isa.FK_CVT_F2F)])
def test_f32_row_fast_paths_give_the_general_path_bits(body, kind):
    """f32 arithmetic and f32-to-f32 cvt with rounding modes, .ftz, .sat or
    .approx run on a fast path (isa.FK_FLOAT, isa.FK_CVT_F2F) that calls the
    general path's lane operation: every lane's bits equal the general
    path's (the same module run again with those rows' fast kind removed),
    on normal, subnormal, infinite, NaN and signed-zero operands, and lanes
    a guard turns off keep their value."""
    body = "and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.b32 D, 0f40E00000;\n @%p5 " + body
    a = floats(np.float32)
    b, c = a[::-1].copy(), np.roll(a, 7)
    a[8:12] = [np.nan, -np.nan, 2.5e-39, -2.5e-39]
    b[12:14] = [0.0, -1e-41]
    assert (op_code(body, "f32", "f32", "f32")[:, isa.F_FAST] == kind).sum() == 1, body
    outs = [run_op(body, "f32", a, "f32", b, "f32", c, fast_off=off).view(np.uint32) for off in ((), (kind,))]
    np.testing.assert_array_equal(outs[0], outs[1])
    off = np.arange(N) % 2 == 0
    assert (outs[0][off] == np.float32(7.0).view(np.uint32)).all()
    assert not np.array_equal(outs[0], np.full(N, np.float32(7.0)).view(np.uint32))


def test_ftz_flushes_subnormals():
    x = np.array([1e-40, -1e-40, 1.0, 3e-39] * 10, np.float32)
    got = run_op("mul.ftz.f32 D, A, 0f3F800000;", "f32", x)
    np.testing.assert_array_equal(got, np.where(np.abs(x) < 1.1754944e-38, 0, x).astype(np.float32))
    assert np.signbit(got[1])


def test_slct_and_copysign():
    a, b = ints(np.int32), ints(np.int32)[::-1].copy()
    c = ints(np.int32, lo=-5, hi=5)
    np.testing.assert_array_equal(run_op("slct.s32.s32 D, A, B, C;", "s32", a, "s32", b, "s32", c),
                                  np.where(c >= 0, a, b))
    x, y = floats(np.float32), floats(np.float32)[::-1].copy()
    np.testing.assert_array_equal(run_op("copysign.f32 D, A, B;", "f32", x, "f32", y), np.copysign(y, x))


@pytest.mark.parametrize("op,fn,kind", [
    ("div.rn.f32 D, A, B;", np.divide, isa.FK_FDIV), ("sqrt.rn.f32 D, A;", lambda x, y: np.sqrt(x), isa.FK_FSQRT),
    ("abs.f32 D, A;", lambda x, y: np.abs(x), isa.FK_FABS), ("neg.f32 D, A;", lambda x, y: -x, isa.FK_FNEG),
    ("min.f32 D, A, B;", np.fmin, isa.FK_FMIN), ("max.f32 D, A, B;", np.fmax, isa.FK_FMAX)])
def test_f32_fast_paths_through_the_general_paths_lane_op_keep_guarded_off_lanes(op, fn, kind):
    """div.rn, sqrt.rn, abs, neg, min and max on f32 run on fast paths
    (decode.fast_kind; abs, neg, min and max call the general path's
    f32_op per lane, div and sqrt redo by it the lanes IEEE's answer does
    not give, test_f32_division_and_root_fast_paths_give_the_lane_ops_bits): the
    lanes a guard turns off keep their value, and the special cases (x / 0,
    0 / 0, roots of negatives, a NaN operand of min and max) are IEEE's, as
    on the general path."""
    a, b = floats(np.float32), floats(np.float32)[::-1].copy()
    a[11], b[13] = np.nan, np.nan
    body = "and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.f32 D, 0f3F800000;\n @%p5 " + op
    code = op_code(body, "f32", "f32", None, "f32")
    assert kind in code[:, isa.F_FAST]
    with np.errstate(all="ignore"):
        want = np.where(np.arange(len(a)) % 2 == 1, fn(a, b), 1.0).astype(np.float32)
    np.testing.assert_array_equal(run_op(body, "f32", a, "f32", b), want)


@pytest.mark.parametrize("body,kind", [("div.rn.f32 D, A, B;", isa.FK_FDIV), ("sqrt.rn.f32 D, A;", isa.FK_FSQRT)])
def test_f32_division_and_root_fast_paths_give_the_lane_ops_bits(body, kind):
    """div.rn and sqrt.rn compute every lane with the host's vector divide
    and root, then redo by the general path's f32_op the lanes where x86's
    IEEE answer is not PTX's (0 / 0's NaN is negative on x86, NaN / 0 keeps
    no payload on the lane op, the root of a negative number): every lane's
    bits equal the general path's (the module run with the fast kind
    removed), with zeros of both signs, NaNs with payloads and signs,
    signalling NaNs, negative and subnormal values as either operand; lanes
    a guard turns off keep their value.  Fails if the redo pass is dropped."""
    body = "and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.b32 D, 0f40E00000;\n @%p5 " + body
    a = floats(np.float32)
    b = a[::-1].copy()
    # built from bits: a cast through float64 would quieten the signalling NaNs
    special = np.array([0x00000000, 0x80000000, 0xC0400000, 0x001B4E81,                  # +-0, -3, subnormal
                        0x7FC12345, 0xFFC00000, 0x7F812345, 0xFF80ABCD], np.uint32).view(np.float32)  # NaNs
    zeros = np.array([0x00000000, 0x80000000], np.uint32).view(np.float32)
    odd = np.arange(N) % 2 == 1                                         # the lanes the guard runs
    on = np.flatnonzero(odd)
    a[on[:16]], b[on[:16]] = np.repeat(special, 2), np.tile(zeros, 8)   # each special over +0 and -0
    b[on[16:24]] = special                                              # and as the divisor
    assert (op_code(body, "f32", "f32")[:, isa.F_FAST] == kind).sum() == 1, body
    outs = [run_op(body, "f32", a, "f32", b, fast_off=off).view(np.uint32) for off in ((), (kind,))]
    np.testing.assert_array_equal(outs[0], outs[1])
    assert (outs[0][~odd] == np.float32(7.0).view(np.uint32)).all()
    with np.errstate(all="ignore"):
        plain = (a / b if kind == isa.FK_FDIV else np.sqrt(a)).astype(np.float32).view(np.uint32)
    assert (outs[0][odd] != plain[odd]).any()     # some lanes are not the host's IEEE answer


@pytest.mark.parametrize("op,fn,kind", [
    ("add.f32 D, A, B;", np.add, isa.FK_FADD), ("sub.f32 D, A, B;", np.subtract, isa.FK_FSUB),
    ("mul.f32 D, A, B;", np.multiply, isa.FK_FMUL),
    ("fma.rn.f32 D, A, B, A;", lambda x, y: _fma_ref(x, y, x), isa.FK_FFMA)])
def test_f32_arithmetic_fast_paths_keep_guarded_off_lanes(op, fn, kind):
    """add, sub, mul and fma.rn on f32 compute every lane into a row of
    results and merge the guarded lanes into the register file: lanes a
    guard turns off keep their value, bit for bit, and NaN operands give the
    reference's bits (fma's NaNs go through the exact software fma)."""
    a, b = floats(np.float32), floats(np.float32)[::-1].copy()
    a[11], b[13], a[15], b[15] = np.nan, np.nan, np.inf, 0.0    # inf * 0: the invalid operation
    body = "and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.f32 D, 0f3F800000;\n @%p5 " + op
    code = op_code(body, "f32", "f32", None, "f32")
    assert kind in code[:, isa.F_FAST]
    with np.errstate(all="ignore"):
        want = np.where(np.arange(len(a)) % 2 == 1, fn(a, b), np.float32(1.0)).astype(np.float32)
    np.testing.assert_array_equal(run_op(body, "f32", a, "f32", b).view(np.uint32), want.view(np.uint32))


def _fma_ref(x, y, z):
    """fpmath's fma, the emulator's reference for fused multiply-add."""
    return np.array([fma_f32(np.float32(p), np.float32(q), np.float32(r), 0) for p, q, r in zip(x, y, z)],
                    np.float32)


def test_machine_fma_matches_the_software_fma():
    """The fast path's fma (LLVM's fused multiply-add) gives the bits of the
    exactly rounded software fma on random operands, near-cancellations,
    results in the subnormal range and halfway cases of the rounding."""
    rng = np.random.default_rng(7)
    n = 20_000
    raw = [rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32) for _ in range(3)]
    x1, y1 = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    cancel = (x1, y1, (-(x1.astype(np.float64) * y1)).astype(np.float32))
    tiny = ((rng.standard_normal(n) * 1e-20).astype(np.float32), (rng.standard_normal(n) * 1e-19).astype(np.float32),
            (rng.standard_normal(n) * 1e-38).astype(np.float32))
    half = (rng.integers(1, 2**12, n).astype(np.float32), rng.integers(1, 2**12, n).astype(np.float32),
            rng.integers(-2**24, 2**24, n).astype(np.float32) * np.float32(2.0) ** rng.integers(-30, 30, n))
    for x, y, z in (raw, cancel, tiny, half):
        x, y, z = x.astype(np.float32), y.astype(np.float32), z.astype(np.float32)
        got, ref = _machine_fma(x, y, z), _fma_ref(x, y, z)
        ok = np.isnan(ref)
        np.testing.assert_array_equal(got[~ok].view(np.uint32), ref[~ok].view(np.uint32))
        assert np.isnan(got[ok]).all()


@njit
def _machine_fma(x, y, z):
    r = np.empty_like(x)
    for i in range(len(x)):
        r[i] = fma32(x[i], y[i], z[i])
    return r


@pytest.mark.parametrize("t2", ["s32", "u32"])
def test_cvt_i2f_fast_path_keeps_guarded_off_lanes(t2):
    a = ints(np.int32 if t2 == "s32" else np.uint32)
    body = f"and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.f32 D, 0f3F800000;\n @%p5 cvt.rn.f32.{t2} D, A;"
    code = op_code(body, t2, None, None, "f32")
    assert isa.FK_CVT_I2F in code[:, isa.F_FAST]
    want = np.where(np.arange(len(a)) % 2 == 1, a.astype(np.float32), np.float32(1.0)).astype(np.float32)
    np.testing.assert_array_equal(run_op(body, t2, a, td="f32"), want)


@pytest.mark.parametrize("op", ["div", "rem"])
def test_int_div_rem_fast_paths_keep_guarded_off_lanes(op):
    """div and rem on 32/64-bit integers run on fast paths (decode.fast_kind)
    with the general path's int_binop: lanes a guard turns off keep their
    value; the others get C's truncated quotient or remainder."""
    a = ints(np.int32)
    b = ints(np.int32)[::-1].copy()
    b[b == 0] = 3
    b[(a == np.iinfo(np.int32).min) & (b == -1)] = 2
    body = f"and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.s32 D, 7;\n @%p5 {op}.s32 D, A, B;"
    code = op_code(body, "s32", "s32", None, "s32")
    assert (isa.FK_IDIV if op == "div" else isa.FK_IREM) in code[:, isa.F_FAST]
    q = _trunc_div(a, b)
    full = q if op == "div" else a.astype(object) - q * b.astype(object)
    want = np.where(np.arange(len(a)) % 2 == 1, full, 7).astype(np.int32)
    np.testing.assert_array_equal(run_op(body, "s32", a, "s32", b), want)



@pytest.mark.parametrize("t,dt", [("s32", np.int32), ("u32", np.uint32), ("s64", np.int64), ("u64", np.uint64)])
def test_min_max_shr_selp_and_predicate_fast_paths_keep_guarded_off_lanes(t, dt):
    """Integer min, max, shr and not, selp and predicate logic run on fast paths
    (decode.fast_kind): lanes a guard turns off keep their value, the others
    get the general path's results -- unsigned 64-bit compares, shifts past
    the width (the sign for signed types, 0 for unsigned), selp's bits as
    they were, a predicate's non-zero bits true."""
    bits = np.dtype(dt).itemsize * 8
    a, b = ints(dt), ints(dt)[::-1].copy()
    s = RNG.integers(0, bits + 8, N).astype(np.uint32)
    on = np.arange(N) % 2 == 1            # %r4 is the lane's element index: odd elements are guarded on
    rows = [("min", lambda: np.minimum(a, b)), ("max", lambda: np.maximum(a, b)),
            ("shr", lambda: np.array([int(x) >> min(int(k), bits - 1) if t[0] == "s" else
                                      (int(x) >> int(k) if k < bits else 0) for x, k in zip(a, s)], dtype=object).astype(dt)),
            ("not", lambda: ~a), ("selp", lambda: np.where((a < b) != (a == 0), a, b)),
            ("pred", lambda: ((a < b) | (b == 0)) & ~((a == b) ^ (a < 0)))]
    guard = "and.b32 %r9, %r4, 1;\n setp.ne.s32 %p5, %r9, 0;\n mov.TY D, 7;\n "
    bodies = {
        "min": ("@%p5 min.TY D, A, B;", isa.FK_IMIN, b),
        "max": ("@%p5 max.TY D, A, B;", isa.FK_IMAX, b),
        "shr": ("@%p5 shr.TY D, A, B;", isa.FK_SHR, s),
        "not": ("@%p5 not.BTY D, A;", isa.FK_INOT, b),
        "selp": ("setp.lt.TY %p6, A, B;\n setp.eq.TY %p7, A, 0;\n xor.pred %p6, %p6, %p7;\n"
                 " @%p5 selp.TY D, A, B, %p6;", isa.FK_SELP, b),
        "pred": ("setp.lt.TY %p6, A, B;\n setp.eq.TY %p7, B, 0;\n or.pred %p6, %p6, %p7;\n"
                 " setp.eq.TY %p2, A, B;\n setp.lt.TY %p3, A, 0;\n xor.pred %p4, %p2, %p3;\n not.pred %p4, %p4;\n"
                 " and.pred %p6, %p6, %p4;\n @%p5 selp.TY D, 1, 0, %p6;", isa.FK_PAND, b),
    }
    for name, want in rows:
        body, kind, second = bodies[name]
        body = (guard + body).replace("BTY", "b" + t[1:]).replace("TY", t)
        tb = "u32" if name == "shr" else t
        code = op_code(body, t, tb, None, t)
        assert kind in code[:, isa.F_FAST], name
        ops = code[:, isa.F_OP]
        covered = np.isin(ops, [isa.OP_MIN, isa.OP_MAX, isa.OP_SHR, isa.OP_SELP, isa.OP_NOT]) | (
            np.isin(ops, [isa.OP_AND, isa.OP_OR, isa.OP_XOR]) & (code[:, isa.F_TYPE] == isa.T_PRED))
        assert (code[covered, isa.F_FAST] != isa.FK_NONE).all(), name
        with np.errstate(over="ignore"):
            expect = np.where(on, want(), dt(7)).astype(dt)
        np.testing.assert_array_equal(run_op(body, t, a, tb, second), expect, err_msg=name)

def memory_kernel(regs32: int, regs64: int, shared_bytes: int, body: str, preds: int = 0) -> str:
    """A kernel k(in32, in64, out32, out64) whose pointers are in %rd1-%rd4
    and whose shared array ``sh`` is 8-byte aligned (``preds``: predicate
    registers %p0 up)."""
    pred = f" .reg .pred %p<{preds}>;\n" if preds else ""
    return f"""
.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p_in32, .param .u64 p_in64, .param .u64 p_out32, .param .u64 p_out64)
{{
{pred} .reg .b32 %r<{regs32}>;
 .reg .b64 %rd<{regs64}>;
 .shared .align 8 .b8 sh[{shared_bytes}];
 ld.param.u64 %rd1, [p_in32];
 ld.param.u64 %rd2, [p_in64];
 ld.param.u64 %rd3, [p_out32];
 ld.param.u64 %rd4, [p_out64];
{body}}}
"""


def run_memory_kernel(ptx: str, lane_addresses: bool, src32, src64, n32: int, n64: int, block: tuple):
    """Run :func:`memory_kernel` ``ptx`` on one block; return the outputs,
    block statistics and the trace's requests and lines."""
    from pipeline_lib.trace import MemorySink

    sink = MemorySink()
    dev = Device(sink=sink, lane_addresses=lane_addresses)
    mod = dev.load_module(ptx, source="memory.ptx")
    a, b = dev.to_device(src32), dev.to_device(src64)
    o32, o64 = dev.zeros(n32, np.int32), dev.zeros(n64, np.uint64)
    info = dev.launch(mod, "k", (1,), block, [a, b, o32, o64])
    (_, ch), = sink.chunks
    return dev.from_device(o32, np.int32, n32), dev.from_device(o64, np.uint64, n64), info.block_stats, ch.nreq, ch.lines


COALESCED = memory_kernel(8, 16, 768, """\
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd5, %r1, 4;
 mul.wide.u32 %rd6, %r1, 8;
 add.s64 %rd7, %rd1, %rd5;
 ld.global.s32 %r2, [%rd7];
 add.s64 %rd8, %rd2, %rd6;
 ld.global.u64 %rd9, [%rd8+8];
 mov.u64 %rd10, sh;
 add.s64 %rd11, %rd10, %rd6;
 st.shared.u64 [%rd11], %rd9;
 add.s64 %rd12, %rd10, %rd5;
 st.shared.u32 [%rd12+512], %r2;
 bar.sync 0;
 ld.shared.u64 %rd13, [%rd11];
 ld.shared.s32 %r3, [%rd12+512];
 add.s64 %rd14, %rd3, %rd5;
 st.global.u32 [%rd14+4], %r3;
 add.s64 %rd15, %rd4, %rd6;
 st.global.u64 [%rd15], %rd13;
 ret;
""")


@pytest.mark.parametrize("lanes", [False, True])
def test_coalesced_accesses_match_the_lane_by_lane_path(lanes):
    """Full warps accessing consecutive 4- and 8-byte words (the fast
    memory path's coalesced case, at offsets that start mid-line) give the
    values, requests and bank-conflict degrees of the general path, which
    ``lane_addresses`` forces."""
    src32 = np.arange(-32, 32, dtype=np.int32) * 1000003
    src64 = np.arange(65, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)

    def run(lane_addresses):
        return run_memory_kernel(COALESCED, lane_addresses, src32, src64, 66, 64, (64,))

    o32, o64, stats, nreq, lines = run(lanes)
    assert list(o32[1:65]) == list(src32) and o32[0] == 0 and o32[65] == 0
    assert (o64 == src64[1:]).all()
    ref = run(True)
    assert (stats == ref[2]).all() and (nreq == ref[3]).all() and (lines == ref[4]).all()
    assert set(nreq[nreq > 0]) >= {1, 2, 3}      # 8-byte shared words conflict two ways; 256 bytes mid-line span 3 lines


HALF_WARPS = memory_kernel(16, 40, 2048, """\
 mov.u32 %r1, %tid.x;
 mov.u32 %r2, %tid.y;
 mad.lo.u32 %r3, %r2, 16, %r1;
 mul.wide.u32 %rd5, %r1, 4;
 mul.wide.u32 %rd6, %r1, 8;
 mul.wide.u32 %rd7, %r2, 272;
 mul.wide.u32 %rd8, %r2, 160;
 mul.wide.u32 %rd9, %r3, 4;
 mul.wide.u32 %rd10, %r3, 8;
 mul.wide.u32 %rd11, %r2, 128;
 mul.wide.u32 %rd12, %r2, 64;
 mul.wide.u32 %rd13, %r2, 4;
 mov.u64 %rd14, sh;
 // global rows of 68 words, mid-line: each half-warp 16 consecutive words, the halves 272 bytes apart
 add.s64 %rd15, %rd1, %rd5;
 add.s64 %rd15, %rd15, %rd7;
 ld.global.s32 %r4, [%rd15+4];
 // 8-byte rows 160 bytes apart
 add.s64 %rd16, %rd2, %rd6;
 add.s64 %rd16, %rd16, %rd8;
 ld.global.u64 %rd17, [%rd16+8];
 // shared rows of 32 words: the halves' words share their banks
 add.s64 %rd18, %rd14, %rd5;
 add.s64 %rd18, %rd18, %rd11;
 st.shared.u32 [%rd18], %r4;
 // both halves store to the same 16 words (the later half wins), 8-byte words
 add.s64 %rd19, %rd14, %rd6;
 st.shared.u64 [%rd19+1024], %rd17;
 // each half stores one word (its last lane wins)
 add.s64 %rd20, %rd14, %rd13;
 st.shared.u32 [%rd20+1536], %r3;
 bar.sync 0;
 // one word per half-warp: words 32 apart (one bank, two ways) and 16 apart (no conflict)
 add.s64 %rd21, %rd14, %rd11;
 ld.shared.u32 %r5, [%rd21+8];
 add.s64 %rd22, %rd14, %rd12;
 ld.shared.u32 %r6, [%rd22+8];
 // both halves read the same 16 words, 4- and 8-byte
 ld.shared.u32 %r7, [%rd18+0];
 ld.shared.u32 %r8, [%rd18];
 add.s64 %rd23, %rd14, %rd5;
 ld.shared.s32 %r9, [%rd23+256];
 ld.shared.u64 %rd24, [%rd19+1024];
 ld.shared.u32 %r10, [%rd20+1536];
 // 8-byte word per half: two words 8 bytes apart
 add.s64 %rd25, %rd14, %rd13;
 add.s64 %rd25, %rd25, %rd13;
 ld.shared.u64 %rd26, [%rd25+1024];
 add.s64 %rd27, %rd3, %rd9;
 st.global.u32 [%rd27], %r5;
 st.global.u32 [%rd27+256], %r6;
 st.global.u32 [%rd27+512], %r8;
 st.global.u32 [%rd27+768], %r9;
 st.global.u32 [%rd27+1024], %r10;
 add.s64 %rd28, %rd4, %rd10;
 st.global.u64 [%rd28], %rd24;
 st.global.u64 [%rd28+512], %rd26;
 // strided: a field of 3-word records, a stride over a line (a line per lane); shared words 2 apart
 // (two ways) and 32 apart (one bank, 16 ways)
 mul.wide.u32 %rd30, %r3, 12;
 add.s64 %rd31, %rd1, %rd30;
 ld.global.s32 %r11, [%rd31+8];
 mul.wide.u32 %rd32, %r3, 136;
 add.s64 %rd33, %rd1, %rd32;
 ld.global.s32 %r14, [%rd33+4];
 add.s64 %rd34, %rd14, %rd10;
 ld.shared.u32 %r12, [%rd34];
 mul.wide.u32 %rd35, %r1, 128;
 add.s64 %rd36, %rd14, %rd35;
 ld.shared.u32 %r13, [%rd36+4];
 st.global.u32 [%rd27+1280], %r11;
 st.global.u32 [%rd27+1536], %r12;
 st.global.u32 [%rd27+1792], %r13;
 st.global.u32 [%rd27+2048], %r14;
 // global stores: each half one word (its last lane wins), 8 bytes apart
 add.s64 %rd29, %rd4, %rd13;
 add.s64 %rd29, %rd29, %rd13;
 st.global.u64 [%rd29+1024], %rd10;
 ret;
""")


@pytest.mark.parametrize("lanes", [False, True])
def test_half_warp_rows_and_broadcasts_match_the_lane_by_lane_path(lanes):
    """16 x 16-style blocks, whose half-warps access a row each (16
    consecutive words, the halves apart, or both halves the same row) or a
    word each (a broadcast), and strided accesses (under and over a line),
    4- and 8-byte: the fast memory path gives the
    values, requests, bank-conflict degrees and, where lanes store to one
    word, the surviving value of the general path, which ``lane_addresses``
    forces."""
    src32 = np.arange(-1500, 1500, dtype=np.int32) * 1000003
    src64 = np.arange(100, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)

    def run(lane_addresses):
        return run_memory_kernel(HALF_WARPS, lane_addresses, src32, src64, 640, 140, (16, 4))

    o32, o64, stats, nreq, lines = run(lanes)
    tid = np.arange(64)
    tx, ty = tid % 16, tid // 16
    np.testing.assert_array_equal(o32[:64], src32[3 + 68 * ty])          # one word per half-warp
    np.testing.assert_array_equal(o32[128:192], src32[1 + tx + 68 * ty])  # rows through shared memory
    np.testing.assert_array_equal(o32[256:320], 16 * ty + 15)           # 16 lanes store to one word: the last
    np.testing.assert_array_equal(o32[320:384], src32[3 * tid + 2])     # strided
    np.testing.assert_array_equal(o32[512:576], src32[34 * tid + 1])
    np.testing.assert_array_equal(o64[:64], src64[61 + tx])             # both halves store one row: the later
    np.testing.assert_array_equal(o64[64:128], src64[61 + ty])
    np.testing.assert_array_equal(o64[128:132], (16 * np.arange(4) + 15) * 8)
    ref = run(True)
    for got, want in zip((o32, o64, stats, nreq, lines), ref):
        np.testing.assert_array_equal(got, want)
    # the shared loads' bank-conflict degrees: two words of one bank, and words of distinct banks
    assert set(nreq[nreq > 0]) >= {1, 2, 16, 32}    # 16 ways in one bank; 32 lines, one per lane


UNIFORM = memory_kernel(8, 16, 8, """\
 mov.u32 %r1, %tid.x;
 ld.global.s32 %r2, [%rd1+260];
 ld.global.u64 %rd5, [%rd2+384];
 mul.wide.u32 %rd6, %r1, 4;
 add.s64 %rd7, %rd3, %rd6;
 st.global.u32 [%rd7], %r2;
 mul.wide.u32 %rd8, %r1, 8;
 add.s64 %rd9, %rd4, %rd8;
 st.global.u64 [%rd9], %rd5;
 ret;
""")


@pytest.mark.parametrize("lanes", [False, True])
def test_a_global_word_read_by_every_lane_is_one_request(lanes):
    """A full warp loading one global word (4 and 8 bytes: the coalesced
    path's own case for it) gets that word in every lane, one request and
    the word's line, as on the general path that ``lane_addresses`` forces;
    a partly allocated line still goes lane by lane and faults there."""
    src32 = np.arange(-40, 40, dtype=np.int32) * 1000003
    src64 = np.arange(60, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)

    def run(lane_addresses):
        return run_memory_kernel(UNIFORM, lane_addresses, src32, src64, 64, 64, (64,))

    o32, o64, stats, nreq, lines = run(lanes)
    assert (o32 == src32[65]).all() and (o64 == src64[48]).all()
    loads = np.flatnonzero(nreq > 0)[4:6]     # after the four ld.param: the first warp's two loads
    assert (nreq[loads] == 1).all()
    ref = run(True)
    for got, want in zip((o32, o64, stats, nreq, lines), ref):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(Exception, match=r"out-of-bounds access .* lane 0, pc 5"):
        run_memory_kernel(UNIFORM, lanes, src32[:64], src64, 64, 64, (64,))


GATHER = memory_kernel(8, 16, 8, """\
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd5, %r1, 4;
 add.s64 %rd6, %rd1, %rd5;
 ld.global.u32 %r2, [%rd6];
 mul.wide.u32 %rd7, %r2, 4;
 add.s64 %rd8, %rd1, %rd7;
 ld.global.s32 %r3, [%rd8];
 add.s64 %rd9, %rd3, %rd5;
 st.global.u32 [%rd9], %r3;
 ret;
""")


@pytest.mark.parametrize("lanes", [False, True])
def test_gathered_lines_are_recorded_sorted_and_distinct(lanes):
    """A gather whose lanes touch lines in no order, with a line repeated
    by lanes far apart and by neighbours: the trace records each line once,
    in increasing order (emulator.sort_lines), on the lane-by-lane path and
    on the general path that ``lane_addresses`` forces; lanes already in
    increasing line order too."""
    for order in ((np.arange(32) * 13) % 32, np.arange(32)):
        idx = (32 + order * 32 + order % 7).astype(np.int32)   # lane l reads a word of line 1 + order[l]
        idx[20] = idx[5]            # the same word, far apart
        idx[11] = idx[10] + 1       # the same line, neighbours
        idx[27] = idx[3] + 2        # the same line, far apart
        src32 = np.arange(32 * 34, dtype=np.int32) * 7
        src32[:32] = idx
        o32, _, _, nreq, lines = run_memory_kernel(GATHER, lanes, src32, np.zeros(1, np.uint64), 32, 1, (32,))
        np.testing.assert_array_equal(o32, src32[idx])
        first, gather, _ = np.flatnonzero(nreq > 0)[4:]   # after the four ld.param: the indices, the gather, the store
        assert nreq[first] == 1      # the indices: one line, the array's first
        base = lines[0]
        want = np.unique((base + 4 * idx.astype(np.int64)) & ~127)
        assert nreq[gather] == len(want) == 29
        np.testing.assert_array_equal(lines[1:1 + nreq[gather]], want)


GUARDED_GATHER = memory_kernel(8, 16, 8, """\
 mov.u32 %r1, %tid.x;
 and.b32 %r4, %r1, 3;
 setp.ne.u32 %p1, %r4, 3;
 mul.wide.u32 %rd5, %r1, 4;
 add.s64 %rd6, %rd1, %rd5;
 ld.global.u32 %r2, [%rd6];
 mov.u32 %r3, 99;
 mul.wide.s32 %rd7, %r2, 4;
 add.s64 %rd8, %rd1, %rd7;
 @%p1 ld.global.s32 %r3, [%rd8];
 add.s64 %rd9, %rd3, %rd5;
 st.global.u32 [%rd9], %r3;
 ret;
""", preds=2)


def test_guarded_gather_keeps_the_lanes_turned_off_and_checks_partly_allocated_lines():
    """The fast path's gather of 4-byte words (emulator.fast_mem) with a
    guard that turns every fourth lane off, whose addresses lie far below
    the buffer: the lanes turned off keep their register and do not fault,
    and values, requests and lines are the general path's
    (``lane_addresses``). The buffer's last line is allocated in part (72
    words): a lane reading a word of it that is allocated passes the byte
    shadow's check and reads it; a lane reading past the allocation on that
    line faults, and the error names it."""
    from pipeline_lib.ptx import EmulationError

    words = (np.arange(72, dtype=np.int32) - 36) * 1000003   # the first 32 become the indices

    def run(idx, lane_addresses):
        src32 = words.copy()
        src32[:32] = idx
        return run_memory_kernel(GUARDED_GATHER, lane_addresses, src32, np.zeros(1, np.uint64), 32, 1, (32,))

    on = np.arange(32) % 4 != 3
    scattered = np.where(on, 32 + (np.arange(32) * 13) % 32 % 30, -1000).astype(np.int32)
    for lane2 in (40, 70):             # every active lane on a whole line; lane 2 on the part-allocated one
        idx = scattered.copy()
        idx[2] = lane2
        o32, _, stats, nreq, lines = run(idx, False)
        np.testing.assert_array_equal(o32, np.where(on, words[np.clip(idx, 0, 71)], 99))
        ref = run(idx, True)
        assert (stats == ref[2]).all() and (nreq == ref[3]).all() and (lines == ref[4]).all()
    idx = scattered.copy()
    idx[2], idx[6] = 70, 73            # lane 6 past the allocation, on its last line
    with pytest.raises(EmulationError, match=r"out-of-bounds .* lane 6"):
        run(idx, False)


def test_immediates_of_the_fast_alu_paths_come_from_rows_of_the_register_file():
    """An immediate operand of an ALU fast-path row is read from a row past
    the warps' registers that holds it in every lane (emulator.immediate_rows):
    the row's value column becomes the row's offset, each immediate gets its
    own row, and rows of the other paths keep their immediates."""
    from pipeline_lib.ptx.emulator import immediate_rows
    body = ("mad.lo.s32 %r20, A, 3, -7;\n selp.s32 %r21, 11, A, %p1;\n add.s32 %r22, %r20, 1000;\n"
            " mul.lo.s32 %r23, %r21, -3;\n add.s32 %r24, %r22, %r23;\n bfe.u32 %r25, A, 4, 8;\n"
            " add.s32 %r24, %r24, %r25;\n xor.b32 D, %r24, 0x5a5a;")
    code = op_code(body, "s32", None, None, "s32")
    base = 4096
    new, values = immediate_rows(code, base)
    alu = (code[:, isa.F_FAST] > isa.FK_NONE) & (code[:, isa.F_FAST] < isa.FK_LD_GLOBAL)
    seen = []
    for pc in range(len(code)):
        for k in range(3):
            kind, v = code[pc, isa.F_SK0 + 2 * k], code[pc, isa.F_SV0 + 2 * k]
            if kind == isa.K_IMM and alu[pc]:
                off = new[pc, isa.F_SV0 + 2 * k]
                assert (off - base) % 32 == 0 and values[(off - base) // 32] == v
                seen.append(off)
    assert sorted(seen) == [base + 32 * i for i in range(len(values))] and len(values) >= 7
    changed = np.zeros(code.shape, bool)
    changed[:, isa.F_SV0:isa.F_SV0 + 6:2] = (code[:, isa.F_SK0:isa.F_SK0 + 6:2] == isa.K_IMM) & alu[:, None]
    np.testing.assert_array_equal(new[~changed], code[~changed])
    assert (code[~alu][:, isa.F_SK0:isa.F_SK0 + 8:2] == isa.K_IMM).any()   # bfe (general path) keeps its own
    # and the kernel computes with them: %p1 is "element index >= n", false for every element here
    a = ints(np.int32)
    with np.errstate(over="ignore"):
        x = a.astype(np.int64) * 3 - 7 + 1000 + (a.astype(np.int64) * -3) + ((a.view(np.uint32) >> 4) & 0xFF)
    want = (x.astype(np.int32) ^ np.int32(0x5A5A)).astype(np.int32)
    np.testing.assert_array_equal(run_op(body, "s32", a), want)


@njit
def _bits(xs):
    out = np.empty((len(xs), 2), np.int64)
    for i in range(len(xs)):
        out[i, 0] = popcount(xs[i])
        out[i, 1] = lowest_bit(xs[i])
    return out


def test_popcount_and_lowest_bit_intrinsics():
    """The bit intrinsics behind the per-instruction thread count and the
    walk over a memory instruction's active lanes, on masks of every
    shape, 32-bit lane masks and whole int64 words alike."""
    rng = np.random.default_rng(3)
    xs = np.concatenate([np.array([0, 1, 0xFFFFFFFF, 0x80000000, 1 << 62, -1, -(1 << 63)], np.int64),
                         rng.integers(-(1 << 63), (1 << 63) - 1, 200, dtype=np.int64),
                         rng.integers(0, 1 << 32, 200, dtype=np.int64)])
    got = _bits(xs)
    for x, (pop, low) in zip(xs, got):
        u = int(x) & ((1 << 64) - 1)
        assert pop == bin(u).count("1"), hex(u)
        assert low == ((u & -u).bit_length() - 1 if u else 64), hex(u)


@njit
def _prefetched_sum(a, idx):
    for i in idx:
        prefetch(a, i)
    s = 0
    for i in idx:
        if 0 <= i < len(a):
            s += a[i]
    return s


def test_prefetch_is_a_hint_that_cannot_fault():
    """The gathers prefetch every active lane's word before their checked
    loop, faulting lanes included: a prefetch of any index, far outside
    the array either way, must neither fault nor change what is read."""
    a = np.arange(1000, dtype=np.uint32)
    idx = np.array([5, -1, 999, 1 << 40, -(1 << 40), 1 << 62, 7, -(1 << 63)], np.int64)
    assert _prefetched_sum(a, idx) == 5 + 999 + 7


@njit
def _sorted_lines(lines, ms):
    buf = np.zeros(32, np.int64)      # as run_blocks allocates the line list
    out = np.full((len(ms), 33), -1, np.int64)
    for k in range(len(ms)):
        for i in range(ms[k]):
            buf[i] = lines[k, i]
        n = sort_lines(buf, ms[k])
        out[k, 0] = n
        for i in range(n):
            out[k, 1 + i] = buf[i]
    return out


@njit
def _sort_networks(x):
    out = np.empty((3, len(x)), np.int64)
    for r in range(3):
        out[r] = x
    sort8(out[0])
    sort16(out[1])
    sort32(out[2])
    return out


def test_sorting_networks_and_the_line_lists_they_sort():
    """The vector sorting networks sort the first 8, 16 or 32 of any int64
    values (negative, repeated, extreme) and leave the rest; sort_lines, which pads a line list with the largest
    int64 before it, gives np.unique of the list for every length up to 32,
    in order or not, with repeats near and far."""
    rng = np.random.default_rng(5)
    for x in (rng.integers(-(1 << 63), (1 << 63) - 1, 32, dtype=np.int64), rng.integers(-3, 3, 32),
              np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min] * 16), np.arange(32)[::-1].copy()):
        x = x.astype(np.int64)
        got = _sort_networks(np.concatenate([x, [7, 7]]))
        for r, w in enumerate((8, 16, 32)):
            np.testing.assert_array_equal(got[r, :w], np.sort(x[:w]))
            np.testing.assert_array_equal(got[r, w:], np.concatenate([x[w:], [7, 7]]))
    ms = np.concatenate([np.arange(1, 33), rng.integers(1, 33, 300)]).astype(np.int64)
    lines = (rng.integers(0, 40, (len(ms), 32)) * 128 + (1 << 45)).astype(np.int64)
    lines[:32] = np.sort(lines[:32], axis=1)          # in order, repeats included
    got = _sorted_lines(lines, ms)
    for k, m in enumerate(ms):
        want = np.unique(lines[k, :m])
        assert got[k, 0] == len(want), (k, m)
        np.testing.assert_array_equal(got[k, 1:1 + len(want)], want)


@njit
def _bitcasts(f, d, v):
    out = np.empty((len(f), 4), np.int64)
    back = np.empty((len(f), 2), np.float64)
    for i in range(len(f)):
        out[i, 0] = bits_of_f32(f[i])
        out[i, 1] = bits_of_f64(d[i])
        back[i, 0] = f32_of_bits(v[i])
        back[i, 1] = f64_of_bits(v[i])
        out[i, 2] = bits_of_f32(f32_of_bits(v[i]))
        out[i, 3] = bits_of_f64(f64_of_bits(v[i]))
    return out, back


def test_float_bit_casts():
    """The atomics' float bit casts: an f32's bits zero-extended, an f64's
    as they are, and back from the low 32 or all 64 bits of an integer,
    NaN payloads, signed zeros, subnormals and infinities kept."""
    f = np.array([0.0, -0.0, 1.5, -2.5e-41, np.inf, -np.inf, np.nan, 3.4e38], np.float32)
    f[6] = np.uint32(0xFFC00123).view(np.float32)
    d = np.array([0.0, -0.0, 1.5, -5e-324, np.inf, -np.inf, np.nan, 1e308])
    d[6] = np.uint64(0x7FF8000000000ABC).view(np.float64)
    v = np.array([0, 1 << 31, 0x7F800001, (5 << 40) | 0x3FC00000, -1, 0x4000000000000000, 0x7FF0000000000001,
                  -(1 << 63)], np.int64)
    out, back = _bitcasts(f, d, v)
    np.testing.assert_array_equal(out[:, 0], f.view(np.uint32).astype(np.int64))
    np.testing.assert_array_equal(out[:, 1], d.view(np.int64))
    np.testing.assert_array_equal(out[:, 2], v & 0xFFFFFFFF)
    np.testing.assert_array_equal(out[:, 3], v)
    np.testing.assert_array_equal(np.float32(back[2, 0]), np.uint32(0x7F800001).view(np.float32))
    assert back[3, 0] == 1.5 and back[5, 1] == 2.0 and np.signbit(back[1, 0]) and back[7, 1] == 0.0
