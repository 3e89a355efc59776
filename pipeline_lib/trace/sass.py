"""SASS opcodes of NVBit/Accel-Sim traces mapped to our instruction classes
(docs/trace_format.md, "Importing Accel-Sim traces").

The detailed simulator times an instruction by its class (``opclass`` of
the ``instructions`` table: the latency comes from the hardware
configuration's ``latency`` field of that class) and a memory instruction by
its space.  A SASS opcode is its base name (the text before the first
``.``) plus modifiers; the base name decides the class, and for memory
operations the space.  The table covers the opcodes of the Volta, Turing
and Ampere instruction sets as NVIDIA's CUDA binary utilities document
them (the "Instruction Set Reference" of the cuobjdump/nvdisasm manual),
grouped as that reference groups them.  An opcode not in the table is an
error that names the trace file and line: guessing a latency would make
the simulation silently wrong.
"""
from __future__ import annotations

_GROUPS = {
    # (opclass, space): base opcodes
    ("fp32", "none"): "FADD FADD32I FCHK FCMP FFMA FFMA32I FMNMX FMUL FMUL32I FSEL FSET FSETP FSWZADD "
                      "HADD2 HADD2_32I HFMA2 HFMA2_32I HMMA HMNMX2 HMUL2 HMUL2_32I HSET2 HSETP2 "
                      "F2F F2FP F2I I2F I2FP FRND",
    ("fp64", "none"): "DADD DFMA DMMA DMUL DSETP DMNMX",
    ("sfu", "none"): "MUFU",
    ("int_mul", "none"): "IMAD IMAD32I IMADSP IMUL IMUL32I IDP IDP4A IMMA BMMA",
    ("int", "none"): "BFE BFI BMSK BREV FLO IABS IADD IADD3 IADD32I ICMP IMNMX ISCADD ISCADD32I ISETP LEA LOP "
                     "LOP3 LOP32I POPC SHF SHL SHR VABSDIFF VABSDIFF4 SGXT PRMT SEL MOV MOV32I "
                     "P2R R2P PLOP3 PSETP CSET CSETP S2R S2UR CS2R R2UR I2I "
                     "UIADD3 UIMAD ULOP3 USHF UMOV USEL UISETP ULEA UPRMT UFLO UPOPC UBREV UBMSK USGXT "
                     "UPLOP3 UPSETP UP2UR ULOP ULOP32I",
    ("load", "global"): "LDG",
    ("load", "shared"): "LDS LDSM",
    ("load", "local"): "LDL",
    ("load", "const"): "LDC ULDC",
    ("load", "generic"): "LD",
    ("store", "global"): "STG",
    ("store", "shared"): "STS",
    ("store", "local"): "STL",
    ("store", "generic"): "ST",
    ("atomic", "global"): "ATOMG RED",
    ("atomic", "shared"): "ATOMS",
    ("atomic", "generic"): "ATOM",
    ("branch", "none"): "BRA BRX JMP JMX CALL RET BSSY BSYNC BREAK BPT KILL SSY SYNC PBK BRK CONT PCNT",
    ("barrier", "none"): "BAR",
    ("warp", "none"): "SHFL VOTE VOTEU MATCH REDUX WARPSYNC",
    ("exit", "none"): "EXIT",
    ("misc", "none"): "NOP DEPBAR MEMBAR CCTL CCTLL ERRBAR YIELD NANOSLEEP B2R BMOV PMTRIG SETCTAID "
                      "SETLMEMBASE GETLMEMBASE LEPC FENCE QSPC CCTLT",
}

#: base opcode -> (opclass, space).  Texture, surface and graphics opcodes
#: are left out on purpose: the simulator has no texture path, and timing
#: them as anything else would be silently wrong.
SASS = {op: key for key, ops in _GROUPS.items() for op in ops.split()}


class UnknownOpcode(KeyError):
    pass


def classify(opcode: str) -> tuple[str, str]:
    """(opclass, space) of a SASS opcode with modifiers, e.g. ``LDG.E.128.SYS``."""
    base = opcode.split(".", 1)[0]
    try:
        return SASS[base]
    except KeyError:
        raise UnknownOpcode(base) from None


def width_from_opcode(opcode: str, default: int) -> int:
    """Bytes per thread of a memory opcode from its size modifier (``.64``,
    ``.128``, ``.U8`` ...); ``default`` (the trace's own width) when it has none.
    NVBit can report the width wrongly, so Accel-Sim reads it from the opcode too."""
    sizes = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "32": 4, "64": 8, "128": 16}
    for mod in opcode.split(".")[1:]:
        if mod in sizes:
            return sizes[mod]
    return default
