"""Divergence/reconvergence, warp primitives, barriers, local memory, atomics
and memory widths, on nvcc-compiled kernels (tests/kernels/semantics.cu)."""
from pathlib import Path

import numpy as np
import pytest

from pipeline_lib.ptx import Device
from pipeline_lib.trace import MemorySink

PTX = Path(__file__).parent / "kernels" / "semantics.ptx"


@pytest.fixture()
def dev():
    return Device(sink=MemorySink())


def _divergence_ref(v, t):
    if v < 0:
        return -1
    acc = 0
    for i in range(v % 13):
        if i & 1:
            acc += 2 * i if t % 3 == 0 else -1
        else:
            acc += t & 7
        if acc > 40:
            break
    return acc


def test_divergence_nested_loops_early_return(dev):
    mod = dev.load_module(PTX)
    rng = np.random.default_rng(3)
    n = 300
    x = rng.integers(-20, 200, n).astype(np.int32)
    d_in, d_out = dev.to_device(x), dev.zeros(n, np.int32)
    dev.launch(mod, "divergence", (3,), (128,), [d_in, d_out, n])
    got = dev.from_device(d_out, np.int32, n)
    np.testing.assert_array_equal(got, [_divergence_ref(int(v), t) for t, v in enumerate(x)])


def test_reconvergence_restores_full_mask(dev):
    """After the divergent loop the warp must execute the final store with
    every thread that did not return early (immediate post-dominator)."""
    mod = dev.load_module(PTX)
    x = np.arange(64, dtype=np.int32) * 7 % 50   # all non-negative: no early return
    d_in, d_out = dev.to_device(x), dev.zeros(64, np.int32)
    dev.launch(mod, "divergence", (1,), (64,), [d_in, d_out, 64])
    k = mod.kernel("divergence")
    store_pcs = [pc for pc, t in enumerate(k.texts) if t.startswith("st.global")]
    chunk = dev.sink.chunks[0][1]
    # no thread returns early, so exactly one store per warp executes
    final = [m for p, m in zip(chunk.pc, chunk.mask) if p in store_pcs]
    assert len(final) == 2 and all(m == 0xFFFFFFFF for m in final)
    # and somewhere inside, the warps really diverged
    assert (chunk.mask != 0xFFFFFFFF).any()


def test_warp_primitives(dev):
    mod = dev.load_module(PTX)
    rng = np.random.default_rng(5)
    n = 64
    v = rng.integers(0, 2000, n).astype(np.int32)
    d_in, d_out = dev.to_device(v), dev.zeros(6 * n, np.int32)
    dev.launch(mod, "warp_ops", (1,), (n,), [d_in, d_out])
    got = dev.from_device(d_out, np.int32, 6 * n).reshape(n, 6)
    for t in range(n):
        w, lane = t // 32 * 32, t % 32
        assert got[t, 0] == (v[w + lane + 3] if lane + 3 < 32 else v[t])
        assert got[t, 1] == (v[w + lane - 5] if lane >= 5 else v[t])
        assert got[t, 2] == v[w + (lane ^ 9)]
        assert got[t, 3] == v[w + ((lane * 7) & 31)]
        ballot = sum(1 << i for i in range(32) if v[w + i] & 1)
        assert np.uint32(got[t, 4]) == np.uint32(ballot)
        seg = v[w:w + 32]
        assert got[t, 5] == int((seg > 1000).any()) + 2 * int((seg >= 0).all())


def test_barrier_with_exited_warp(dev):
    mod = dev.load_module(PTX)
    x = np.arange(2 * 96, dtype=np.int32)
    d_in, d_out = dev.to_device(x), dev.zeros(2 * 96, np.int32)
    dev.launch(mod, "barrier_reverse", (2,), (128,), [d_in, d_out])
    got = dev.from_device(d_out, np.int32, 192).reshape(2, 96)
    want = x.reshape(2, 96)[:, ::-1] * 2 + 1
    np.testing.assert_array_equal(got, want)


def test_local_memory_array(dev):
    mod = dev.load_module(PTX)
    assert mod.kernel("local_array").local_bytes == 64
    n = 100
    x = np.arange(n, dtype=np.int32) * 11 % 37
    d_in, d_out = dev.to_device(x), dev.zeros(n, np.int32)
    info = dev.launch(mod, "local_array", (1,), (128,), [d_in, d_out, n])
    want = []
    for t in range(n):
        a = [0] * 16
        for i in range(16):
            a[(i * 5 + t) & 15] = int(x[t]) + i
        want.append(sum(a[(int(x[t]) + i * 3) & 15] * (i + 1) for i in range(16)))
    np.testing.assert_array_equal(dev.from_device(d_out, np.int32, n), want)
    assert info.block_stats[:, 3].sum() > 0  # local memory requests were counted


def test_atomics_deterministic_order(dev):
    mod = dev.load_module(PTX)
    nb, bs = 3, 64
    n = nb * bs
    ptr = [dev.to_device(np.zeros(1, np.int32)), dev.zeros(n, np.int32),
           dev.to_device(np.zeros(1, np.uint64)), dev.to_device(np.zeros(1, np.float32)),
           dev.to_device(np.array([-1], np.int32)), dev.zeros(n, np.int32),
           dev.to_device(np.zeros(1, np.uint32)), dev.zeros(nb, np.int32)]
    dev.launch(mod, "atomics", (nb,), (bs,), ptr)
    # blocks in order, warps in order, lanes in order
    np.testing.assert_array_equal(dev.from_device(ptr[1], np.int32, n), np.arange(n))
    assert dev.from_device(ptr[0], np.int32, 1)[0] == n
    assert dev.from_device(ptr[2], np.uint64, 1)[0] == max(t * 1000003 % 4093 for t in range(n))
    assert dev.from_device(ptr[3], np.float32, 1)[0] == 0.5 * n
    won = dev.from_device(ptr[5], np.int32, n)
    assert won[0] == 1 and won.sum() == 1
    inc = 0
    for _ in range(n):
        inc = 0 if inc >= 9 else inc + 1
    assert dev.from_device(ptr[6], np.uint32, 1)[0] == inc
    np.testing.assert_array_equal(dev.from_device(ptr[7], np.int32, nb), [sum(range(bs))] * nb)


def test_vector_narrow_and_double_accesses(dev):
    mod = dev.load_module(PTX)
    rng = np.random.default_rng(9)
    n = 70
    v4 = rng.standard_normal((n, 4)).astype(np.float32)
    u8 = rng.integers(0, 256, n).astype(np.uint8)
    s16 = rng.integers(-30000, 30000, n).astype(np.int16)
    d = rng.standard_normal(n) + 5
    ptrs = [dev.to_device(v4), dev.zeros(4 * n, np.float32), dev.to_device(u8), dev.to_device(s16),
            dev.to_device(d), dev.zeros(n, np.float64), dev.zeros(n, np.int32)]
    dev.launch(mod, "mem_widths", (2,), (64,), ptrs + [n])
    o4 = dev.from_device(ptrs[1], np.float32, 4 * n).reshape(n, 4)
    np.testing.assert_array_equal(o4, np.stack([v4[:, 3], v4[:, 2] + 1, v4[:, 1] * 2, v4[:, 0] - v4[:, 1]], 1))
    np.testing.assert_allclose(dev.from_device(ptrs[5], np.float64, n), d * d + 1 / (d + 3), rtol=1e-15)
    np.testing.assert_array_equal(dev.from_device(ptrs[6], np.int32, n), u8.astype(np.int32) + s16)
