"""Exporting our traces in Accel-Sim's trace format (``kernelslist.g`` and
one ``kernel-N.traceg`` per launch), so that the workloads of this toolkit
can be simulated by Accel-Sim and checked there; :mod:`.traceg` reads the
format back (docs/trace_format.md, "Exporting to Accel-Sim").

What is written and what is lost:

* opcodes: a SASS name per instruction class and space that Volta's opcode
  table knows and that :mod:`.sass` maps back to the same class and space
  (``FFMA``, ``IMAD``, ``LDG.E.64``, ``STS``, ``ATOMG.E.ADD``, ``BAR.SYNC``
  ...); parameter loads become ``LDC`` (SASS keeps kernel parameters in a
  constant bank), so they come back as constant loads, timed alike;
* registers: ``R<n>``, numbered per kernel in the order of our register
  ids, skipping 255 (RZ, the zero register) and, after the destination of
  a load wider than 4 bytes, the numbers SASS implies it also writes
  (``LDG.E.64 R8`` writes R8 and R9; one of our registers holds the whole
  value), so that reading the trace back, here or in Accel-Sim, finds
  the same dependences; the format carries at most one destination and
  four sources, and the rest are dropped (counted in the summary: in the
  default suite only the predicate output of ``shfl.sync``);
* addresses: the lanes' own addresses where the trace holds them
  (``trace.lane_addresses``: the optional ``lane_addrs`` column); else,
  since our traces keep each access's 128-byte lines (and for shared
  memory its bank-conflict degree), synthetic ones: each active lane gets
  an address inside one of the access's lines, spread over them in turn;
  for shared memory, addresses that give the recorded conflict degree; for
  constant memory, the recorded number of distinct addresses.  Reading
  either back gives the same lines and counts.
"""
from __future__ import annotations

import lzma
from pathlib import Path

import numpy as np

from ..ptx import isa
from ..sim.trace_reader import TraceDir

_SIZE = {1: ".U8", 2: ".U16", 8: ".64", 16: ".128"}
_FP32 = {"add": "FADD", "sub": "FADD", "mul": "FMUL", "setp": "FSETP", "min": "FMNMX", "max": "FMNMX",
         "cvt": "F2F", "selp": "FSEL"}
_FP64 = {"add": "DADD", "sub": "DADD", "mul": "DMUL", "setp": "DSETP", "min": "DMNMX", "max": "DMNMX"}
_SFU = {"rcp": "MUFU.RCP", "sqrt": "MUFU.SQRT", "rsqrt": "MUFU.RSQ", "ex2": "MUFU.EX2", "lg2": "MUFU.LG2",
        "sin": "MUFU.SIN", "cos": "MUFU.COS"}
SHARED_BASE = isa.SHARED_WINDOW
LOCAL_BASE = isa.LOCAL_WINDOW


def sass_opcode(opclass: str, space: str, opcode: str, width: int) -> str:
    """The SASS opcode written for one of our instructions."""
    base = opcode.split(".", 1)[0]
    size = _SIZE.get(width, "")
    if opclass == "load":
        return {"global": "LDG.E", "shared": "LDS", "local": "LDL", "generic": "LD.E"}.get(space, "LDC") + size
    if opclass == "store":
        return {"global": "STG.E", "shared": "STS", "local": "STL"}.get(space, "ST.E") + size
    if opclass == "atomic":
        red = base == "red"
        if space == "shared":
            return "ATOMS.ADD"
        return ("RED.E.ADD" if red else "ATOMG.E.ADD") if space == "global" else "ATOM.E.ADD"
    return {"fp32": _FP32.get(base, "FFMA"), "fp64": _FP64.get(base, "DFMA"), "sfu": _SFU.get(base, "MUFU.RCP"),
            "int_mul": "IMAD", "int": "IADD3", "branch": "BRA", "barrier": "BAR.SYNC",
            "warp": "VOTE.ANY" if base == "vote" else "SHFL.IDX", "exit": "EXIT"}.get(opclass, "NOP")


def register_numbers(g) -> dict[int, int]:
    """Our register id -> SASS register number for one kernel's instructions
    (module docstring)."""
    wide = {}
    for oc, w, dst in zip(g["opclass"], g["width_bytes"], g["dst_regs"]):
        if oc == "load" and w > 4 and len(dst):
            wide[int(dst[0])] = max(wide.get(int(dst[0]), 1), int(w) // 4)
    ids = sorted({int(x) for col in ("dst_regs", "src_regs") for regs in g[col] for x in regs})
    out, n = {}, 0
    for k in ids:
        span = wide.get(k, 1)
        while 255 in range(n, n + span):
            n += 1
        out[k] = n
        n += span
    return out


def lane_addresses(mask: int, code: int, nreq: int, lines) -> list[int]:
    """Addresses of the active lanes that give back ``nreq`` and ``lines``
    (module docstring)."""
    lanes = [b for b in range(32) if (mask >> b) & 1]
    if not lanes:
        return []
    if code in (isa.SP_GLOBAL, isa.SP_LOCAL, 6) and len(lines):
        k = len(lines)
        return [int(lines[i % k]) + 4 * ((i // k) % 32) for i in range(len(lanes))]
    if code == isa.SP_SHARED:          # lanes 0..d-1 in bank 0 (d distinct words), the others one bank each
        d = max(int(nreq), 1)
        return [SHARED_BASE + 4 * (32 * i if i < d else i - d + 1) for i in range(len(lanes))]
    if code in (isa.SP_CONST, isa.SP_PARAM):
        d = max(int(nreq), 1)
        return [4 * (i % d) for i in range(len(lanes))]
    return [0] * len(lanes)


def _addr_text(addrs: list[int]) -> str:
    """Accel-Sim's compressed forms: base + stride when the addresses are
    evenly spaced, else base + deltas."""
    if len(addrs) > 1:
        stride = addrs[1] - addrs[0]
        if all(b - a == stride for a, b in zip(addrs, addrs[1:])):
            return f"1 {addrs[0]:#x} {stride}"
    return " ".join([f"2 {addrs[0]:#x}"] + [str(b - a) for a, b in zip(addrs, addrs[1:])])


def export_traceg(trace_dir, out_dir, *, compress: bool = True) -> dict:
    """Write ``out_dir/kernelslist.g`` and one ``kernel-N.traceg`` (``.xz``
    with ``compress``) per launch of the trace in ``trace_dir``.  Returns a
    summary: launches, instructions, and what the format could not carry."""
    tr = TraceDir(trace_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    instr = {k: g.set_index("pc").sort_index() for k, g in tr.instructions.groupby("kernel")}
    dropped = {"destinations": 0, "sources": 0}
    static = {}
    for k, g in instr.items():
        rows = []
        num = register_numbers(g)
        for pc, r in g.iterrows():
            dst, src = list(r["dst_regs"]), sorted(set(r["src_regs"]))
            dropped["destinations"] += max(len(dst) - 1, 0)
            dropped["sources"] += max(len(src) - 4, 0)
            op = sass_opcode(r["opclass"], r["space"], r["opcode"], int(r["width_bytes"]))
            regs = (f"{min(len(dst), 1)} {' '.join(f'R{num[x]}' for x in dst[:1])} {op} {min(len(src), 4)} "
                    f"{' '.join(f'R{num[x]}' for x in src[:4])}")
            rows.append((" ".join(regs.split()), int(r["width_bytes"])))
        static[k] = rows
    names, n_rows = [], 0
    for launch in tr.launches.sort_values("launch").to_dict("records"):
        lid = int(launch["launch"])
        name = f"kernel-{lid + 1}.traceg" + (".xz" if compress else "")
        text = _kernel_text(tr, launch, static[launch["kernel"]])
        n_rows += int(launch["warp_instrs"])
        data = text.encode()
        (out / name).write_bytes(lzma.compress(data, preset=6) if compress else data)
        names.append(name)
    (out / "kernelslist.g").write_text("".join(f"{n}\n" for n in names))
    return {"launches": len(names), "warp_instructions": n_rows,
            "dropped_register_operands": {k: int(v) for k, v in dropped.items()}}


def _kernel_text(tr: TraceDir, launch: dict, static: list) -> str:
    lt = tr.launch_trace(int(launch["launch"]))
    real = "lane_addrs" in tr.warp_trace_columns
    tables = tr.launch_tables(int(launch["launch"]), ["mask"] + (["lane_addrs"] if real else []))
    masks = np.concatenate([t.column("mask").to_numpy() for t in tables]) if tables else np.zeros(0, np.uint32)
    lane = [x for t in tables for x in t.column("lane_addrs").to_pylist()] if real else None
    wpb, gx, gy = int(launch["warps_per_block"]), int(launch["grid_x"]), int(launch["grid_y"])
    head = [f"-kernel name = {launch['kernel']}", f"-kernel id = {int(launch['launch']) + 1}",
            f"-grid dim = ({launch['grid_x']},{launch['grid_y']},{launch['grid_z']})",
            f"-block dim = ({launch['block_x']},{launch['block_y']},{launch['block_z']})",
            f"-shmem = {launch['shared_bytes']}", f"-nregs = {launch['regs_per_thread']}",
            "-binary version = 70", "-cuda stream id = 0", f"-shmem base_addr = {SHARED_BASE:#018x}",
            f"-local mem base_addr = {LOCAL_BASE:#018x}", "-nvbit version = exported",
            "-accelsim tracer version = 3", "",
            "#traces format = PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
            "[adrrescompress?] [mem_addresses]", ""]
    lines = head
    for b in range(int(launch["n_blocks"])):
        lines += ["#BEGIN_TB", "", f"thread block = {b % gx},{(b // gx) % gy},{b // (gx * gy)}", ""]
        for w in range(wpb):
            lo, hi = int(lt.warp_off[b * wpb + w]), int(lt.warp_off[b * wpb + w + 1])
            if lo == hi:
                continue
            lines += [f"warp = {w}", f"insts = {hi - lo}"]
            for r in range(lo, hi):
                pc = int(lt.pc[r])
                regs, width = static[pc]
                mask = int(masks[r])
                mem = "0"
                if width > 0:
                    addrs = lane[r] if real else lane_addresses(mask, int(lt.space[r]), int(lt.nreq[r]),
                                                                lt.lines[lt.line_off[r]:lt.line_off[r + 1]])
                    mem = f"{width} {_addr_text(addrs)}" if addrs else "0"
                lines.append(f"{16 * pc:04x} {mask:08x} {regs} {mem}")
            lines.append("")
        lines += ["#END_TB", ""]
    return "\n".join(lines) + "\n"
