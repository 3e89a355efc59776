"""Host-side API of the emulator: device memory, modules, kernel launches.

A :class:`Device` owns one global-memory heap (allocations are 256-byte
aligned and separated by unmapped guard bytes, so an access past the end of
a buffer is caught as out-of-bounds, as a memory checker would).  Kernels run
through :func:`pipeline_lib.ptx.emulator.run_blocks`; what they do is reported
to an optional trace sink (see :mod:`pipeline_lib.trace.sink`).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from . import isa
from .decode import DecodedKernel, decode_kernel
from .emulator import N_BLOCK_STATS, N_WARP_STATS, run_blocks
from .parser import Module, PTXError, parse_ptx

__all__ = ["Device", "EmulationError", "LoadedModule", "LaunchInfo", "TraceChunk"]

ALIGN = 256
GUARD = 256
#: the alignment of the global memory's first byte in the host's memory (a page)
HOST_PAGE = 4096
DEFAULT_INSTR_LIMIT = 2_000_000_000


class EmulationError(RuntimeError):
    """A kernel did something a real GPU would fault on (or never finished)."""


@dataclass
class LaunchInfo:
    """What one kernel launch was and what it did (the trace's launch row)."""

    launch_index: int
    kernel: str
    grid: tuple
    block: tuple
    regs_per_thread: int
    shared_bytes: int
    local_bytes: int
    kernel_code: DecodedKernel
    block_stats: np.ndarray | None = None   # [n_blocks, N_BLOCK_STATS]
    warp_stats: np.ndarray | None = None    # [n_warps, N_WARP_STATS]
    seconds: float = 0.0

    @property
    def n_blocks(self) -> int:
        return int(np.prod(self.grid))

    @property
    def warps_per_block(self) -> int:
        return (int(np.prod(self.block)) + 31) // 32


@dataclass
class TraceChunk:
    """Per-warp instruction records of whole blocks, ordered by (warp, time)."""

    warp: np.ndarray      # int32 launch-wide warp id = block * warps_per_block + warp
    pc: np.ndarray        # int32
    mask: np.ndarray      # uint32 lanes that executed
    space: np.ndarray     # int8 memory space of a memory instruction (0: none)
    nreq: np.ndarray      # int16 requests (lines / shared ways / const addresses)
    line_offsets: np.ndarray  # int64 [n+1] into lines
    lines: np.ndarray     # int64 128-byte line addresses of global/local requests
    addr_offsets: np.ndarray | None = None  # int64 [n+1] into addrs (Device(lane_addresses=True))
    addrs: np.ndarray | None = None         # int64 the executing lanes' addresses of each memory instruction


@dataclass
class LoadedModule:
    module: Module
    symbols: dict
    const: np.ndarray
    regs: dict = field(default_factory=dict)      # kernel -> registers per thread (ptxas info)
    kernels: dict = field(default_factory=dict)   # kernel -> DecodedKernel

    def kernel(self, name: str) -> DecodedKernel:
        if name not in self.kernels:
            self.kernels[name] = decode_kernel(self.module, name, self.symbols, self.regs.get(name))
        return self.kernels[name]


def _pack_args(dk: DecodedKernel, args) -> np.ndarray:
    if len(args) != len(dk.params):
        raise EmulationError(f"kernel {dk.name} takes {len(dk.params)} arguments, got {len(args)}")
    buf = np.zeros(max(8, (dk.param_bytes + 7) // 8 * 8), np.uint8)
    for (name, t, off), v in zip(dk.params, args):
        code = isa.TYPES.get(t)
        if code is None:
            raise EmulationError(f"parameter {name} of {dk.name} has unsupported type .{t}")
        size, kind = code & 15, code >> 4
        if kind == isa.TK_F:
            raw = np.array(v, np.float32 if size == 4 else np.float64).tobytes()
        else:
            iv = int(v)
            raw = (iv & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
        buf[off:off + size] = np.frombuffer(raw, np.uint8)
    return buf


def _memory(cap: int) -> np.ndarray:
    """A zeroed global memory of ``cap`` bytes that starts on a host page.
    numpy's own allocation of a large array starts 16 bytes into a host
    cache line (glibc's header), so every 128-byte line of the device
    spanned three of the host's 64-byte lines: the emulator's next-span
    prefetch (one per 64 bytes of the span) left the third unasked for, and
    its vector loads of a warp's 32 words split across host lines
    (docs/emulator.md, Speed).  Only host addresses change."""
    raw = np.zeros(cap + HOST_PAGE, np.uint8)
    off = -raw.ctypes.data % HOST_PAGE
    return raw[off:off + cap]


def _shadow(cap: int) -> np.ndarray:
    """The allocation shadow of a global memory of ``cap`` bytes: one byte
    per byte (1: allocated), then one per 128-byte line (1: every byte of
    the line allocated).  The emulator (``emulator.allocated``) reads the
    line byte first and the byte shadow only on lines allocated in part:
    the byte shadow is as large as the memory, and reading it beside the
    data cost up to 17% of the emulator's time (docs/emulator.md)."""
    return np.zeros(cap + (cap >> 7) + 1, np.uint8)   # + a partial last line, never whole


class Device:
    """An emulated GPU: global memory, module loading and kernel launches.

    Parameters
    ----------
    heap_bytes : initial global-memory capacity (grows on demand).
    instr_limit : warp instructions one launch may execute before it is
        stopped with an error (guards against kernels that never terminate).
    sink : receives launch information and trace chunks (None: no tracing).
    chunk_records : trace records collected before a chunk is handed to the sink.
    progress : print a progress line per launch to stderr.
    """

    def __init__(self, heap_bytes: int = 1 << 20, instr_limit: int = DEFAULT_INSTR_LIMIT,
                 sink=None, chunk_records: int = 4_000_000, progress: bool = False, lane_addresses: bool = False):
        self.mem = _memory(heap_bytes)
        self.shadow = _shadow(heap_bytes)
        self.top = GUARD
        self.instr_limit = int(instr_limit)
        self.sink = sink
        self.chunk_records = int(chunk_records)
        self.progress = progress
        self.lane_addresses = bool(lane_addresses)   # record each memory instruction's lane addresses too
        self.launches = 0
        self.allocations: dict[int, int] = {}

    # ---- memory -----------------------------------------------------------
    def malloc(self, nbytes: int) -> int:
        nbytes = int(nbytes)
        if nbytes <= 0:
            raise ValueError("malloc size must be positive")
        start = (self.top + ALIGN - 1) // ALIGN * ALIGN
        end = start + nbytes
        need = end + GUARD
        if need > len(self.mem):
            cap = len(self.mem)
            while cap < need:
                cap *= 2
            mem = _memory(cap)
            mem[:len(self.mem)] = self.mem
            shadow = _shadow(cap)
            old = len(self.mem)
            shadow[:old] = self.shadow[:old]
            shadow[cap:cap + (old >> 7)] = self.shadow[old:old + (old >> 7)]
            self.mem, self.shadow = mem, shadow
        self.shadow[start:end] = 1
        cap = len(self.mem)
        self.shadow[cap + (start + 127 >> 7):cap + (end >> 7)] = 1    # the lines allocated whole
        self.top = end + GUARD
        self.allocations[isa.GLOBAL_BASE + start] = nbytes
        return isa.GLOBAL_BASE + start

    def _span(self, addr: int, nbytes: int) -> slice:
        i = addr - isa.GLOBAL_BASE
        if i < 0 or i + nbytes > len(self.mem) or (nbytes and not self.shadow[i:i + nbytes].all()):
            raise EmulationError(f"host access to unallocated device memory at {addr:#x} (+{nbytes})")
        return slice(i, i + nbytes)

    def to_device(self, array) -> int:
        a = np.ascontiguousarray(array)
        addr = self.malloc(max(1, a.nbytes))
        self.mem[self._span(addr, a.nbytes)] = a.view(np.uint8).reshape(-1)
        return addr

    def zeros(self, count: int, dtype) -> int:
        return self.malloc(max(1, int(count) * np.dtype(dtype).itemsize))

    def copy_to(self, addr: int, array) -> None:
        a = np.ascontiguousarray(array)
        self.mem[self._span(addr, a.nbytes)] = a.view(np.uint8).reshape(-1)

    def from_device(self, addr: int, dtype, count: int) -> np.ndarray:
        dt = np.dtype(dtype)
        return self.mem[self._span(addr, dt.itemsize * int(count))].view(dt).copy()

    # ---- modules ----------------------------------------------------------
    def load_module(self, path_or_text, source: str | None = None) -> LoadedModule:
        """Parse PTX (a path or the text itself) and place its variables."""
        if isinstance(path_or_text, Path) or (isinstance(path_or_text, str) and path_or_text.endswith(".ptx")
                                              and "\n" not in path_or_text):
            path = Path(path_or_text)
            text, source = path.read_text(), source or str(path)
            regs = _read_ptxas_info(path)
        else:
            text, source, regs = path_or_text, source or "<ptx>", {}
        module = parse_ptx(text, source)
        symbols = {}
        const = bytearray()
        for v in module.variables:
            if v.space == "const":
                off = (len(const) + v.align - 1) // v.align * v.align
                const.extend(b"\0" * (off - len(const)))
                const.extend(v.init or b"\0" * v.nbytes)
                symbols[v.name] = (isa.SP_CONST, off)
            elif v.space == "global":
                addr = self.malloc(max(1, v.nbytes))
                if v.init:
                    self.mem[self._span(addr, len(v.init))] = np.frombuffer(v.init, np.uint8)
                symbols[v.name] = (isa.SP_GLOBAL, addr)
            elif v.space == "shared":
                pass  # placed per kernel by the decoder (shared memory is per block)
            else:
                raise PTXError(f"unsupported module-level .{v.space} variable {v.name}", source)
        const.extend(b"\0" * (-len(const) % 8 or 0))
        carr = np.frombuffer(bytes(const) or b"\0" * 8, np.uint8).copy()
        return LoadedModule(module, symbols, carr, regs)

    # ---- module variables (cudaMemcpyToSymbol / cudaMemcpyFromSymbol) -----
    def _symbol(self, mod: LoadedModule, name: str, nbytes: int, offset: int):
        var = next((v for v in mod.module.variables if v.name == name and v.space in ("const", "global")), None)
        if var is None:
            have = sorted(v.name for v in mod.module.variables if v.space in ("const", "global"))
            raise EmulationError(f"{mod.module.source}: no __constant__ or __device__ variable named {name!r} "
                                 f"(the module has {', '.join(have) or 'none'})")
        if offset < 0 or offset + nbytes > var.nbytes:
            raise EmulationError(f"{mod.module.source}: {nbytes} bytes at offset {offset} do not fit in "
                                 f"{name} ({var.nbytes} bytes)")
        return mod.symbols[name]

    def copy_to_symbol(self, mod: LoadedModule, name: str, array, offset: int = 0) -> None:
        """Copy ``array``'s bytes into the module variable ``name``
        (``__constant__`` or ``__device__``) at byte ``offset``, as
        ``cudaMemcpyToSymbol`` does.  Kernels launched afterwards see them."""
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        space, where = self._symbol(mod, name, raw.nbytes, int(offset))
        if space == isa.SP_CONST:
            mod.const[where + int(offset): where + int(offset) + raw.nbytes] = raw
        else:
            self.mem[self._span(where + int(offset), raw.nbytes)] = raw

    def copy_from_symbol(self, mod: LoadedModule, name: str, dtype, count: int, offset: int = 0) -> np.ndarray:
        """``count`` values of ``dtype`` read from the module variable ``name``
        at byte ``offset`` (``cudaMemcpyFromSymbol``)."""
        dt = np.dtype(dtype)
        nbytes = dt.itemsize * int(count)
        space, where = self._symbol(mod, name, nbytes, int(offset))
        if space == isa.SP_CONST:
            return mod.const[where + int(offset): where + int(offset) + nbytes].view(dt).copy()
        return self.from_device(where + int(offset), dt, count)

    # ---- launches ---------------------------------------------------------
    def launch(self, mod: LoadedModule, kernel: str, grid, block, args, dynamic_shared: int = 0) -> LaunchInfo:
        dk = mod.kernel(kernel)
        grid = tuple(int(x) for x in (tuple(grid) + (1, 1, 1))[:3])
        block = tuple(int(x) for x in (tuple(block) + (1, 1, 1))[:3])
        nthreads = block[0] * block[1] * block[2]
        if min(grid) < 1 or min(block) < 1 or nthreads > 1024 or block[2] > 64:
            raise EmulationError(f"invalid launch configuration grid={grid} block={block} for {kernel}")
        if dynamic_shared and not dk.has_dynamic_shared:
            raise EmulationError(f"{kernel} declares no dynamic shared memory")
        smem = (dk.shared_static + 15) // 16 * 16 + int(dynamic_shared) if dk.has_dynamic_shared else dk.shared_static
        params = _pack_args(dk, args)
        info = LaunchInfo(self.launches, kernel, grid, block, dk.regs_per_thread, smem,
                          dk.local_bytes, dk)
        self.launches += 1
        n_blocks = info.n_blocks
        nw = info.warps_per_block
        bstats = np.zeros((n_blocks, N_BLOCK_STATS), np.int64)
        wstats = np.zeros((n_blocks * nw, N_WARP_STATS), np.int64)
        err = np.zeros(8, np.int64)
        tracing = self.sink is not None
        lanes = tracing and self.lane_addresses
        code = _without_memory_fast_paths(dk.code) if lanes else dk.code
        if tracing:
            self.sink.begin_launch(info)
        t0 = time.perf_counter()
        b = 0
        done = 0
        grid_a = np.array(grid, np.int64)
        block_a = np.array(block, np.int64)
        last_print = t0
        while b < n_blocks:
            # the block range is bounded so per-call stat arrays stay views
            (nb, done, n_rec, tw, tpc, tmask, tspace, tnreq, n_lines, lines, n_addr, laddr) = run_blocks(
                code, dk.n_regs, grid_a, block_a, b, n_blocks,
                self.mem, self.shadow, isa.GLOBAL_BASE, mod.const, params, smem, dk.local_bytes,
                tracing, self.chunk_records, self.instr_limit, done,
                bstats[b:], wstats[b * nw:], err, int(dynamic_shared), lanes)
            if err[0] != isa.E_OK:
                raise self._error(info, err)
            if tracing and n_rec:
                self.sink.add_chunk(info, _make_chunk(tw[:n_rec], tpc[:n_rec], tmask[:n_rec],
                                                      tspace[:n_rec], tnreq[:n_rec], lines[:n_lines],
                                                      laddr[:n_addr] if lanes else None))
            b = nb
            if self.progress and time.perf_counter() - last_print > 5:
                last_print = time.perf_counter()
                print(f"  {kernel} launch {info.launch_index}: block {b}/{n_blocks}, "
                      f"{done / 1e6:.1f} M warp instructions", file=sys.stderr, flush=True)
        info.seconds = time.perf_counter() - t0
        info.block_stats = bstats
        info.warp_stats = wstats
        if tracing:
            self.sink.end_launch(info)
        if self.progress:
            print(f"  {kernel} launch {info.launch_index}: {n_blocks} blocks, "
                  f"{int(bstats[:, 1].sum())} warp instructions, {info.seconds:.2f} s",
                  file=sys.stderr, flush=True)
        return info

    def _error(self, info: LaunchInfo, err) -> EmulationError:
        code, blk, warp, lane, pc, addr, space = (int(x) for x in err[:7])
        dk = info.kernel_code
        gx, gy, _ = info.grid
        bid = (blk % gx, (blk // gx) % gy, blk // (gx * gy))
        where = (f"kernel {dk.name}, block {bid}, warp {warp}"
                 + (f", lane {lane}" if code in (isa.E_OOB, isa.E_MISALIGNED) else "")
                 + f", pc {pc} ({dk.source}:{int(dk.lines[pc])}: {dk.texts[pc].strip()})")
        msg = isa.ERROR_TEXT.get(code, f"error {code}")
        if code in (isa.E_OOB, isa.E_MISALIGNED):
            msg += f" to {isa.SPACES[space]} address {addr:#x}"
        if code == isa.E_INSTR_LIMIT:
            msg += f" ({self.instr_limit} warp instructions; raise instr_limit if the kernel is just long)"
        return EmulationError(f"{msg} in {where}")


def _without_memory_fast_paths(code: np.ndarray) -> np.ndarray:
    """The code table with the global/shared load, store and atomic fast paths off:
    the general path computes every lane's address, which the lane-address
    trace records (same results, same requests)."""
    out = code.copy()
    fast = out[:, isa.F_FAST]
    off = np.isin(fast, (isa.FK_LD_GLOBAL, isa.FK_ST_GLOBAL, isa.FK_LD_SHARED, isa.FK_ST_SHARED, isa.FK_ATOM_GLOBAL,
                            isa.FK_ATOM_SHARED))
    out[off, isa.F_FAST] = isa.FK_NONE
    return out


@njit(cache=True, nogil=True)
def _warp_order(warp):
    """The records' stable order by warp: a counting sort, since a chunk
    holds whole blocks, whose warps are one dense range of ids."""
    n = len(warp)
    order = np.empty(n, np.int64)
    if n == 0:
        return order
    lo, hi = warp.min(), warp.max()
    start = np.zeros(hi - lo + 2, np.int64)
    for i in range(n):
        start[warp[i] - lo + 1] += 1
    for k in range(1, len(start)):
        start[k] += start[k - 1]
    for i in range(n):
        k = warp[i] - lo
        order[start[k]] = i
        start[k] += 1
    return order


@njit(cache=True, nogil=True)
def _reorder(counts, values, order):
    """Per-record runs of ``values`` (``counts`` each, in record order) put in
    the record order ``order``: (new offsets, new values)."""
    n = len(counts)
    off = np.zeros(n + 1, np.int64)
    for i in range(n):
        off[i + 1] = off[i] + counts[i]
    new_off = np.zeros(n + 1, np.int64)
    for j in range(n):
        new_off[j + 1] = new_off[j] + counts[order[j]]
    out = np.empty(new_off[n], np.int64)
    for j in range(n):
        src, dst = off[order[j]], new_off[j]
        for k in range(new_off[j + 1] - dst):
            out[dst + k] = values[src + k]
    return new_off, out


@njit(cache=True, nogil=True)
def _take(a, order):
    """``a[order]``, without the GIL."""
    out = np.empty(len(order), a.dtype)
    for j in range(len(order)):
        out[j] = a[order[j]]
    return out


def _make_chunk(warp, pc, mask, space, nreq, lines, addrs=None) -> TraceChunk:
    """Order the records of a chunk by warp (stable, so time order is kept).
    Its loops are compiled and run without the GIL, beside the trace
    sink's encoding of the chunk before (numpy's argsort and fancy indexing
    took an eighth of the trace generation of ``cfd``'s paper input)."""
    has_lines = (space == isa.SP_GLOBAL) | (space == isa.SP_LOCAL) | (space == isa.SP_GENERIC)
    order = _warp_order(warp)
    new_off, new_lines = _reorder(np.where(has_lines, nreq, 0).astype(np.int64), lines, order)
    a_off = a_new = None
    if addrs is not None:      # one address per executing lane of every memory record
        lanes = np.bitwise_count(mask.astype(np.uint32)).astype(np.int64)
        a_off, a_new = _reorder(np.where(space != 0, lanes, 0), addrs, order)
    return TraceChunk(_take(warp, order), _take(pc, order), _take(mask, order), _take(space, order),
                      _take(nreq, order), new_off, new_lines, a_off, a_new)


def _read_ptxas_info(ptx_path: Path) -> dict:
    """Registers per thread from the ``<name>.ptxas.txt`` file committed beside
    the PTX (output of ``ptxas -v``), if present."""
    info = ptx_path.with_suffix(".ptxas.txt")
    regs = {}
    if not info.exists():
        return regs
    import re
    cur = None
    for line in info.read_text().splitlines():
        m = re.search(r"Compiling entry function '([\w$]+)'", line)
        if m:
            cur = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and cur:
            regs[cur] = int(m.group(1))
    return regs
