"""LLVM intrinsics for the compiled hot loops (the PTX emulator's): single
machine instructions that numba does not emit from the plain Python forms.

* :func:`popcount` and :func:`lowest_bit` (``llvm.ctpop`` / ``llvm.cttz``:
  popcnt / tzcnt): the bit-trick forms they replace were not turned into
  those instructions (4.4% of the emulator's samples on `spmv` went to the
  population count alone);
* :func:`prefetch` (``llvm.prefetch``): asks the host's caches for a line
  that a later loop will read, so that a gather's independent loads overlap
  (docs/emulator.md, "Speed").
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _bit_intrinsic(name):
    """An intrinsic on an int64 that calls LLVM's ``llvm.<name>.i64`` (one
    machine instruction, popcnt or tzcnt, where the host has it)."""
    @intrinsic
    def bit_op(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            i64 = ir.IntType(64)
            v = context.cast(builder, args[0], sig.args[0], types.int64)
            argtys = [i64] if name == "ctpop" else [i64, ir.IntType(1)]
            f = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, argtys), f"llvm.{name}.i64")
            extra = [] if name == "ctpop" else [ir.Constant(ir.IntType(1), 0)]    # cttz of 0 is 64, defined
            return builder.call(f, [v] + extra)
        return types.int64(x), codegen
    return bit_op


#: the set bits of an int64 (a warp's 32-lane mask: its active lanes)
popcount = _bit_intrinsic("ctpop")
#: the index of the lowest set bit of an int64 (64 for 0)
lowest_bit = _bit_intrinsic("cttz")


@intrinsic
def prefetch(typingctx, arr, idx):
    """Ask the host to bring ``arr[idx]``'s cache line in (``llvm.prefetch``
    for a read, kept in every cache level).  A hint only: it cannot fault
    and has no effect on any result whatever ``idx`` is, in bounds or not."""
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        i = context.cast(builder, args[1], sig.args[1], types.int64)
        ptr = builder.bitcast(builder.gep(ary.data, [i]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        f = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32]),
                                           "llvm.prefetch.p0i8")
        builder.call(f, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.none(arr, idx), codegen
