"""3-D grids and blocks (special registers) and dynamic shared memory."""
import numpy as np

from pipeline_lib.ptx import Device

PTX_3D = """
.version 9.0
.target sm_80
.address_size 64
.visible .entry ids(.param .u64 p_out)
{
 .reg .b32 %r<24>;
 .reg .b64 %rd<8>;
 ld.param.u64 %rd1, [p_out];
 mov.u32 %r1, %tid.x;
 mov.u32 %r2, %tid.y;
 mov.u32 %r3, %tid.z;
 mov.u32 %r4, %ctaid.x;
 mov.u32 %r5, %ctaid.y;
 mov.u32 %r6, %ctaid.z;
 mov.u32 %r7, %ntid.x;
 mov.u32 %r8, %ntid.y;
 mov.u32 %r9, %ntid.z;
 mov.u32 %r10, %nctaid.x;
 mov.u32 %r11, %nctaid.y;
 // linear block id and linear thread id in the block
 mad.lo.s32 %r12, %r6, %r11, %r5;
 mad.lo.s32 %r12, %r12, %r10, %r4;
 mad.lo.s32 %r13, %r3, %r8, %r2;
 mad.lo.s32 %r13, %r13, %r7, %r1;
 mul.lo.s32 %r14, %r7, %r8;
 mul.lo.s32 %r14, %r14, %r9;
 mad.lo.s32 %r15, %r12, %r14, %r13;
 // value = tid.x + 10 tid.y + 100 tid.z + 1000 ctaid.x + 10000 ctaid.y + 100000 ctaid.z
 mad.lo.s32 %r16, %r2, 10, %r1;
 mad.lo.s32 %r16, %r3, 100, %r16;
 mad.lo.s32 %r16, %r4, 1000, %r16;
 mad.lo.s32 %r16, %r5, 10000, %r16;
 mad.lo.s32 %r16, %r6, 100000, %r16;
 mul.wide.s32 %rd2, %r15, 4;
 add.s64 %rd3, %rd1, %rd2;
 st.global.u32 [%rd3], %r16;
 ret;
}
"""


def test_three_dimensional_grid_and_block():
    dev = Device()
    mod = dev.load_module(PTX_3D, source="ids.ptx")
    grid, block = (3, 2, 2), (4, 3, 5)
    n = int(np.prod(grid) * np.prod(block))
    out = dev.zeros(n, np.int32)
    dev.launch(mod, "ids", grid, block, [out])
    got = dev.from_device(out, np.int32, n)
    want = []
    for cz in range(2):
        for cy in range(2):
            for cx in range(3):
                for tz in range(5):
                    for ty in range(3):
                        for tx in range(4):
                            want.append(tx + 10 * ty + 100 * tz + 1000 * cx + 10000 * cy + 100000 * cz)
    np.testing.assert_array_equal(got, want)


PTX_DYN = """
.version 9.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry rev(.param .u64 p_in, .param .u64 p_out)
{
 .reg .b32 %r<16>;
 .reg .b64 %rd<8>;
 .shared .align 4 .b8 fixed[12];
 ld.param.u64 %rd1, [p_in];
 ld.param.u64 %rd2, [p_out];
 mov.u32 %r1, %tid.x;
 mov.u32 %r2, %ntid.x;
 mul.wide.u32 %rd3, %r1, 4;
 add.s64 %rd4, %rd1, %rd3;
 ld.global.u32 %r3, [%rd4];
 shl.b32 %r4, %r1, 2;
 mov.u32 %r5, dyn;
 add.s32 %r6, %r5, %r4;
 st.shared.u32 [%r6], %r3;
 bar.sync 0;
 sub.s32 %r7, %r2, %r1;
 sub.s32 %r7, %r7, 1;
 shl.b32 %r8, %r7, 2;
 add.s32 %r9, %r5, %r8;
 ld.shared.u32 %r10, [%r9];
 add.s64 %rd5, %rd2, %rd3;
 st.global.u32 [%rd5], %r10;
 ret;
}
"""


import pytest  # noqa: E402


@pytest.mark.parametrize("scope", ["module", "kernel"])
def test_dynamic_shared_memory_follows_static(scope):
    ptx = PTX_DYN
    if scope == "kernel":
        ptx = ptx.replace(".extern .shared .align 16 .b8 dyn[];\n", "").replace(
            " .shared .align 4 .b8 fixed[12];", " .shared .align 4 .b8 fixed[12];\n .extern .shared .align 16 .b8 dyn[];")
    dev = Device()
    mod = dev.load_module(ptx, source="dyn.ptx")
    k = mod.kernel("rev")
    assert k.has_dynamic_shared and k.shared_static == 12
    x = np.arange(96, dtype=np.int32) * 3
    d_in, d_out = dev.to_device(x), dev.zeros(96, np.int32)
    info = dev.launch(mod, "rev", (1,), (96,), [d_in, d_out], dynamic_shared=96 * 4)
    assert info.shared_bytes == 16 + 96 * 4
    np.testing.assert_array_equal(dev.from_device(d_out, np.int32, 96), x[::-1])
