"""Bad input: clear errors naming kernel, line, block, warp, lane, PC, address."""
from pathlib import Path

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


def _fault(body, source, threads):
    """The error message of ``body`` run by one block of ``threads`` threads
    on a 40-word buffer, and the buffer's address."""
    dev = Device()
    mod = dev.load_module(_kernel(body), source=source)
    out = dev.zeros(40, np.int32)
    with pytest.raises(EmulationError) as e:
        dev.launch(mod, "k", (1,), (threads,), [out, threads])
    return str(e.value), out


def test_out_of_bounds_store_names_block_warp_lane_pc_address():
    # thread i stores to out[i]; launch more threads than the buffer holds
    body = " mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r1;"
    msg, out = _fault(body, "oob.ptx", 64)
    assert "out-of-bounds" in msg and "global address" in msg
    assert "block (0, 0, 0), warp 1, lane 8" in msg and "st.global.u32" in msg and "oob.ptx:15" in msg
    assert hex(out + 160) in msg


def test_out_of_bounds_gather_names_the_first_faulting_active_lane():
    # even lanes load out[(7 i) mod 64] of a 40-word buffer: lane 6 (word 42) is the first out of it
    body = (" mul.lo.u32 %r2, %r1, 7;\n and.b32 %r2, %r2, 63;\n mul.wide.u32 %rd2, %r2, 4;\n"
            " add.s64 %rd3, %rd1, %rd2;\n and.b32 %r3, %r1, 1;\n setp.eq.u32 %p1, %r3, 0;\n"
            " @%p1 ld.global.u32 %r4, [%rd3];")
    msg, out = _fault(body, "gather.ptx", 32)
    assert "out-of-bounds" in msg and "warp 0, lane 6" in msg and "ld.global.u32" in msg
    assert hex(out + 168) in msg


def test_out_of_bounds_atomic_faults_before_any_lane_writes():
    """An atomic's lanes are all checked before any lane's access (the
    general path's order, kept by the fast path for global atomics,
    isa.FK_ATOM_GLOBAL): lane 8 of warp 1 is past the 40-word buffer, and
    the words the warp's earlier lanes address keep their values."""
    from pipeline_lib.ptx import isa
    body = (" mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n"
            " red.global.add.u32 [%rd3], 5;\n atom.global.add.u32 %r2, [%rd3], 1;")
    code = Device().load_module(_kernel(body), source="atom.ptx").kernel("k").code
    assert (code[code[:, isa.F_OP] == isa.OP_ATOM, isa.F_FAST] == isa.FK_ATOM_GLOBAL).all()
    assert (code[code[:, isa.F_OP] == isa.OP_RED, isa.F_FAST] == isa.FK_ATOM_GLOBAL).all()
    dev = Device()
    mod = dev.load_module(_kernel(body), source="atom.ptx")
    out = dev.zeros(40, np.int32)
    with pytest.raises(EmulationError) as e:
        dev.launch(mod, "k", (1,), (64,), [out, 64])
    msg = str(e.value)
    assert "out-of-bounds" in msg and "warp 1, lane 8" in msg and "red.global.add.u32" in msg
    assert hex(out + 160) in msg
    # warp 0 ran both atomics, warp 1 faulted on its first before touching words 32-39
    np.testing.assert_array_equal(dev.from_device(out, np.int32, 40), [6] * 32 + [0] * 8)


def test_out_of_bounds_shared_atomic_names_the_first_faulting_lane():
    """The shared-memory atomics' fast path (isa.FK_ATOM_SHARED) checks
    every lane against the block's shared memory: lane 16 is past 64 bytes."""
    from pipeline_lib.ptx import isa
    ptx = HEADER.replace(" .reg .pred", " .shared .align 4 .b8 sm[64];\n .reg .pred") + \
        " shl.b32 %r2, %r1, 2;\n mov.u32 %r3, sm;\n add.s32 %r4, %r3, %r2;\n atom.shared.add.u32 %r6, [%r4], 1;\n" \
        " ret;\n}\n"
    dev = Device()
    mod = dev.load_module(ptx, source="sm.ptx")
    code = mod.kernel("k").code
    assert isa.FK_ATOM_SHARED in code[:, isa.F_FAST]
    with pytest.raises(EmulationError, match=r"out-of-bounds access to shared address 0x40 .* lane 16"):
        dev.launch(mod, "k", (1,), (32,), [dev.zeros(1, np.int32), 32])


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


def test_line_shadow_marks_whole_lines_only_and_survives_growth():
    """The emulator trusts a 128-byte line's flag without reading the byte
    shadow (device._shadow): only lines allocated whole may be flagged, and
    the flags must move with the memory when it grows."""
    from pipeline_lib.ptx import isa

    dev = Device(heap_bytes=4096)
    first = dev.malloc(300) - isa.GLOBAL_BASE          # aligned to 256: two whole lines, then 44 bytes
    cap = len(dev.mem)
    assert list(dev.shadow[cap + first // 128:cap + first // 128 + 3]) == [1, 1, 0]
    dev.malloc(1 << 16)                                 # grows the memory
    assert len(dev.mem) > cap
    cap = len(dev.mem)
    assert list(dev.shadow[cap + first // 128:cap + first // 128 + 3]) == [1, 1, 0]
    assert dev.shadow[first + 299] == 1 and dev.shadow[first + 300] == 0
    # a store to every word of the first allocation is in bounds; one word
    # past it, in its partly allocated last line, is not
    body = " mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r1;"
    mod = dev.load_module(_kernel(body), source="lines.ptx")
    dev.launch(mod, "k", (1,), (75,), [isa.GLOBAL_BASE + first, 75])
    assert list(dev.from_device(isa.GLOBAL_BASE + first, np.int32, 75)) == list(range(75))
    with pytest.raises(EmulationError, match=r"out-of-bounds .* lane 11"):
        dev.launch(mod, "k", (1,), (76,), [isa.GLOBAL_BASE + first, 76])


def test_host_access_outside_allocations():
    dev = Device()
    p = dev.zeros(4, np.int32)
    with pytest.raises(EmulationError, match="unallocated device memory"):
        dev.from_device(p, np.int32, 100)


# ---- malformed PTX: every parser/decoder failure names file:line (kernel) ----
KERNELS = Path(__file__).resolve().parent / "kernels"
REDUCTION = (Path(__file__).resolve().parents[1] / "workloads" / "reduction.ptx").read_text()


def _ptx_error(text, kernel=None) -> str:
    with pytest.raises(PTXError) as e:
        mod = Device().load_module(text, source="cut.ptx")
        if kernel:
            mod.kernel(kernel)
    return str(e.value)


def test_missing_operand_is_an_error_not_garbage():
    msg = _ptx_error(_kernel(" add.s32 %r6, %r1;"), "k")
    assert msg.startswith("cut.ptx:13 (kernel k): 'add' takes 3 operands, got 2") and "add.s32 %r6, %r1" in msg
    msg = _ptx_error(_kernel(" mad.lo.s32 %r6, %r1, %r5;"), "k")
    assert "'mad' takes 4 operands, got 3" in msg
    msg = _ptx_error(_kernel(" add.s32 %r6, [%rd1], 1;"), "k")
    assert "operand 2 of 'add' is an address" in msg


def _cut_after(marker: str) -> str:
    """reduction.ptx cut right after the first line containing ``marker``."""
    lines = REDUCTION.splitlines(keepends=True)
    n = next(i for i, ln in enumerate(lines) if marker in ln)
    return "".join(lines[:n + 1]), n + 1


def test_file_cut_mid_kernel_is_reported_with_kernel_and_line():
    text, line = _cut_after("setp.ge.s32")
    msg = _ptx_error(text)
    assert msg.startswith(f"cut.ptx:{line} (kernel reduce_sum): the file ends inside kernel reduce_sum")
    assert "truncated" in msg


def test_file_cut_after_a_label_is_reported_not_an_index_error():
    text, line = _cut_after("$L__BB0_2:")
    msg = _ptx_error(text)
    assert msg.startswith(f"cut.ptx:{line} (kernel reduce_sum): the file ends inside kernel reduce_sum")


def test_file_cut_inside_the_parameter_list():
    text, _ = _cut_after(".param .u32 reduce_sum_param_1")
    msg = _ptx_error(text)
    assert "the file ends in the header of kernel reduce_sum" in msg and "cut.ptx:" in msg


def test_file_cut_inside_an_instruction():
    text = _cut_after("mov.u32 \t%r1, %ntid.x")[0][:-1].rstrip(";")
    msg = _ptx_error(text)
    assert "the file ends inside kernel reduce_sum" in msg and "has no ';'" in msg


def test_a_label_at_the_end_of_a_kernel_branches_to_its_exit():
    body = " setp.lt.u32 %p1, %r1, 4;\n @%p1 bra $L_end;\n ret;\n$L_end:\n}\n"
    mod = Device().load_module(HEADER + body, source="end.ptx")
    assert mod.kernel("k").texts[-1] == "exit (implicit)"


def test_not_ptx_at_all():
    assert "no .version directive" in _ptx_error("// an empty file\n")
    assert "unsupported module-level directive" in _ptx_error("hello world;\n")


@pytest.mark.parametrize("kernel, line, expect", [
    ("uses_printf", "call.uni", "unsupported instruction 'call': device-function calls (including printf"),
    ("uses_double_exp", "mov.b64 \t{%r1, %temp}, %fd8", "mov packing or unpacking a vector {a, b}"),
    ("uses_texture", "tex.1d.v4.f32.s32", "unsupported instruction 'tex': texture fetches are not supported"),
    ("uses_half", "add.f16", "half-precision and narrow floating point (.f16) arithmetic is not supported"),
])
def test_unsupported_instructions_are_named_and_the_module_still_loads(kernel, line, expect):
    """Real nvcc output (tests/kernels/unsupported.cu)."""
    path = KERNELS / "unsupported.ptx"
    dev = Device()
    mod = dev.load_module(path)
    with pytest.raises(PTXError) as e:
        mod.kernel(kernel)
    msg = str(e.value)
    lineno = next(i + 1 for i, ln in enumerate(path.read_text().splitlines()) if line in ln)
    assert msg.startswith(f"{path}:{lineno} (kernel {kernel}): ") and expect in msg
    # the module's supported kernel still runs, with the right answer
    out = dev.zeros(40, np.float32)
    dev.launch(mod, "supported", (2,), (32,), [out, 40])
    assert np.array_equal(dev.from_device(out, np.float32, 40), 2.0 * np.arange(40, dtype=np.float32))


def test_full_warp_store_past_a_partly_allocated_line_faults_at_its_last_lane():
    """A full warp storing consecutive words takes the coalesced path of
    the emulator's fast memory access; when its span ends one word past an
    allocation, inside a line allocated in part, the fault must still name
    the first lane out of bounds, after the lanes before it have stored."""
    from pipeline_lib.ptx import isa

    dev = Device(heap_bytes=4096)
    first = dev.malloc(31 * 4)
    body = " mul.wide.u32 %rd2, %r1, 4;\n add.s64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r1;"
    mod = dev.load_module(_kernel(body), source="span.ptx")
    with pytest.raises(EmulationError, match=r"out-of-bounds .* warp 0, lane 31"):
        dev.launch(mod, "k", (1,), (32,), [first, 32])
    assert list(dev.from_device(first, np.int32, 31)) == list(range(31))
    assert isa.GLOBAL_BASE <= first
