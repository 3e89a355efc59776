"""Numeric encoding of decoded PTX instructions for the numba emulator.

Each instruction becomes one row of an int64 array with the columns named by
the ``F_*`` constants below.  Types are ``(kind << 4) | size_in_bytes`` with
kind 0 = unsigned/bit, 1 = signed, 2 = float, 3 = predicate.
"""
import numpy as np

# ---- types ---------------------------------------------------------------
TK_U, TK_S, TK_F, TK_P = 0, 1, 2, 3


def tcode(kind: int, size: int) -> int:
    return (kind << 4) | size


TYPES = {
    "b8": tcode(TK_U, 1), "u8": tcode(TK_U, 1), "s8": tcode(TK_S, 1),
    "b16": tcode(TK_U, 2), "u16": tcode(TK_U, 2), "s16": tcode(TK_S, 2),
    "b32": tcode(TK_U, 4), "u32": tcode(TK_U, 4), "s32": tcode(TK_S, 4),
    "b64": tcode(TK_U, 8), "u64": tcode(TK_U, 8), "s64": tcode(TK_S, 8),
    "f32": tcode(TK_F, 4), "f64": tcode(TK_F, 8), "pred": tcode(TK_P, 1),
}
T_U32, T_S32, T_U64, T_S64 = TYPES["u32"], TYPES["s32"], TYPES["u64"], TYPES["s64"]
T_F32, T_F64, T_PRED = TYPES["f32"], TYPES["f64"], TYPES["pred"]

# ---- opcodes -------------------------------------------------------------
OPS = [
    "nop", "mov", "cvt", "cvta", "add", "sub", "mul", "mad", "fma", "div", "rem",
    "abs", "neg", "min", "max", "and", "or", "xor", "not", "cnot", "shl", "shr",
    "popc", "clz", "brev", "bfe", "bfi", "prmt", "setp", "selp", "slct", "rcp",
    "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "copysign", "ld", "st", "atom",
    "red", "bar", "bra", "ret", "exit", "shfl", "vote", "activemask", "membar",
    "testp", "tanh",
]
OP = {name: i for i, name in enumerate(OPS)}
globals().update({f"OP_{n.upper()}": i for n, i in OP.items()})

# ---- row layout ----------------------------------------------------------
FIELDS = [
    "op", "type", "type2", "rnd", "sub", "flags", "guard", "gneg",
    "nd", "d0", "d1", "d2", "d3",
    "ns", "sk0", "sv0", "sk1", "sv1", "sk2", "sv2", "sk3", "sv3",
    "space", "abase", "aoff", "vec", "target", "rpc", "opclass", "line", "bb", "fast",
]
F = {n: i for i, n in enumerate(FIELDS)}
globals().update({f"F_{n.upper()}": i for n, i in F.items()})
NFIELDS = len(FIELDS)

# operand kinds
K_REG, K_IMM, K_SPECIAL, K_NREG = 0, 1, 2, 3

# flags
FL_FTZ, FL_SAT, FL_CC = 1, 2, 4

# rounding modes (rnd column)
RND = {"": 0, "rn": 0, "rz": 1, "rm": 2, "rp": 3, "rni": 4, "rzi": 5, "rmi": 6, "rpi": 7,
       "approx": 8, "full": 9}
R_RN, R_RZ, R_RM, R_RP, R_RNI, R_RZI, R_RMI, R_RPI, R_APPROX, R_FULL = range(10)

# sub-operations (sub column), by family
MUL_LO, MUL_HI, MUL_WIDE = 0, 1, 2
CMP = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5, "lo": 2, "ls": 3, "hi": 4, "hs": 5,
       "equ": 6, "neu": 7, "ltu": 8, "leu": 9, "gtu": 10, "geu": 11, "num": 12, "nan": 13}
BOOL = {"": 0, "and": 1, "or": 2, "xor": 3}
ATOM = {"add": 0, "min": 1, "max": 2, "exch": 3, "cas": 4, "and": 5, "or": 6, "xor": 7,
        "inc": 8, "dec": 9}
SHFL = {"up": 0, "down": 1, "bfly": 2, "idx": 3}
VOTE = {"all": 0, "any": 1, "uni": 2, "ballot": 3}

# memory spaces
SPACES = ["none", "global", "shared", "local", "const", "param", "generic"]
SP = {n: i for i, n in enumerate(SPACES)}
SP_NONE, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST, SP_PARAM, SP_GENERIC = range(7)
# In a trace (warp_trace.space, docs/trace_format.md) the generic code marks an
# access whose lanes resolved to several spaces; the timing models call it mixed.
SP_MIXED = SP_GENERIC

# operation classes for timing models (documented in docs/trace_format.md)
OPCLASSES = ["int", "int_mul", "fp32", "fp64", "sfu", "load", "store", "atomic",
             "branch", "barrier", "warp", "exit", "misc"]
OC = {n: i for i, n in enumerate(OPCLASSES)}

# special registers: name -> id
SPECIALS = ["%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z",
            "%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z",
            "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
            "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
            "%clock", "%clock64", "%dynamic_smem_size", "%total_smem_size"]
SPECIAL = {n: i for i, n in enumerate(SPECIALS)}

# Generic-address windows.  Global addresses are below SHARED_WINDOW; cvta
# maps shared/local offsets into these windows and back.
GLOBAL_BASE = 0x10000000
SHARED_WINDOW = 0x7E0000000000
LOCAL_WINDOW = 0x7F0000000000

# emulator error codes
E_OK, E_OOB, E_MISALIGNED, E_INSTR_LIMIT, E_BAD_OP, E_STACK, E_BAD_SPACE = range(7)
ERROR_TEXT = {
    E_OOB: "out-of-bounds access", E_MISALIGNED: "misaligned access",
    E_INSTR_LIMIT: "instruction limit exceeded", E_BAD_OP: "unsupported operation at run time",
    E_STACK: "SIMT reconvergence stack overflow", E_BAD_SPACE: "address in no memory space",
}
MAX_STACK = 64
EMPTY_ROW = np.full(NFIELDS, -1, dtype=np.int64)

# Fast paths of the interpreter (column "fast"): frequent instructions with
# register/immediate operands, most without rounding or flag modifiers,
# computed straight from register file to register file (FK_FLOAT and
# FK_CVT_F2F: the f32 forms with rounding modes, .ftz, .sat or .approx, by
# the general path's own lane operation on its operand rows).
# The ALU kinds come before FK_LD_GLOBAL, the memory kinds in this order, and
# the others from FK_LD_UNIFORM on (the interpreter dispatches on ranges).
FK_NONE, FK_IADD, FK_ISUB, FK_IMUL_LO, FK_IMUL_WIDE, FK_IMAD_LO, FK_SHL, FK_AND, FK_OR, FK_XOR, \
    FK_MOV, FK_FADD, FK_FSUB, FK_FMUL, FK_FFMA, FK_SETP_INT, FK_SETP_F32, FK_FDIV, FK_FSQRT, FK_IDIV, FK_IREM, \
    FK_IMIN, FK_IMAX, FK_SHR, FK_SELP, FK_PAND, FK_POR, FK_PXOR, FK_PNOT, FK_INOT, \
    FK_FABS, FK_FNEG, FK_FMIN, FK_FMAX, \
    FK_LD_GLOBAL, FK_ST_GLOBAL, FK_LD_SHARED, FK_ST_SHARED, \
    FK_LD_UNIFORM, FK_CVTA, FK_CVT_I2F, FK_CVT_F2I, FK_CVT_I2I, FK_BFI, FK_MOV_SPECIAL, \
    FK_ATOM_GLOBAL, FK_ATOM_SHARED, FK_SHFL, FK_FLOAT, FK_CVT_F2F = range(50)
