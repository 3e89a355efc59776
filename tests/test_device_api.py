"""The emulator's host API as docs/device_api.md describes it: allocation,
copies, module variables (copy_to_symbol for __constant__ data), launches
with dynamic shared memory, and its errors (nvcc-compiled tests/kernels/symbols.cu)."""
from pathlib import Path

import numpy as np
import pytest

from pipeline_lib.ptx import Device, EmulationError

SYMBOLS = Path(__file__).resolve().parent / "kernels" / "symbols.ptx"


def test_constant_memory_upload_reaches_the_kernel():
    dev = Device()
    mod = dev.load_module(SYMBOLS)
    c = np.array([1.0, -2.0, 0.5, 0.25], np.float32)
    dev.copy_to_symbol(mod, "coeff", c)
    x = np.linspace(-2, 2, 100).astype(np.float32)
    d_x, d_y = dev.to_device(x), dev.zeros(100, np.float32)
    dev.launch(mod, "poly", (4,), (32,), [d_x, d_y, 100])
    want = c[0] + x * (c[1] + x * (c[2] + x * c[3]))
    assert np.allclose(dev.from_device(d_y, np.float32, 100), want, rtol=1e-6, atol=1e-5)
    # a second upload (part of the array, at an offset) is seen by the next launch
    dev.copy_to_symbol(mod, "coeff", np.array([0.0], np.float32), offset=12)
    dev.launch(mod, "poly", (4,), (32,), [d_x, d_y, 100])
    want = c[0] + x * (c[1] + x * c[2])
    assert np.allclose(dev.from_device(d_y, np.float32, 100), want, rtol=1e-6, atol=1e-5)
    assert np.array_equal(dev.copy_from_symbol(mod, "coeff", np.float32, 4), [1.0, -2.0, 0.5, 0.0])


def test_device_variable_round_trip():
    dev = Device()
    mod = dev.load_module(SYMBOLS)
    dev.copy_to_symbol(mod, "total", np.array([7], np.int32))
    d_x, d_y = dev.to_device(np.zeros(50, np.float32)), dev.zeros(50, np.float32)
    dev.launch(mod, "poly", (2,), (32,), [d_x, d_y, 50])
    assert dev.copy_from_symbol(mod, "total", np.int32, 1)[0] == 57


def test_symbol_errors_name_the_variable():
    dev = Device()
    mod = dev.load_module(SYMBOLS)
    with pytest.raises(EmulationError, match=r"no __constant__ or __device__ variable named 'coef'.*coeff, total"):
        dev.copy_to_symbol(mod, "coef", np.zeros(4, np.float32))
    with pytest.raises(EmulationError, match=r"20 bytes at offset 0 do not fit in coeff \(16 bytes\)"):
        dev.copy_to_symbol(mod, "coeff", np.zeros(5, np.float32))


def test_launch_with_dynamic_shared_memory():
    dev = Device()
    mod = dev.load_module(SYMBOLS)
    data = np.arange(128, dtype=np.int32)
    d_in, d_out = dev.to_device(data), dev.zeros(128, np.int32)
    info = dev.launch(mod, "reverse_block", (2,), (64,), [d_in, d_out], dynamic_shared=64 * 4)
    assert info.shared_bytes >= 256
    out = dev.from_device(d_out, np.int32, 128)
    assert np.array_equal(out, np.concatenate([data[:64][::-1], data[64:][::-1]]))
    with pytest.raises(EmulationError, match="invalid launch configuration"):
        dev.launch(mod, "reverse_block", (1,), (2048,), [d_in, d_out], dynamic_shared=64)


def test_global_memory_starts_on_a_host_page_and_keeps_data_as_it_grows():
    """Device lines must map onto whole host cache lines (the emulator's
    prefetch and vector loads assume it, docs/emulator.md); growing the
    memory keeps its contents and the alignment."""
    dev = Device(heap_bytes=1 << 12)
    assert dev.mem.ctypes.data % 4096 == 0 and len(dev.mem) == 1 << 12
    x = np.arange(300, dtype=np.int32)
    d_x = dev.to_device(x)
    d_big = dev.zeros(1 << 20, np.uint8)        # forces the memory to grow
    assert len(dev.mem) >= 1 << 20 and dev.mem.ctypes.data % 4096 == 0
    assert np.array_equal(dev.from_device(d_x, np.int32, 300), x)
    assert not dev.from_device(d_big, np.uint8, 1 << 20).any()
