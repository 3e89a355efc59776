"""Importing Accel-Sim traces (``kernelslist.g`` and ``kernel-N.traceg``, as
NVBit's Accel-Sim tracer writes them) into our trace tables, so that
simulation, TBPoint, GPUMech and the scaling counters run on traces of real
applications captured on real GPUs (docs/trace_format.md, "Importing
Accel-Sim traces").

The format (Accel-Sim's tracer, versions 3-4): ``kernelslist.g`` lists one
command per line, ``MemcpyHtoD,...`` (ignored here) or a kernel trace file
name; each kernel file has a header of ``-key = value`` lines, then thread
blocks::

    #BEGIN_TB
    thread block = 0,0,0
    warp = 0
    insts = 3
    0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0
    0010 ffffffff 1 R4 LDG.E.SYS 1 R2 4 1 0x7f0000001000 4
    0020 ffffffff 0 EXIT 0 0
    #END_TB

An instruction line is ``PC mask n_dst [dst...] opcode n_src [src...]
width [mode addresses]`` (tracer version 4 appends an immediate): the PC
is a byte offset, the mask the active lanes in hex, registers ``R<n>``
(``R255`` is the zero register), and a memory instruction's per-lane
addresses come as ``0`` (every active lane's address), ``1`` (base and
stride) or ``2`` (base, then the difference of each further active lane's
address from the previous one).

What we take from it, and how (deviations are documented in
docs/trace_format.md): the PC index is the byte offset over the instruction
size (16 bytes from binary version 70 on, 8 before), with never-executed
PCs filled as ``NOP``s so that each kernel's PCs are contiguous; the class
and space from :mod:`.sass`; registers ``R``, ``P``, ``UR``, ``UP`` and
``B`` under distinct ids, a wide load's destination expanded to the
consecutive registers it writes; coalescing, bank conflicts and generic
addresses resolved exactly as the emulator does (128-byte lines; 32 banks
of 4 bytes; the header's shared and local windows).  Errors name the file
and line; nothing is left under the output's final names on failure.
"""
from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from .. import __version__
from ..ptx import isa
from ..ptx.device import TraceChunk
from . import schema
from ..io import AtomicParquetWriter, write_json, write_table
from .sass import UnknownOpcode, classify, width_from_opcode
from ..versions import IMPORTER_VERSION
from .sink import _block_columns, _launch_row, _table, _warp_columns, chunk_table

WINDOW = 1 << 32          # bytes of the shared and local windows above their header base addresses
_REG = re.compile(r"^(R|P|UR|UP|B)(\d+|Z|T)$")
#: register id offsets per register file (our ids are per kernel; these keep the files apart)
_REG_BASE = {"R": 0, "P": 256, "UR": 264, "UP": 328, "B": 336}
_ZERO = {"R": 255, "UR": 63}          # the zero registers (RZ, URZ) carry no dependence


class TraceFormatError(ValueError):
    """A malformed Accel-Sim trace; the message names the file and line."""


def _open(path: Path):
    opener = {".xz": lzma.open, ".lzma": lzma.open, ".gz": gzip.open, ".bz2": bz2.open}.get(path.suffix)
    if opener is None:
        return open(path, encoding="utf-8", errors="replace")
    return io.TextIOWrapper(opener(path, "rb"), encoding="utf-8", errors="replace")


def kernel_files(kernelslist) -> list[Path]:
    """The kernel trace files ``kernelslist.g`` names, in launch order."""
    path = Path(kernelslist)
    if not path.exists():
        raise TraceFormatError(f"{path}: not found")
    out = []
    with _open(path) as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("#") or s.startswith("Memcpy"):
                continue
            if ".traceg" not in s:
                raise TraceFormatError(f"{path}:{n}: expected a kernel trace file name or a MemcpyHtoD "
                                       f"command, got {s[:60]!r}")
            k = path.parent / s
            if not k.exists():
                raise TraceFormatError(f"{path}:{n}: {k.name} not found")
            out.append(k)
    if not out:
        raise TraceFormatError(f"{path}: lists no kernel trace")
    return out


@dataclass
class Instr:
    pc: int
    mask: int
    opcode: str
    dsts: list
    srcs: list
    width: int
    addrs: list | None
    text: str


@dataclass
class KernelTrace:
    """One launch as read from its ``.traceg`` file."""
    path: Path
    header: dict
    name: str
    grid: tuple
    block: tuple
    blocks: dict = field(default_factory=dict)     # linear block id -> {warp in block: [Instr]}


def _dim(path, n, value) -> tuple:
    m = re.fullmatch(r"\(?\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)?", value.strip())
    if not m:
        raise TraceFormatError(f"{path}:{n}: bad dimension {value!r} (expected (x,y,z))")
    return tuple(int(x) for x in m.groups())


def _addresses(path, n, tok, i, lanes) -> tuple[list, int]:
    """Per-lane addresses of a memory instruction from ``tok[i:]``."""
    def need(k):
        if i + k > len(tok):
            raise TraceFormatError(f"{path}:{n}: truncated address list")
    need(1)
    mode = tok[i]
    i += 1
    try:
        if mode == "0":
            need(len(lanes))
            return [int(t, 16) for t in tok[i:i + len(lanes)]], i + len(lanes)
        if mode == "1":
            need(2)
            base, stride = int(tok[i], 16), int(tok[i + 1])
            return [base + k * stride for k in range(len(lanes))], i + 2
        if mode == "2":
            need(1 + max(len(lanes) - 1, 0))
            out = [int(tok[i], 16)]
            for t in tok[i + 1:i + len(lanes)]:
                out.append(out[-1] + int(t))
            return out[:len(lanes)], i + max(len(lanes), 1)
    except TraceFormatError:
        raise
    except ValueError:
        raise TraceFormatError(f"{path}:{n}: bad address in {' '.join(tok[i - 1:i + 3])!r}") from None
    raise TraceFormatError(f"{path}:{n}: unknown address mode {mode!r} (known: 0 list, 1 base+stride, "
                           "2 base+deltas)")


def parse_instruction(path, n, line: str, version: int) -> Instr:
    tok = line.split()
    try:
        if len(tok) < 5:
            raise IndexError
        pc = int(tok[0], 16)
        if not re.fullmatch(r"[0-9a-fA-F]{1,8}", tok[1]):
            raise TraceFormatError(f"{path}:{n}: bad active mask {tok[1]!r} (expected at most 8 hex digits)")
        mask = int(tok[1], 16)
        i = 2
        nd = int(tok[i])
        dsts = tok[i + 1:i + 1 + nd]
        i += 1 + nd
        if tok[i].startswith("@"):             # a guard predicate, where the tracer prints one
            guard, i = [tok[i].lstrip("@!")], i + 1
        else:
            guard = []
        opcode = tok[i]
        ns = int(tok[i + 1])
        srcs = tok[i + 2:i + 2 + ns] + guard
        i += 2 + ns
        width = int(tok[i])
        i += 1
    except TraceFormatError:
        raise
    except (IndexError, ValueError):
        raise TraceFormatError(f"{path}:{n}: malformed instruction line {line.strip()[:80]!r}") from None
    if len(dsts) != nd or len(srcs) - len(guard) != ns:
        raise TraceFormatError(f"{path}:{n}: truncated instruction line {line.strip()[:80]!r}")
    addrs = None
    if width > 0:
        lanes = [b for b in range(32) if (mask >> b) & 1]
        addrs, i = _addresses(path, n, tok, i, lanes)
    rest = tok[i:]
    if len(rest) > (1 if version >= 4 else 0) or any(not re.fullmatch(r"-?\d+|0x[0-9a-fA-F]+", t) for t in rest):
        raise TraceFormatError(f"{path}:{n}: unexpected tokens {' '.join(rest)!r} after the instruction")
    return Instr(pc, mask, opcode, dsts, srcs, width, addrs, line.strip())


def read_kernel(path) -> KernelTrace:
    """Parse one ``.traceg`` file (text or xz/gz/bz2-compressed)."""
    path = Path(path)
    header, kt = {}, None
    block = warp = None
    left = 0
    version = 3
    with _open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if left:
                if not line or line.startswith("#") or line.startswith("warp") or line.startswith("thread block"):
                    raise TraceFormatError(f"{path}:{n}: truncated block: warp {warp} of block {block} "
                                           f"has {left} instruction(s) fewer than its 'insts' line says")
                kt.blocks[block][warp].append(parse_instruction(path, n, line, version))
                left -= 1
                continue
            if not line:
                continue
            if line.startswith("-") and kt is None:
                key, _, value = line[1:].partition("=")
                header[key.strip()] = value.strip()
                continue
            if line.startswith("#BEGIN_TB"):
                if kt is None:
                    kt = _start(path, n, header)
                    version = int(header.get("accelsim tracer version", "3") or 3)
                if block is not None:
                    raise TraceFormatError(f"{path}:{n}: #BEGIN_TB inside block {block} (missing #END_TB)")
                block = -1
                continue
            if line.startswith("#END_TB"):
                if block is None:
                    raise TraceFormatError(f"{path}:{n}: #END_TB without #BEGIN_TB")
                block = warp = None
                continue
            if line.startswith("#"):
                continue
            key, _, value = line.partition("=")
            key = key.strip()
            if kt is None or block is None:
                raise TraceFormatError(f"{path}:{n}: {line[:60]!r} outside a thread block")
            if key == "thread block":
                x, y, z = _dim(path, n, value)
                gx, gy, gz = kt.grid
                if not (x < gx and y < gy and z < gz):
                    raise TraceFormatError(f"{path}:{n}: thread block {x},{y},{z} outside the grid {kt.grid}")
                block = x + gx * (y + gy * z)
                if block in kt.blocks:
                    raise TraceFormatError(f"{path}:{n}: thread block {x},{y},{z} appears twice")
                kt.blocks[block] = {}
            elif key == "warp":
                if block < 0:
                    raise TraceFormatError(f"{path}:{n}: warp before 'thread block'")
                warp = int(value)
                if warp >= -(-int(np.prod(kt.block)) // 32) or warp in kt.blocks[block]:
                    raise TraceFormatError(f"{path}:{n}: warp {warp} out of range or repeated in its block")
                kt.blocks[block][warp] = []
            elif key in ("insts", "inst"):
                if warp is None:
                    raise TraceFormatError(f"{path}:{n}: 'insts' before 'warp'")
                left = int(value)
            else:
                raise TraceFormatError(f"{path}:{n}: unexpected line {line[:60]!r}")
    if left or block is not None:
        raise TraceFormatError(f"{path}: truncated block at the end of the file (block {block}, warp {warp})")
    if kt is None:
        raise TraceFormatError(f"{path}: no thread block")
    return kt


def _start(path, n, header) -> KernelTrace:
    for key in ("kernel name", "grid dim", "block dim"):
        if key not in header:
            raise TraceFormatError(f"{path}:{n}: header has no '-{key} = ...' line before the first block")
    return KernelTrace(path, header, header["kernel name"], _dim(path, n, header["grid dim"]),
                       _dim(path, n, header["block dim"]))


def _reg(path, ins: Instr, tok: str) -> list[int]:
    m = _REG.match(tok)
    if not m:
        raise TraceFormatError(f"{path}: instruction {ins.text[:60]!r}: unknown register {tok!r}")
    file, idx = m.groups()
    if idx in ("Z", "T") or (file in _ZERO and int(idx) == _ZERO[file]):
        return []
    n = int(idx)
    if file == "R" and n > 255:        # past RZ (only large exported kernels): keep the ids contiguous
        n -= 1
    return [_REG_BASE[file] + n]


#: warp_trace's space codes (docs/trace_format.md); isa.SP_MIXED: a generic access that touched several spaces
SPACE_CODE = {name: code for code, name in enumerate(isa.SPACES[:6])}


def _in(a, base) -> bool:
    return base is not None and base <= a < base + WINDOW


def _resolve(addrs, space, shared_base, local_base) -> int:
    """Space code of the access: a generic one by the header's windows."""
    if space != "generic":
        return SPACE_CODE[space]
    seen = {isa.SP_SHARED if _in(a, shared_base) else isa.SP_LOCAL if _in(a, local_base) else isa.SP_GLOBAL
            for a in addrs}
    return seen.pop() if len(seen) == 1 else isa.SP_MIXED


def _requests(addrs, code, shared_base) -> tuple[int, list]:
    """nreq and lines of one access, as the emulator counts them."""
    if code in (isa.SP_GLOBAL, isa.SP_LOCAL, isa.SP_MIXED):     # distinct 128-byte lines (of the global/local lanes)
        lines = sorted({a & ~127 for a in addrs if code != isa.SP_MIXED or not _in(a, shared_base)})
        return len(lines), lines
    if code == isa.SP_SHARED:          # bank-conflict degree: distinct 4-byte words per bank, the worst bank
        banks = {}
        for a in addrs:
            banks.setdefault((a >> 2) & 31, set()).add(a >> 2)
        return (max(len(v) for v in banks.values()) if banks else 0), []
    if code == isa.SP_CONST:
        return len(set(addrs)), []
    return 0, []


@dataclass
class _Static:
    opcode: str
    opclass: str
    space: str
    width: int
    dst: list
    src: list
    text: str


def import_traceg(wl: str, kernelslist, out_dir, *, progress: bool = True) -> dict:
    """Import the Accel-Sim trace ``kernelslist`` (path of ``kernelslist.g``)
    as workload ``wl`` into ``out_dir`` (the five tables of
    docs/trace_format.md and ``check.json``).  Returns the summary."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = kernel_files(kernelslist)
    meta = {"workload": wl, "benchmark": "traceg", "size": "", "seed": 0,
            "params": json.dumps({"traceg": Path(kernelslist).name}), "emulator_version": "",
            "importer_version": IMPORTER_VERSION, "trace_schema_version": schema.SCHEMA_VERSION,
            "library_version": __version__}
    writer = AtomicParquetWriter(out / "warp_trace.parquet", schema.arrow_schema("warp_trace", meta),
                                 compression=schema.WARP_TRACE_COMPRESSION)
    statics: dict[str, dict[int, _Static]] = {}
    leaders: dict[str, set] = {}
    L, B, W = [], [], []
    try:
        for lid, f in enumerate(files):
            kt = read_kernel(f)
            rows = _launch(lid, kt, statics.setdefault(kt.name, {}), leaders.setdefault(kt.name, {0}), meta)
            writer.write(rows.pop("trace"))
            L.append(rows["launch"])
            B.append(rows["blocks"])
            W.append(rows["warps"])
            if progress:
                print(f"{wl}: {f.name}: {kt.name}, {rows['launch']['n_blocks']} blocks, "
                      f"{rows['launch']['warp_instrs']} warp instructions", file=sys.stderr, flush=True)
        instr = _instructions(statics, leaders)
        write_table(_table("launches", {k: [r[k] for r in L] for k, _, _ in schema.LAUNCHES}, meta),
                    out / "launches.parquet")
        for name, parts, spec in (("blocks", B, schema.BLOCKS), ("warps", W, schema.WARPS)):
            write_table(_table(name, {k: np.concatenate([p[k] for p in parts]) for k, _, _ in spec}, meta),
                        out / f"{name}.parquet")
        write_table(_table("instructions", instr, meta), out / "instructions.parquet")
        writer.close()
    except BaseException:
        writer.abort()
        for name in ("launches", "blocks", "warps", "instructions"):
            (out / f"{name}.parquet").unlink(missing_ok=True)
        raise
    summary = {"workload_id": wl, "source": "accel-sim traceg", "kernelslist": Path(kernelslist).name,
               "launches": len(L), "check": "imported"}
    write_json(summary, out / "check.json")
    return summary


def _launch(lid: int, kt: KernelTrace, static: dict, leaders: set, meta: dict) -> dict:
    """One launch's rows of every table; fills the kernel's static table."""
    path, h = kt.path, kt.header
    size = 16 if int(h.get("binary version", "70") or 70) >= 70 else 8
    shared_base = int(h["shmem base_addr"], 16) if "shmem base_addr" in h else None
    local_base = int(h["local mem base_addr"], 16) if "local mem base_addr" in h else None
    tpb = int(np.prod(kt.block))
    wpb = -(-tpb // 32)
    n_blocks = int(np.prod(kt.grid))
    missing = [b for b in range(n_blocks) if b not in kt.blocks]
    if missing:
        raise TraceFormatError(f"{path}: {len(missing)} of the grid's {n_blocks} thread blocks have no trace "
                               f"(first: linear id {missing[0]})")
    t_warp, t_pc, t_mask, t_space, t_nreq, t_lines = [], [], [], [], [], []
    bstat = np.zeros((n_blocks, 7), np.int64)       # thread, warp instrs, global, local, shared instrs, ways, threads
    wstat = np.zeros((n_blocks * wpb, 3), np.int64)
    for b in range(n_blocks):
        bstat[b, 6] = tpb
        for w in range(wpb):
            gw = b * wpb + w
            prev = None
            for ins in kt.blocks[b].get(w, []):
                if ins.pc % size:
                    raise TraceFormatError(f"{path}: PC {ins.pc:#x} is not a multiple of {size} bytes")
                pc = ins.pc // size
                st = _static(path, ins, static.get(pc))
                static[pc] = st
                if prev is not None and pc != prev + 1:
                    leaders.add(pc)
                if st.opclass in ("branch", "exit"):
                    leaders.add(pc + 1)
                prev = pc
                code, nreq, lines = 0, 0, []
                if ins.addrs is not None and st.space != "none":
                    code = _resolve(ins.addrs, st.space, shared_base, local_base)
                    nreq, lines = _requests(ins.addrs, code, shared_base)
                lanes = bin(ins.mask).count("1")
                t_warp.append(gw)
                t_pc.append(pc)
                t_mask.append(ins.mask)
                t_space.append(code)
                t_nreq.append(nreq)
                t_lines.append(lines)
                glob = nreq if code in (isa.SP_GLOBAL, isa.SP_MIXED) else 0
                loc = nreq if code == isa.SP_LOCAL else 0
                shared = code == isa.SP_SHARED
                bstat[b, :6] += (lanes, 1, glob, loc, shared, nreq if shared else 0)
                wstat[gw] += (1, lanes, glob + loc)
    offs = np.zeros(len(t_pc) + 1, np.int64)
    offs[1:] = np.cumsum([len(x) for x in t_lines])
    chunk = TraceChunk(np.asarray(t_warp, np.int32), np.asarray(t_pc, np.int32), np.asarray(t_mask, np.uint32),
                       np.asarray(t_space, np.int8), np.asarray(t_nreq, np.int16), offs,
                       np.asarray([a for x in t_lines for a in x], np.int64))
    # the emulator sink's rows, from a launch record of the same shape as the emulator's
    info = SimpleNamespace(launch_index=lid, kernel=kt.name, grid=kt.grid, block=kt.block, n_blocks=n_blocks,
                           warps_per_block=wpb, regs_per_thread=int(h.get("nregs", "0") or 0),
                           shared_bytes=int(h.get("shmem", "0") or 0), local_bytes=0, block_stats=bstat,
                           warp_stats=wstat)
    return {"launch": _launch_row(info), "blocks": _block_columns(info), "warps": _warp_columns(info),
            "trace": chunk_table(lid, chunk, meta)}


def _static(path, ins: Instr, known: _Static | None) -> _Static:
    """The static row of an instruction; the same PC must always carry the same instruction."""
    text = " ".join(ins.text.split()[2:])          # without PC and mask
    if known is not None:
        if known.opcode != ins.opcode:
            raise TraceFormatError(f"{path}: PC {ins.pc:#x} is {ins.opcode} here and {known.opcode} elsewhere")
        return known
    try:
        opclass, space = classify(ins.opcode)
    except UnknownOpcode as e:
        raise TraceFormatError(f"{path}: unknown SASS opcode {e.args[0]!r} in {ins.text[:60]!r} (the table "
                               "is pipeline_lib/trace/sass.py; docs/trace_format.md)") from None
    width = width_from_opcode(ins.opcode, ins.width) if opclass in ("load", "store", "atomic") else 0
    dst = [r for t in ins.dsts for r in _reg(path, ins, t)]
    if opclass == "load" and dst and width > 4 and dst[0] < _REG_BASE["P"]:   # LDG.E.128 R4 writes R4..R7
        top = dst[0] + width // 4
        dst = list(range(dst[0], min(top, 255) if dst[0] < 255 else top))
    src = sorted({r for t in ins.srcs for r in _reg(path, ins, t)})
    return _Static(ins.opcode, opclass, space, width, dst, src, text)


def _instructions(statics: dict, leaders: dict) -> dict:
    """The instructions table: every PC of each kernel up to its highest
    executed one (never-executed PCs as NOPs), basic blocks from the
    leaders seen (entry, after branches and exits, targets of jumps)."""
    rows = {k: [] for k, _, _ in schema.INSTRUCTIONS}
    for name in sorted(statics):
        st = statics[name]
        top = max(st) + 1
        lead = sorted(x for x in leaders[name] if x < top)
        bb = np.searchsorted(np.asarray(lead), np.arange(top), side="right") - 1
        for pc in range(top):
            s = st.get(pc) or _Static("NOP", "misc", "none", 0, [], [], "NOP (not executed)")
            rows["kernel"].append(name)
            rows["pc"].append(pc)
            rows["bb"].append(int(bb[pc]))
            rows["opcode"].append(s.opcode)
            rows["opclass"].append(s.opclass)
            rows["space"].append(s.space)
            rows["width_bytes"].append(s.width)
            rows["dst_regs"].append(s.dst)
            rows["src_regs"].append(s.src)
            rows["line"].append(0)
            rows["text"].append(s.text)
    return rows
