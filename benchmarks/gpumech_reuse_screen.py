"""Can reuse distances measured once on the analysed configuration tell
which launches' L1 counts change with the SM occupancy? (docs/gpumech.md,
"Re-evaluation": a study towards collecting once per trace.)

    .venv/bin/python benchmarks/gpumech_reuse_screen.py [--hw gpumech-baseline]
        [--variants w8,w16,w48] [--workloads spmv-scalar,lbm,...]

Per launch, each core's stream of L1 load lines is built in a simple
order -- the core's blocks (block b on core b mod cores) held ``occ`` at a
time, each resident warp giving its next global/local load per round, as
the seed's round-robin collector feeds them -- and every access's LRU stack
distance (distinct lines since the line's last access on that core) is
counted.  A fully associative LRU L1 of C lines hits exactly the accesses
at a distance below C.  Three L1 hit shares per launch and variant:

- *base*: the stream at the analysed occupancy ``occ``, distances below C;
- *scaled*: the same distances scaled by ``occ' / occ`` (the interleaved
  lines grow with the resident blocks), below C -- what a profile collected
  once could predict;
- *direct*: the stream rebuilt at the variant's occupancy ``occ'``.

Against them, the scheduler-ordered collector's L1 hit share on both
configurations (the counts MT_CONTENTION reads), and the CPI deviation of
predicting the variant from the base's counts against collecting again.
Prints the share of the suite's warp instructions in launches whose
collection cannot change (:meth:`Reevaluation.unchanged_launches`), per
workload the largest changes, and over the suite the rank correlation of
the predicted change (scaled - base, direct - base) with the collector's.
"""
import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from numba import njit, types
from numba.typed import Dict

from gpumech_reevaluation import suite, variant
from pipeline_lib.gpumech.analysis import GPUMech, warm_up
from pipeline_lib.gpumech.collector import PC_L1_ACC, PC_L1_MISS
from pipeline_lib.gpumech.reevaluate import Reevaluation
from pipeline_lib.sim import static as S
from pipeline_lib.sim.hardware import load_hardware, occupancy
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.workflow import Paths

ROOT = Path(__file__).resolve().parents[1]
SP_GLOBAL, SP_LOCAL, SP_MIXED = S.SP_GLOBAL, S.SP_LOCAL, S.SP_MIXED


@njit(cache=True)
def _fen_add(f, i, v):
    i += 1
    while i < f.shape[0]:
        f[i] += v
        i += i & -i


@njit(cache=True)
def _fen_sum(f, i):
    """Sum of positions 0..i."""
    i += 1
    s = 0
    while i > 0:
        s += f[i]
        i -= i & -i
    return s


@njit(cache=True)
def _fill_slot(j, c, nxt, nb, cores, wpb, warp_off, pos, end):
    """Core ``c``'s next blocks (its ``nxt``-th on) into block slot ``j``
    until one has a warp with instructions; returns (its live warps, the
    next block's index)."""
    while nxt < nb:
        b = c + nxt * cores
        nxt += 1
        got = 0
        for k in range(wpb):
            pos[j * wpb + k] = warp_off[b * wpb + k]
            end[j * wpb + k] = warp_off[b * wpb + k + 1]
            got += pos[j * wpb + k] < end[j * wpb + k]
        if got:
            return got, nxt
    return 0, nxt


@njit(cache=True)
def stack_histogram(warp_off, t_pc, t_space, t_nreq, t_loff, t_lines, is_load, n_blocks, wpb, occ, cores, maxd):
    """Histogram of the LRU stack distances of every core's L1 load lines
    (bin maxd + 1: a first access or a distance above maxd), the cores fed
    as the module docstring says."""
    hist = np.zeros(maxd + 2, np.int64)
    nslot = occ * wpb
    pos = np.zeros(nslot, np.int64)
    end = np.zeros(nslot, np.int64)
    for c in range(min(cores, n_blocks)):
        nb = (n_blocks - c + cores - 1) // cores
        total = 0
        for k in range(nb):
            b = c + k * cores
            for r in range(warp_off[b * wpb], warp_off[(b + 1) * wpb]):
                if is_load[t_pc[r]] and t_nreq[r] > 0 and (t_space[r] == SP_GLOBAL or t_space[r] == SP_LOCAL
                                                            or t_space[r] == SP_MIXED):
                    total += t_loff[r + 1] - t_loff[r]
        fen = np.zeros(total + 2, np.int64)
        last = Dict.empty(types.int64, types.int64)
        nxt = 0
        live = 0
        pos[:] = 0
        end[:] = 0
        for j in range(occ):
            got, nxt = _fill_slot(j, c, nxt, nb, cores, wpb, warp_off, pos, end)
            live += got
        t = 0
        while live > 0:
            for w in range(nslot):
                r = pos[w]
                if r >= end[w]:
                    continue
                while r < end[w] and not (is_load[t_pc[r]] and t_nreq[r] > 0 and (
                        t_space[r] == SP_GLOBAL or t_space[r] == SP_LOCAL or t_space[r] == SP_MIXED)):
                    r += 1
                if r < end[w]:
                    for q in range(t_loff[r], t_loff[r + 1]):
                        line = t_lines[q] >> 7
                        if line in last:
                            p = last[line]
                            d = _fen_sum(fen, t - 1) - _fen_sum(fen, p)
                            _fen_add(fen, p, -1)
                            hist[min(d, maxd + 1)] += 1
                        else:
                            hist[maxd + 1] += 1
                        _fen_add(fen, t, 1)
                        last[line] = t
                        t += 1
                    r += 1
                pos[w] = r
                if r >= end[w]:
                    live -= 1
                    j = w // wpb
                    done = True
                    for k in range(wpb):
                        done &= pos[j * wpb + k] >= end[j * wpb + k]
                    if done:
                        got, nxt = _fill_slot(j, c, nxt, nb, cores, wpb, warp_off, pos, end)
                        live += got
    return hist


def hit_share(hist: np.ndarray, limit: float) -> float:
    """Share of the accesses at a distance below ``limit`` lines."""
    n = hist.sum()
    return float(hist[:min(int(np.ceil(limit)), len(hist) - 1)].sum() / n) if n else 0.0


def l1_hits(counts: np.ndarray) -> tuple[float, int]:
    acc = int(counts[:, PC_L1_ACC].sum())
    return (1 - counts[:, PC_L1_MISS].sum() / acc if acc else 0.0), acc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hw", default="gpumech-baseline")
    ap.add_argument("--variants", default="w8,w16,w48")
    ap.add_argument("--workloads", default=None, help="comma-separated (default: the medium suite)")
    ap.add_argument("--csv", default=None, help="also write the per-launch table to this file")
    a = ap.parse_args()
    hw = load_hardware(a.hw)
    variants = {v: load_hardware(variant(a.hw, v)) for v in a.variants.split(",")}
    C = hw["l1"]["size_bytes"] // hw["l1"]["line_bytes"]
    warm_up(hw)
    rows = []
    share = {v: [0.0, 0.0] for v in variants}    # warp instructions in launches that keep the analysis's counts
    for wl in (a.workloads.split(",") if a.workloads else suite()):
        trace = TraceDir(Path(Paths(ROOT / "results").trace_dir(wl)))
        base = GPUMech(hw).run(trace)
        ev = Reevaluation(trace, base["launches"], base["collected"], hw=hw)
        static = ev._static(hw)
        pol = hw["scheduler"]
        again = {v: ev.collect(h) for v, h in variants.items()}
        preds = {v: (ev.predict(h), ev.predict(h, collected=again[v])) for v, h in variants.items()}
        for v, h in variants.items():
            same = ev.unchanged_launches(h)
            n = np.array([float(L["warp_instrs"]) for L in ev.launches])
            share[v][0] += n[np.array(same, bool)].sum()
            share[v][1] += n.sum()
        for L in ev.launches:
            lid = int(L["launch"])
            lt = trace.launch_trace(lid)
            is_load = static[L["kernel"]][:, S.P_KIND] == S.K_LOAD
            args = (int(L["threads_per_block"]), int(L["regs_per_thread"]), int(L["shared_bytes"]))
            occ = occupancy(hw, *args)["sm_occupancy"]
            geo = (int(L["n_blocks"]), int(L["warps_per_block"]))
            maxd = 16 * C
            h0 = stack_histogram(lt.warp_off, lt.pc, lt.space, lt.nreq, lt.line_off, lt.lines, is_load, *geo, occ,
                                 hw["cores"], maxd)
            c0, acc = l1_hits(ev.collected[(lid, pol)].counts)
            if acc == 0:
                continue
            for v, h in variants.items():
                occ2 = occupancy(h, *args)["sm_occupancy"]
                h2 = stack_histogram(lt.warp_off, lt.pc, lt.space, lt.nreq, lt.line_off, lt.lines, is_load, *geo,
                                     occ2, h["cores"], maxd)
                c2, _ = l1_hits(again[v][(lid, pol)].counts)
                reused, full = (p.set_index("launch").loc[lid, "cpi"] for p in preds[v])
                rows.append(dict(workload=wl, launch=lid, variant=v, occ=occ, occ2=occ2, accesses=acc,
                                 base=hit_share(h0, C), scaled=hit_share(h0, C * occ / occ2),
                                 direct=hit_share(h2, C), col_base=c0, col_var=c2,
                                 cpi_dev=abs(reused - full) / full))
        print(f"{wl}: done", flush=True)
    for v, (kept, n) in share.items():
        print(f"{v}: {100 * kept / max(n, 1):.1f}% of the warp instructions are in launches whose collection "
              f"cannot change (Reevaluation.unchanged_launches)")
    t = pd.DataFrame(rows)
    t["d_col"] = t["col_var"] - t["col_base"]
    t["d_scaled"] = t["scaled"] - t["base"]
    t["d_direct"] = t["direct"] - t["base"]
    pd.set_option("display.width", 200)
    print(t.groupby(["workload", "variant"])[["d_col", "d_scaled", "d_direct", "cpi_dev"]]
          .agg(lambda x: x.abs().max()).round(3).to_string())
    print("suite: rank correlation with the collector's change of L1 hit share, per (launch, variant):")
    for k in ("d_scaled", "d_direct"):
        print(f"  {k}: {t[k].corr(t['d_col'], method='spearman'):.3f} (Pearson {t[k].corr(t['d_col']):.3f}); "
              f"|{k}| with the reused counts' CPI deviation: "
              f"{t[k].abs().corr(t['cpi_dev'], method='spearman'):.3f}")
    print(f"  |d_col| with the CPI deviation: {t['d_col'].abs().corr(t['cpi_dev'], method='spearman'):.3f}")
    if a.csv:
        t.to_csv(a.csv, index=False)


if __name__ == "__main__":
    main()
