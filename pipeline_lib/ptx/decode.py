"""Decode parsed PTX kernels into the emulator's integer instruction arrays.

Besides the instruction rows (layout in :mod:`pipeline_lib.ptx.isa`) this
builds the control-flow graph, its basic blocks (used for basic-block vectors)
and the immediate post-dominator of every block, which gives the
reconvergence PC of every branch (SIMT stack, as in GPGPU-Sim and GPUOcelot).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import isa
from .parser import Kernel, Module, Operand, PTXError, Statement, parse_int

__all__ = ["DecodedKernel", "decode_kernel", "immediate_postdominators"]


@dataclass
class DecodedKernel:
    name: str
    code: np.ndarray            # int64 [n_instr, NFIELDS]
    n_regs: int                 # emulator register slots (PTX virtual registers)
    reg_names: list[str]
    param_bytes: int
    params: list                # (name, type, offset)
    shared_static: int          # bytes of static shared memory
    has_dynamic_shared: bool
    local_bytes: int            # per-thread local memory (bytes)
    texts: list[str]            # PTX text per PC
    lines: np.ndarray           # PTX source line per PC
    bb_of_pc: np.ndarray        # basic-block id per PC
    bb_start: np.ndarray        # first PC of every basic block
    source: str
    regs_per_thread: int        # physical estimate (from ptxas info when given)

    @property
    def n_instr(self) -> int:
        return len(self.code)


_CMP_OPS = set(isa.CMP)
_ROUND = {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "approx", "full"}
_IGNORED_MODS = {"sync", "aligned", "uni", "nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt",
                 "relaxed", "acquire", "release", "acq_rel", "sc", "gpu", "cta", "sys",
                 "L1::no_allocate", "L2::128B", "L2::64B", "L2::256B", "noftz", "volatile",
                 "weak", "b", "L1", "L2", "128B"}


def _float_bits(text: str, size: int) -> int:
    t = text.strip()
    neg = t.startswith("-")
    body = t[1:] if neg else t
    if body[:2].lower() == "0f":
        bits = int(body[2:], 16)
        if size == 8:  # widen an f32 literal used for a 64-bit operand
            bits = int(np.array(bits, np.uint32).view(np.float32).astype(np.float64).view(np.uint64))
        return bits ^ ((1 << (8 * size - 1)) if neg else 0)
    if body[:2].lower() == "0d":
        bits = int(body[2:], 16)
        if size == 4:
            bits = int(np.array(bits, np.uint64).view(np.float64).astype(np.float32).view(np.uint32))
        return bits ^ ((1 << (8 * size - 1)) if neg else 0)
    v = float(t)
    if size == 4:
        return int(np.array(v, np.float32).view(np.uint32))
    return int(np.array(v, np.float64).view(np.uint64))


def _canon_int(v: int, t: int) -> int:
    size = t & 15
    kind = t >> 4
    bits = 8 * size
    v &= (1 << bits) - 1
    if kind == isa.TK_S and v >> (bits - 1):
        v -= 1 << bits
    elif kind != isa.TK_S and bits == 64 and v >> 63:
        v -= 1 << 64  # keep the bit pattern in an int64
    return v


class _Ctx:
    def __init__(self, kernel: Kernel, symbols: dict, source: str, module_shared=()):
        self.k = kernel
        self.source = source
        self.reg_index: dict[str, int] = {}
        self.reg_names: list[str] = []
        for name in kernel.regs:
            self.reg_index[name] = len(self.reg_names)
            self.reg_names.append(name)
        self.symbols = dict(symbols)        # name -> (space, address)
        for name, _t, off in kernel.params:
            self.symbols[name] = (isa.SP_PARAM, off)
        shared = 0
        dyn = False
        local = 0
        # module-scope .shared arrays (nvcc puts `extern __shared__` there) are
        # laid out for each kernel like its own
        variables = [v for v in module_shared] + list(kernel.variables)
        for v in variables:
            if v.space == "shared":
                if v.extern or v.count == 0:
                    dyn = True
                    continue
                shared = (shared + v.align - 1) // v.align * v.align
                self.symbols[v.name] = (isa.SP_SHARED, shared)
                shared += v.nbytes
            elif v.space == "local":
                local = (local + v.align - 1) // v.align * v.align
                self.symbols[v.name] = (isa.SP_LOCAL, local)
                local += v.nbytes
            else:
                raise PTXError(f"unsupported kernel-scope .{v.space} variable", source,
                               kernel.line, v.name, kernel.name)
        for v in variables:  # dynamic shared memory starts after the static part
            if v.space == "shared" and (v.extern or v.count == 0):
                self.symbols[v.name] = (isa.SP_SHARED, (shared + 15) // 16 * 16)
        self.shared = shared
        self.dyn_shared = dyn
        self.local = local

    def err(self, st: Statement, msg: str):
        return PTXError(msg, self.source, st.line, st.text, self.k.name)

    def reg(self, st, op: Operand) -> int:
        if op.kind != "reg":
            what = {"vec": "a vector {..}", "imm": "an immediate", "mem": "an address [..]",
                    "sym": f"the symbol {op.name}", "pair": "a predicate pair"}.get(op.kind, op.kind)
            raise self.err(st, f"expected a register, got {what}")
        if op.name not in self.reg_index:
            raise self.err(st, f"undeclared register {op.name}")
        return self.reg_index[op.name]

    def src(self, st, op: Operand, t: int):
        """(kind, value) of a source operand read as type t."""
        if op.kind == "reg":
            if op.name in isa.SPECIAL:
                return isa.K_SPECIAL, isa.SPECIAL[op.name]
            if op.name in self.reg_index:
                return (isa.K_NREG if op.neg else isa.K_REG), self.reg_index[op.name]
            raise self.err(st, f"undeclared register or unsupported special register {op.name}")
        if op.kind == "imm":
            txt = op.name
            is_float_lit = txt.lstrip("-")[:2].lower() in ("0f", "0d") or (
                "." in txt or ("e" in txt.lower() and not txt.lower().startswith(("0x", "-0x"))))
            if (t >> 4) == isa.TK_F or is_float_lit:
                size = t & 15 if (t & 15) in (4, 8) else 4
                bits = _float_bits(txt, size)
                return isa.K_IMM, _canon_int(bits, isa.tcode(isa.TK_U, size))
            return isa.K_IMM, _canon_int(parse_int(txt), t)
        if op.kind == "sym":
            if op.name not in self.symbols:
                raise self.err(st, f"unknown symbol {op.name}")
            _space, addr = self.symbols[op.name]
            return isa.K_IMM, addr + op.offset
        raise self.err(st, f"unsupported source operand ({op.kind})")


def _types_in(mods):
    return [m for m in mods if m in isa.TYPES]


def _blank_row(line: int) -> np.ndarray:
    """An instruction row with no operands: -1 in the register/target
    columns, neutral values elsewhere."""
    row = isa.EMPTY_ROW.copy()
    for f in ("rnd", "sub", "flags", "nd", "ns", "gneg", "aoff"):
        row[isa.F[f]] = 0
    row[isa.F_SPACE] = isa.SP_NONE
    row[isa.F_VEC] = 1
    row[isa.F_LINE] = line
    return row


# Operand counts per opcode (destinations and sources together), from the PTX
# ISA's instruction descriptions; checked before decoding so that a missing or
# extra operand is an error rather than a silently read register.
_ARITY = {
    **{op: (2,) for op in ("abs", "neg", "not", "cnot", "popc", "clz", "brev", "rcp", "sqrt", "rsqrt",
                           "sin", "cos", "lg2", "ex2", "tanh", "mov", "cvt", "cvta", "ld", "st")},
    **{op: (3,) for op in ("add", "sub", "min", "max", "and", "or", "xor", "div", "rem", "copysign",
                           "mul", "shl", "shr", "vote")},
    **{op: (4,) for op in ("mad", "fma", "bfe", "selp", "slct", "prmt")},
    "bfi": (5,), "setp": (3, 4), "atom": (3, 4), "red": (2,), "shfl": (5,), "activemask": (1,),
    "bar": (0, 1, 2), "bra": (1,), "ret": (0,), "exit": (0,), "membar": (0,), "testp": (2,),
}
_HALF_TYPES = ("f16", "f16x2", "bf16", "bf16x2", "e4m3x2", "e5m2x2", "tf32")


def _check_operands(st: Statement, ctx: "_Ctx", opname: str) -> None:
    """Operand count and the kinds a decoder cannot recover from."""
    half = [m for m in st.mods if m in _HALF_TYPES]
    if half:
        raise ctx.err(st, f"unsupported instruction: half-precision and narrow floating point "
                          f"(.{half[0]}) arithmetic is not supported")
    want = _ARITY.get(opname)
    n = len(st.operands)
    if want is not None and n not in want:
        plural = "s" if want[-1] != 1 else ""
        raise ctx.err(st, f"'{st.opcode}' takes {' or '.join(map(str, want))} operand{plural}, got {n}")
    if opname == "mov" and any(o.kind == "vec" for o in st.operands):
        raise ctx.err(st, "unsupported instruction: mov packing or unpacking a vector {a, b} "
                          "(nvcc emits it for double-precision exp, log and pow) is not supported")
    if opname not in ("ld", "st", "atom", "red"):
        for i, o in enumerate(st.operands):
            if o.kind == "mem":
                raise ctx.err(st, f"operand {i + 1} of '{st.opcode}' is an address [..]; "
                                  f"only ld, st, atom and red take one")
    if opname in ("ld", "atom") and st.operands[0].kind not in ("reg", "vec", "pair"):
        raise ctx.err(st, f"the destination of '{st.opcode}' must be a register")


_KNOWN_MODS = set(isa.TYPES) | _ROUND | _IGNORED_MODS | {"ftz", "sat"}
_ALU_OPS = ("add", "sub", "min", "max", "and", "or", "xor", "div", "rem", "copysign",
            "mul", "mad", "fma", "abs", "neg", "not", "cnot", "popc", "clz", "brev",
            "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "mov",
            "shl", "shr", "bfe", "bfi", "prmt", "selp", "slct", "testp")
_ALU_MODS = ("lo", "hi", "wide", "relu", "NaN", "xorsign", "abs", "finite", "infinite", "number", "notanumber",
             "normal", "subnormal")
_SPACES = ("global", "shared", "local", "const", "param")


class _Row:
    """One statement's code-table row (isa.F_*) while it is decoded, with
    the statement's modifiers, types and operands."""

    def __init__(self, st: Statement, ctx: _Ctx, opname: str, labels: dict):
        self.st, self.ctx, self.opname, self.labels = st, ctx, opname, labels
        self.mods = list(st.mods)
        self.types = _types_in(self.mods)
        self.ops = st.operands
        self.row = _blank_row(st.line)

    def err(self, msg: str) -> PTXError:
        return self.ctx.err(self.st, msg)

    def need_type(self, n: int = 1) -> list[int]:
        if len(self.types) < n:
            raise self.err("missing or unsupported type modifier")
        return [isa.TYPES[t] for t in self.types]

    def set_srcs(self, opnds, ts) -> None:
        if len(opnds) > 4:
            raise self.err("too many source operands")
        for i, (o, t) in enumerate(zip(opnds, ts)):
            k, v = self.ctx.src(self.st, o, t)
            self.row[isa.F_SK0 + 2 * i] = k
            self.row[isa.F_SV0 + 2 * i] = v
        self.row[isa.F_NS] = len(opnds)

    def set_dst(self, o: Operand, k: int = 0) -> None:
        self.row[isa.F_D0 + k] = self.ctx.reg(self.st, o)
        self.row[isa.F_ND] = max(self.row[isa.F_ND], k + 1)

    def set_dst_or_pair(self, o: Operand) -> None:
        if o.kind == "pair":
            self.set_dst(o.parts[0], 0)
            self.set_dst(o.parts[1], 1)
        else:
            self.set_dst(o)


def _decode_alu(r: _Row) -> int:
    """Integer, float and predicate arithmetic, mov, selp and slct."""
    row, mods, types, ops, opname = r.row, r.mods, r.types, r.ops, r.opname
    t = r.need_type()[-1]
    row[isa.F_TYPE] = t
    for m in mods:
        if m not in _KNOWN_MODS and m not in _ALU_MODS:
            raise r.err(f"unsupported modifier .{m}")
    if opname in ("mul", "mad"):
        row[isa.F_SUB] = isa.MUL_HI if "hi" in mods else isa.MUL_WIDE if "wide" in mods else isa.MUL_LO
    if opname == "testp":
        raise r.err("testp is not supported")
    r.set_dst(ops[0])
    st_types = [t] * (len(ops) - 1)
    if opname in ("shl", "shr"):
        st_types[1] = isa.T_U32
    elif opname == "bfe":
        st_types[1:] = [isa.T_U32, isa.T_U32]
    elif opname == "bfi":
        st_types[2:] = [isa.T_U32, isa.T_U32]
    elif opname == "selp":
        st_types[2] = isa.T_PRED
    elif opname == "slct":
        row[isa.F_TYPE] = isa.TYPES[types[0]]
        row[isa.F_TYPE2] = isa.TYPES[types[1]]
        st_types = [isa.TYPES[types[0]]] * 2 + [isa.TYPES[types[1]]]
    elif opname == "prmt":
        if any(m in mods for m in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")):
            raise r.err("prmt modes are not supported")
    r.set_srcs(ops[1:], st_types)
    if t >> 4 == isa.TK_F:
        if opname in ("rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh") or (
                opname == "div" and (t & 15) == 4):
            return isa.OC["sfu"]
        return isa.OC["fp64"] if (t & 15) == 8 else isa.OC["fp32"]
    if opname in ("mul", "mad", "div", "rem"):
        return isa.OC["int_mul"]
    return isa.OC["int"]


def _decode_cvt(r: _Row) -> int:
    ts = r.need_type(2)
    r.row[isa.F_TYPE], r.row[isa.F_TYPE2] = ts[0], ts[1]
    r.set_dst(r.ops[0])
    r.set_srcs(r.ops[1:2], [ts[1]])
    f64 = [(t >> 4) == isa.TK_F and (t & 15) == 8 for t in ts[:2]]
    if (ts[0] >> 4) == isa.TK_F or (ts[1] >> 4) == isa.TK_F:
        return isa.OC["fp64"] if any(f64) else isa.OC["fp32"]
    return isa.OC["int"]


def _decode_cvta(r: _Row) -> int:
    t = r.need_type()[-1]
    r.row[isa.F_TYPE] = t
    space = next((m for m in r.mods if m in _SPACES), None)
    if space is None:
        raise r.err("cvta without a state space")
    r.row[isa.F_SPACE] = isa.SP[space]
    r.row[isa.F_SUB] = 1 if "to" in r.mods else 0
    r.set_dst(r.ops[0])
    r.set_srcs(r.ops[1:2], [t])
    return isa.OC["int"]


def _decode_setp(r: _Row) -> int:
    cmp = [m for m in r.mods if m in _CMP_OPS]
    if not cmp:
        raise r.err("setp without a comparison")
    t = r.need_type()[-1]
    r.row[isa.F_TYPE] = t
    r.row[isa.F_SUB] = isa.CMP[cmp[0]]
    bop = [m for m in r.mods if m in ("and", "or", "xor")]
    r.row[isa.F_TYPE2] = isa.BOOL[bop[0]] if bop else 0
    r.set_dst_or_pair(r.ops[0])
    r.set_srcs(r.ops[1:], [t, t, isa.T_PRED])
    return isa.OC["fp64"] if t == isa.T_F64 else isa.OC["fp32"] if t == isa.T_F32 else isa.OC["int"]


def _decode_memory(r: _Row) -> int:
    """ld, st, atom and red: state space, vector width, data operands and
    the address (register + offset, absolute, or a module variable)."""
    row, mods, ops, opname = r.row, r.mods, r.ops, r.opname
    row[isa.F_SPACE] = isa.SP[next((m for m in mods if m in _SPACES), "generic")]
    vec = next((int(m[1:]) for m in mods if m in ("v2", "v4", "v8")), 1)
    row[isa.F_VEC] = vec
    t = r.need_type()[-1]
    row[isa.F_TYPE] = t
    bad = [m for m in mods if m not in _KNOWN_MODS and m not in isa.ATOM and m not in _SPACES
           and m not in ("v2", "v4", "v8") and not m.startswith("L2::")]
    if bad:
        raise r.err(f"unsupported modifier .{bad[0]}")
    if opname == "ld":
        addr = ops[1]
        for k, o in enumerate(ops[0].parts if ops[0].kind == "vec" else [ops[0]]):
            r.set_dst(o, k)
        oc = isa.OC["load"]
    elif opname == "st":
        addr = ops[0]
        srcs = ops[1].parts if ops[1].kind == "vec" else [ops[1]]
        r.set_srcs(srcs, [t] * len(srcs))
        oc = isa.OC["store"]
    else:
        aop = [m for m in mods if m in isa.ATOM]
        if not aop:
            raise r.err("atomic without an operation")
        row[isa.F_SUB] = isa.ATOM[aop[0]]
        if opname == "atom":
            r.set_dst(ops[0])
            addr = ops[1]
            r.set_srcs(ops[2:], [t] * (len(ops) - 2))
        else:
            addr = ops[0]
            r.set_srcs(ops[1:], [t] * (len(ops) - 1))
        oc = isa.OC["atomic"]
    if addr.kind != "mem":
        raise r.err("expected an address operand [..]")
    if addr.name is None:
        row[isa.F_AOFF] = addr.offset
    elif addr.name in r.ctx.reg_index:
        row[isa.F_ABASE] = r.ctx.reg_index[addr.name]
        row[isa.F_AOFF] = addr.offset
    elif addr.name in r.ctx.symbols:
        _space, a = r.ctx.symbols[addr.name]
        row[isa.F_AOFF] = a + addr.offset
    else:
        raise r.err(f"unknown address base {addr.name}")
    return oc


def _decode_bar(r: _Row) -> int:
    mods, ops = r.mods, r.ops
    if not ({"sync"} & set(mods) or not mods or mods == ["cta"]) or "arrive" in mods or "red" in mods:
        raise r.err("only bar.sync / barrier.sync is supported")
    if len(ops) > 1:
        raise r.err("bar.sync with a thread count is not supported")
    if ops and not (ops[0].kind == "imm" and parse_int(ops[0].name) == 0):
        raise r.err("only barrier 0 is supported")
    return isa.OC["barrier"]


def _decode_bra(r: _Row) -> int:
    ops = r.ops
    if not ops or ops[0].kind != "sym" or ops[0].name not in r.labels:
        raise r.err("branch target is not a label of this kernel")
    r.row[isa.F_TARGET] = r.labels[ops[0].name]
    return isa.OC["branch"]


def _decode_warp(r: _Row) -> int:
    """shfl.sync, vote.sync and activemask."""
    row, mods, ops = r.row, r.mods, r.ops
    row[isa.F_TYPE] = isa.T_U32
    if r.opname == "shfl":
        mode = [m for m in mods if m in isa.SHFL]
        if "sync" not in mods or not mode:
            raise r.err("only shfl.sync.{up,down,bfly,idx}.b32 is supported")
        row[isa.F_SUB] = isa.SHFL[mode[0]]
        r.set_dst_or_pair(ops[0])
        r.set_srcs(ops[1:], [isa.T_U32] * 4)
    elif r.opname == "vote":
        mode = [m for m in mods if m in isa.VOTE]
        if "sync" not in mods or not mode:
            raise r.err("only vote.sync is supported")
        row[isa.F_SUB] = isa.VOTE[mode[0]]
        row[isa.F_TYPE] = isa.T_U32 if mode[0] == "ballot" else isa.T_PRED
        r.set_dst(ops[0])
        r.set_srcs(ops[1:], [isa.T_PRED, isa.T_U32])
    else:
        r.set_dst(ops[0])
    return isa.OC["warp"]


_FAMILY = {**{op: _decode_alu for op in _ALU_OPS},
           "cvt": _decode_cvt, "cvta": _decode_cvta, "setp": _decode_setp,
           **{op: _decode_memory for op in ("ld", "st", "atom", "red")},
           "bar": _decode_bar, "bra": _decode_bra,
           "ret": lambda r: isa.OC["exit"], "exit": lambda r: isa.OC["exit"],
           **{op: _decode_warp for op in ("shfl", "vote", "activemask")},
           "membar": lambda r: isa.OC["misc"]}


def _decode(st: Statement, ctx: _Ctx, labels: dict) -> np.ndarray:
    """The code-table row of one statement: guard, opcode, rounding and
    flags here, the rest by the opcode's family (:data:`_FAMILY`)."""
    opname = st.opcode
    mods = list(st.mods)
    if opname == "mad" and "wide" not in mods and "hi" not in mods and "lo" not in mods and any(
            m in ("f32", "f64") for m in mods):
        opname = "fma"  # mad.rn.f32 is a fused multiply-add on sm_20+
    r = _Row(st, ctx, opname, labels)
    row = r.row
    if st.guard is not None:
        if st.guard not in ctx.reg_index:
            raise ctx.err(st, f"undeclared guard predicate {st.guard}")
        row[isa.F_GUARD] = ctx.reg_index[st.guard]
        row[isa.F_GNEG] = int(st.guard_neg)
    if opname not in isa.OP or opname in ("nop",):
        raise ctx.err(st, f"unsupported opcode '{st.opcode}'")
    _check_operands(st, ctx, opname)
    row[isa.F_OP] = isa.OP[opname]
    flags = 0
    rnd = 0
    for m in mods:
        if m == "ftz":
            flags |= isa.FL_FTZ
        elif m == "sat":
            flags |= isa.FL_SAT
        elif m == "cc":
            raise ctx.err(st, "carry-chain (.cc) arithmetic is not supported")
        elif m in _ROUND:
            rnd = isa.RND[m]
    row[isa.F_FLAGS] = flags
    row[isa.F_RND] = rnd
    family = _FAMILY.get(opname)
    if family is None:
        raise ctx.err(st, f"unsupported opcode '{st.opcode}'")
    try:
        row[isa.F_OPCLASS] = family(r)
    except IndexError:
        raise ctx.err(st, "wrong number of operands") from None
    return row


_PRED_LOGIC = {isa.OP_AND: isa.FK_PAND, isa.OP_OR: isa.FK_POR, isa.OP_XOR: isa.FK_PXOR, isa.OP_NOT: isa.FK_PNOT}
_F32_ABS_NEG_MIN_MAX = {isa.OP_ABS: isa.FK_FABS, isa.OP_NEG: isa.FK_FNEG, isa.OP_MIN: isa.FK_FMIN,
                        isa.OP_MAX: isa.FK_FMAX}


# the f32 operations of the general path's lane operation (emulator.f32_op)
_F32_LANE_OPS = {isa.OP_ADD, isa.OP_SUB, isa.OP_MUL, isa.OP_FMA, isa.OP_MAD, isa.OP_DIV, isa.OP_MIN, isa.OP_MAX,
                 isa.OP_ABS, isa.OP_NEG, isa.OP_RCP, isa.OP_SQRT, isa.OP_RSQRT, isa.OP_SIN, isa.OP_COS,
                 isa.OP_TANH, isa.OP_LG2, isa.OP_EX2, isa.OP_COPYSIGN}


def fast_kind(row) -> int:
    """The interpreter fast path for this instruction (isa.FK_*), or FK_NONE."""
    kind = _direct_kind(row)
    if kind != isa.FK_NONE or row[isa.F_ND] != 1 or row[isa.F_D0] < 0 or row[isa.F_TYPE] != isa.T_F32:
        return kind
    # what is left of f32 (rounding modes, .ftz, .sat, .approx, rcp and the transcendentals:
    # `expf`'s fma.rm and ex2.approx.ftz, `rsqrtf`, floor and ceil) takes the general path's
    # lane operation on its operand rows, without its call and per-lane write-back
    srcs = [int(row[isa.F_SK0 + 2 * i]) for i in range(int(row[isa.F_NS]))]
    op = int(row[isa.F_OP])
    if op == isa.OP_CVT and row[isa.F_TYPE2] == isa.T_F32 and srcs == [isa.K_REG]:
        return isa.FK_CVT_F2F
    if op in _F32_LANE_OPS and 1 <= len(srcs) <= 3 and all(k in (isa.K_REG, isa.K_IMM) for k in srcs):
        return isa.FK_FLOAT
    return isa.FK_NONE


def _direct_kind(row) -> int:
    """:func:`fast_kind` chosen by operation, type and operands, without the
    f32 forms left to isa.FK_FLOAT and isa.FK_CVT_F2F."""
    op, t, ns = int(row[isa.F_OP]), int(row[isa.F_TYPE]), int(row[isa.F_NS])
    if op in (isa.OP_LD, isa.OP_ST) and row[isa.F_VEC] == 1 and row[isa.F_SPACE] in (isa.SP_GLOBAL, isa.SP_SHARED):
        if op == isa.OP_ST and row[isa.F_SK0] not in (isa.K_REG, isa.K_IMM):
            return isa.FK_NONE
        glob = row[isa.F_SPACE] == isa.SP_GLOBAL
        if op == isa.OP_LD:
            return isa.FK_LD_GLOBAL if glob else isa.FK_LD_SHARED
        return isa.FK_ST_GLOBAL if glob else isa.FK_ST_SHARED
    if op in (isa.OP_ATOM, isa.OP_RED) and row[isa.F_SPACE] in (isa.SP_GLOBAL, isa.SP_SHARED) and \
            row[isa.F_VEC] == 1 and t & 15 in (4, 8):
        # lanes in order as the general path's, without its per-lane resolution of the space
        return isa.FK_ATOM_GLOBAL if row[isa.F_SPACE] == isa.SP_GLOBAL else isa.FK_ATOM_SHARED
    if op == isa.OP_LD and row[isa.F_VEC] == 1 and row[isa.F_ABASE] < 0 and \
            row[isa.F_SPACE] in (isa.SP_PARAM, isa.SP_CONST):
        return isa.FK_LD_UNIFORM  # same address in every lane
    if op == isa.OP_CVTA and row[isa.F_SK0] == isa.K_REG:
        return isa.FK_CVTA
    if op == isa.OP_CVT and row[isa.F_FLAGS] == 0 and row[isa.F_SK0] == isa.K_REG:
        t2 = int(row[isa.F_TYPE2])
        k1, s1, k2, s2 = t >> 4, t & 15, t2 >> 4, t2 & 15
        ints = (isa.TK_U, isa.TK_S)
        if t == isa.T_F32 and k2 in ints and s2 == 4 and row[isa.F_RND] == isa.R_RN:
            return isa.FK_CVT_I2F
        if k1 in ints and s1 == 4 and t2 == isa.T_F32 and row[isa.F_RND] == isa.R_RZI:
            return isa.FK_CVT_F2I
        if k1 in ints and k2 in ints and s1 in (4, 8) and s2 in (4, 8) and row[isa.F_RND] == 0:
            return isa.FK_CVT_I2I
        return isa.FK_NONE
    if op == isa.OP_SHFL:
        return isa.FK_SHFL          # spmv-vector's and reduction's warp sums (a value and a predicate)
    if row[isa.F_RND] != 0 or row[isa.F_FLAGS] != 0 or row[isa.F_ND] != 1:
        return isa.FK_NONE
    kind, size = t >> 4, t & 15
    if op == isa.OP_MOV and ns == 1 and row[isa.F_SK0] == isa.K_SPECIAL and kind in (isa.TK_U, isa.TK_S) and \
            size in (4, 8):
        return isa.FK_MOV_SPECIAL   # %tid, %ctaid, ...: once per thread, but a general-path call each
    if any(row[isa.F_SK0 + 2 * i] not in (isa.K_REG, isa.K_IMM) for i in range(ns)):
        return isa.FK_NONE
    is_int = kind in (isa.TK_U, isa.TK_S) and size in (4, 8)
    sub = int(row[isa.F_SUB])
    if t == isa.T_PRED:
        return _PRED_LOGIC.get(op, isa.FK_NONE)
    if op == isa.OP_MUL and sub == isa.MUL_WIDE and kind in (isa.TK_U, isa.TK_S) and size == 2:
        return isa.FK_IMUL_WIDE     # 16 x 16 bits into 32 (histogram's bin offsets)
    if op == isa.OP_SELP and size in (2, 4, 8):    # the selected operand's bits, canonical for the type
        return isa.FK_SELP
    if kind in (isa.TK_U, isa.TK_S) and size == 2:
        # 16-bit flags (`pathfinder`'s, `lbm`'s): mov and setp, canonical to 16 bits as the others to 32
        if op == isa.OP_MOV:
            return isa.FK_MOV
        if op == isa.OP_SETP and row[isa.F_TYPE2] == 0 and sub < 6:
            return isa.FK_SETP_INT
        return isa.FK_NONE
    if is_int:
        if op == isa.OP_BFI and row[isa.F_SK0 + 4] == isa.K_IMM and row[isa.F_SK0 + 6] == isa.K_IMM and \
                row[isa.F_SK0] == isa.K_REG and row[isa.F_SK0 + 2] == isa.K_REG:
            return isa.FK_BFI       # a field at a fixed place (mst packs two 32-bit words into a 64-bit key)
        if op == isa.OP_MIN and sub == 0:
            return isa.FK_IMIN
        if op == isa.OP_MAX and sub == 0:
            return isa.FK_IMAX
        if op == isa.OP_SHR:
            return isa.FK_SHR
        if op == isa.OP_NOT:
            return isa.FK_INOT
        if op == isa.OP_ADD:
            return isa.FK_IADD
        if op == isa.OP_SUB:
            return isa.FK_ISUB
        if op == isa.OP_MUL and sub == isa.MUL_LO:
            return isa.FK_IMUL_LO
        if op == isa.OP_MUL and sub == isa.MUL_WIDE and size == 4:
            return isa.FK_IMUL_WIDE
        if op == isa.OP_MAD and sub == isa.MUL_LO:
            return isa.FK_IMAD_LO
        if op == isa.OP_SHL:
            return isa.FK_SHL
        if op == isa.OP_AND:
            return isa.FK_AND
        if op == isa.OP_OR:
            return isa.FK_OR
        if op == isa.OP_XOR:
            return isa.FK_XOR
        if op == isa.OP_MOV:
            return isa.FK_MOV
        if op == isa.OP_SETP and row[isa.F_TYPE2] == 0 and sub < 6:
            return isa.FK_SETP_INT
        if op == isa.OP_DIV:
            return isa.FK_IDIV
        if op == isa.OP_REM:
            return isa.FK_IREM
    if t == isa.T_F32:
        if op == isa.OP_ADD:
            return isa.FK_FADD
        if op == isa.OP_SUB:
            return isa.FK_FSUB
        if op == isa.OP_MUL:
            return isa.FK_FMUL
        if op == isa.OP_FMA:
            return isa.FK_FFMA
        if op == isa.OP_MOV:
            return isa.FK_MOV
        if op == isa.OP_SETP and row[isa.F_TYPE2] == 0:     # ordered, unordered, num and nan
            return isa.FK_SETP_F32
        if op == isa.OP_DIV:    # div.rn.f32 (rounding 0; .approx and .full keep the general path)
            return isa.FK_FDIV
        if op == isa.OP_SQRT:   # sqrt.rn.f32
            return isa.FK_FSQRT
        return _F32_ABS_NEG_MIN_MAX.get(op, isa.FK_NONE)
    return isa.FK_NONE


def immediate_postdominators(succ: list[list[int]]) -> list[int]:
    """Immediate post-dominator of every node; -1 means the virtual exit.

    ``succ[i]`` lists successors of node i; -1 in a successor list is the
    virtual exit.  Iterative dominator algorithm (Cooper, Harvey, Kennedy) on
    the reversed graph.
    """
    n = len(succ)
    exit_node = n
    preds_rev = [[] for _ in range(n + 1)]   # predecessors in the reversed graph = successors
    for i, ss in enumerate(succ):
        for s in ss:
            preds_rev[i].append(exit_node if s < 0 else s)
    # reverse postorder of the reversed graph from the exit
    rev_succ = [[] for _ in range(n + 1)]
    for i, ss in enumerate(preds_rev):
        for s in ss:
            rev_succ[s].append(i)
    order, seen = [], [False] * (n + 1)
    stack = [(exit_node, 0)]
    seen[exit_node] = True
    while stack:
        node, k = stack.pop()
        if k < len(rev_succ[node]):
            stack.append((node, k + 1))
            nxt = rev_succ[node][k]
            if not seen[nxt]:
                seen[nxt] = True
                stack.append((nxt, 0))
        else:
            order.append(node)
    order.reverse()
    rpo = {node: i for i, node in enumerate(order)}
    idom = [None] * (n + 1)
    idom[exit_node] = exit_node

    def intersect(a, b):
        while a != b:
            while rpo[a] > rpo[b]:
                a = idom[a]
            while rpo[b] > rpo[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for node in order[1:]:
            new = None
            for p in preds_rev[node]:
                if idom[p] is not None:
                    new = p if new is None else intersect(p, new)
            if new is not None and idom[node] != new:
                idom[node] = new
                changed = True
    return [-1 if (d is None or d == exit_node) else d for d in idom[:n]]


def decode_kernel(module: Module, name: str, symbols: dict | None = None,
                  regs_per_thread: int | None = None) -> DecodedKernel:
    """Decode kernel ``name`` of ``module``.

    ``symbols`` maps module-level variable names to ``(space, address)``
    (assigned by the device when it loads the module).
    """
    if name not in module.kernels:
        raise PTXError(f"no kernel named {name!r}; the module has {sorted(module.kernels)}",
                       module.source)
    k = module.kernels[name]
    if k.error is not None:
        raise k.error
    ctx = _Ctx(k, symbols or {}, module.source, [v for v in module.variables if v.space == "shared"])
    stmts: list[Statement] = []
    labels: dict[str, int] = {}
    for item in k.body:
        if isinstance(item, tuple):
            labels[item[1]] = len(stmts)
        else:
            stmts.append(item)
    rows = [_decode(st, ctx, labels) for st in stmts]
    ends_open = not stmts or rows[-1][isa.F_OP] not in (isa.OP_RET, isa.OP_EXIT, isa.OP_BRA) or \
        (rows[-1][isa.F_OP] == isa.OP_BRA and rows[-1][isa.F_GUARD] >= 0)
    if ends_open or len(stmts) in labels.values():
        # falling off the end of a kernel is an implicit exit
        ex = _blank_row(stmts[-1].line if stmts else k.line)
        ex[isa.F_OP], ex[isa.F_OPCLASS] = isa.OP_EXIT, isa.OC["exit"]
        rows.append(ex)
        stmts.append(Statement("exit", [], [], None, False, int(ex[isa.F_LINE]), "exit (implicit)"))
    code = np.array(rows, dtype=np.int64)
    n = len(code)
    # basic blocks
    leader = np.zeros(n + 1, bool)
    leader[0] = True
    for pc in range(n):
        o = code[pc, isa.F_OP]
        if o == isa.OP_BRA:
            leader[code[pc, isa.F_TARGET]] = True
            leader[pc + 1] = True
        elif o in (isa.OP_RET, isa.OP_EXIT):
            leader[pc + 1] = True
    for pc in labels.values():
        leader[pc] = True
    bb_start = np.flatnonzero(leader[:n])
    bb_of_pc = np.cumsum(leader[:n]) - 1
    succ = []
    for b, start in enumerate(bb_start):
        end = bb_start[b + 1] - 1 if b + 1 < len(bb_start) else n - 1
        o = code[end, isa.F_OP]
        guarded = code[end, isa.F_GUARD] >= 0
        s = []
        if o == isa.OP_BRA:
            s.append(int(bb_of_pc[code[end, isa.F_TARGET]]))
            if guarded and end + 1 < n:
                s.append(int(bb_of_pc[end + 1]))
        elif o in (isa.OP_RET, isa.OP_EXIT):
            s.append(-1)
            if guarded and end + 1 < n:
                s.append(int(bb_of_pc[end + 1]))
        else:
            s.append(int(bb_of_pc[end + 1]) if end + 1 < n else -1)
        succ.append(s)
    ipdom = immediate_postdominators(succ)
    for pc in range(n):
        if code[pc, isa.F_OP] == isa.OP_BRA:
            d = ipdom[bb_of_pc[pc]]
            code[pc, isa.F_RPC] = -1 if d < 0 else bb_start[d]
    code[:, isa.F_BB] = bb_of_pc
    for pc in range(n):
        code[pc, isa.F_FAST] = fast_kind(code[pc])
    return DecodedKernel(
        name=name, code=code, n_regs=len(ctx.reg_names), reg_names=ctx.reg_names,
        param_bytes=k.param_bytes, params=k.params, shared_static=ctx.shared,
        has_dynamic_shared=ctx.dyn_shared, local_bytes=ctx.local,
        texts=[s.text for s in stmts], lines=code[:, isa.F_LINE].copy(),
        bb_of_pc=bb_of_pc.astype(np.int64), bb_start=bb_start.astype(np.int64),
        source=module.source,
        regs_per_thread=regs_per_thread if regs_per_thread is not None else min(255, len(ctx.reg_names)),
    )
