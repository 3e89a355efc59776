"""Bad input: clear errors naming kernel, line, block, warp, lane, PC, address."""
import numpy as np
import pytest

from pipeline_lib.ptx import Device, EmulationError, PTXError
from ptx_harness import op_kernel

HEADER = """
.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p_out, .param .u32 p_n)
{
 .reg .pred %p<4>;
 .reg .b32 %r<16>;
 .reg .b64 %rd<16>;
 ld.param.u64 %rd1, [p_out];
 ld.param.u32 %r5, [p_n];
 mov.u32 %r1, %tid.x;
"""


def _kernel(body):
    return HEADER + body + "\n ret;\n}\n"


def test_unsupported_opcode_names_kernel_line_and_text():
    ptx = _kernel(" frobnicate.b32 %r2, %r1;")
    with pytest.raises(PTXError) as e:
        Device().load_module(ptx, source="bad.ptx").kernel("k")
    msg = str(e.value)
    assert "bad.ptx:13" in msg and "kernel k" in msg and "frobnicate" in msg


def test_unsupported_directive_is_an_error():
    with pytest.raises(PTXError, match=r"bad.ptx:5.*unsupported module-level directive"):
        Device().load_module(".version 9.0\n.target sm_80\n.address_size 64\n\n.blah 3;\n", source="bad.ptx")


def test_undeclared_register():
    with pytest.raises(PTXError, match="undeclared register"):
        Device().load_module(_kernel(" add.s32 %r2, %r1, %q9;"), source="x.ptx").kernel("k")


def test_out_of_bounds_store_names_block_warp_lane_pc_address():
    # thread i stores to out[i]; launch more threads than the buffer holds
    body = " mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r1;"
    dev = Device()
    mod = dev.load_module(_kernel(body), source="oob.ptx")
    out = dev.zeros(40, np.int32)
    with pytest.raises(EmulationError) as e:
        dev.launch(mod, "k", (1,), (64,), [out, 64])
    msg = str(e.value)
    assert "out-of-bounds" in msg and "global address" in msg
    assert "block (0, 0, 0), warp 1, lane 8" in msg and "st.global.u32" in msg and "oob.ptx:15" in msg
    assert hex(out + 160) in msg


def test_misaligned_access():
    body = " cvt.u64.u32 %rd2, %r1;\n add.s64 %rd3, %rd1, %rd2;\n ld.global.u32 %r2, [%rd3+1];"
    dev = Device()
    mod = dev.load_module(_kernel(body), source="mis.ptx")
    out = dev.zeros(256, np.int32)
    with pytest.raises(EmulationError, match=r"misaligned access to global address .* lane 0"):
        dev.launch(mod, "k", (1,), (32,), [out, 32])


def test_null_pointer_is_out_of_bounds():
    dev = Device()
    mod = dev.load_module(_kernel(" ld.global.u32 %r2, [%rd1];"), source="null.ptx")
    with pytest.raises(EmulationError, match="out-of-bounds access to global address 0x0"):
        dev.launch(mod, "k", (1,), (32,), [0, 32])


def test_shared_out_of_bounds():
    ptx = HEADER.replace(" .reg .pred", " .shared .align 4 .b8 sm[64];\n .reg .pred") + \
        " shl.b32 %r2, %r1, 2;\n mov.u32 %r3, sm;\n add.s32 %r4, %r3, %r2;\n st.shared.u32 [%r4], %r1;\n ret;\n}\n"
    dev = Device()
    mod = dev.load_module(ptx, source="sm.ptx")
    with pytest.raises(EmulationError, match=r"out-of-bounds access to shared address 0x40 .* lane 16"):
        dev.launch(mod, "k", (1,), (32,), [dev.zeros(1, np.int32), 32])


def test_infinite_loop_hits_instruction_limit():
    body = "$LOOP:\n add.s32 %r2, %r2, 1;\n bra $LOOP;"
    dev = Device(instr_limit=10_000)
    mod = dev.load_module(_kernel(body), source="loop.ptx")
    with pytest.raises(EmulationError, match="instruction limit exceeded .*10000"):
        dev.launch(mod, "k", (1,), (32,), [dev.zeros(1, np.int32), 1])


def test_wrong_argument_count_and_bad_launch_shape():
    dev = Device()
    mod = dev.load_module(op_kernel("add.s32 D, A, B;", "s32", "s32", None, "s32"), source="t.ptx")
    with pytest.raises(EmulationError, match="takes 5 arguments, got 2"):
        dev.launch(mod, "k", (1,), (32,), [0, 1])
    with pytest.raises(EmulationError, match="invalid launch configuration"):
        dev.launch(mod, "k", (1,), (2048,), [0, 0, 0, 0, 1])


def test_unknown_kernel():
    dev = Device()
    mod = dev.load_module(op_kernel("add.s32 D, A, B;", "s32", "s32", None, "s32"), source="t.ptx")
    with pytest.raises(PTXError, match="no kernel named 'nope'"):
        mod.kernel("nope")


def test_host_access_outside_allocations():
    dev = Device()
    p = dev.zeros(4, np.int32)
    with pytest.raises(EmulationError, match="unallocated device memory"):
        dev.from_device(p, np.int32, 100)
