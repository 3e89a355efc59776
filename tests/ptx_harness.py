"""Build tiny PTX kernels around one instruction and run them on the emulator.

``run_op("add.s32 D, A, B;", "s32", a, b)`` loads A, B (and C) from global
arrays, one element per thread, runs the instruction text (with D, A, B, C,
P, Q replaced by registers of the right width) and stores D.
"""
import numpy as np

from pipeline_lib.ptx import Device, isa

_REG = {  # (kind, size) -> register names for A, B, C, D
    ("b", 1): ("%h1", "%h2", "%h3", "%h4"), ("b", 2): ("%h1", "%h2", "%h3", "%h4"),
    ("b", 4): ("%r11", "%r12", "%r13", "%r14"), ("b", 8): ("%rd11", "%rd12", "%rd13", "%rd14"),
    ("f", 4): ("%f1", "%f2", "%f3", "%f4"), ("f", 8): ("%fd1", "%fd2", "%fd3", "%fd4"),
}
NP = {"u8": np.uint8, "s8": np.int8, "u16": np.uint16, "s16": np.int16, "u32": np.uint32, "s32": np.int32,
      "b32": np.uint32, "u64": np.uint64, "s64": np.int64, "b64": np.uint64, "f32": np.float32, "f64": np.float64}


def _regs(t):
    size = np.dtype(NP[t]).itemsize
    return _REG[("f" if t[0] == "f" else "b", size)]


def _ldtype(t):
    return {"s8": "s8", "u8": "u8"}.get(t, t)


def op_kernel(body: str, ta: str, tb: str | None, tc: str | None, td: str) -> str:
    ra, rb, rc, rd = _regs(ta)[0], _regs(tb)[1] if tb else None, _regs(tc)[2] if tc else None, _regs(td)[3]
    text = body.replace("D", rd).replace("A", ra)
    if rb:
        text = text.replace("B", rb)
    if rc:
        text = text.replace("C", rc)
    lines = []
    for i, (t, r, p) in enumerate(((ta, ra, 2), (tb, rb, 3), (tc, rc, 4))):
        if t is None:
            continue
        size = np.dtype(NP[t]).itemsize
        lines.append(f"mul.wide.s32 %rd{20 + i}, %r4, {size};\n add.s64 %rd{20 + i}, %rd{p}, %rd{20 + i};\n"
                     f" ld.global.{_ldtype(t)} {r}, [%rd{20 + i}];")
    dsize = np.dtype(NP[td]).itemsize
    return f"""
.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, .param .u64 p_c, .param .u32 p_n)
{{
 .reg .pred %p<8>;
 .reg .b16 %h<8>;
 .reg .b32 %r<32>;
 .reg .b64 %rd<32>;
 .reg .f32 %f<8>;
 .reg .f64 %fd<8>;
 ld.param.u64 %rd1, [p_out];
 ld.param.u64 %rd2, [p_a];
 ld.param.u64 %rd3, [p_b];
 ld.param.u64 %rd4, [p_c];
 ld.param.u32 %r5, [p_n];
 mov.u32 %r1, %tid.x;
 mov.u32 %r2, %ctaid.x;
 mov.u32 %r3, %ntid.x;
 mad.lo.s32 %r4, %r2, %r3, %r1;
 setp.ge.s32 %p1, %r4, %r5;
 @%p1 bra $DONE;
 {chr(10).join(lines)}
 {text}
 mul.wide.s32 %rd25, %r4, {dsize};
 add.s64 %rd25, %rd1, %rd25;
 st.global.{td} [%rd25], {rd};
$DONE:
 ret;
}}
"""


def op_code(body, ta, tb=None, tc=None, td=None) -> np.ndarray:
    """The decoded code table of :func:`run_op`'s kernel (one row per instruction)."""
    return Device().load_module(op_kernel(body, ta, tb, tc, td or ta), source="<test>").kernel("k").code


def run_op(body, ta, a, tb=None, b=None, tc=None, c=None, td=None, fast_off=()):
    """Run ``body`` on one thread per element of ``a`` (and ``b``, ``c``) and
    return D.  ``fast_off``: fast kinds (``isa.FK_*``) whose rows are sent
    down the general path instead, to compare a fast path with it."""
    td = td or ta
    n = len(a)
    dev = Device()
    mod = dev.load_module(op_kernel(body, ta, tb, tc, td), source="<test>")
    if fast_off:
        code = mod.kernel("k").code
        code[np.isin(code[:, isa.F_FAST], fast_off), isa.F_FAST] = isa.FK_NONE
    bufs = [dev.to_device(np.asarray(x, NP[t])) if t else dev.zeros(1, np.uint8)
            for t, x in ((ta, a), (tb, b), (tc, c))]
    out = dev.zeros(n, NP[td])
    dev.launch(mod, "k", ((n + 63) // 64,), (64,), [out, *bufs, n])
    return dev.from_device(out, NP[td], n)

