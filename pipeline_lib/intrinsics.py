"""LLVM intrinsics for the compiled hot loops (the PTX emulator's): single
machine instructions that numba does not emit from the plain Python forms.

* :func:`popcount` and :func:`lowest_bit` (``llvm.ctpop`` / ``llvm.cttz``:
  popcnt / tzcnt): the bit-trick forms they replace were not turned into
  those instructions (4.4% of the emulator's samples on `spmv` went to the
  population count alone);
* :func:`prefetch` (``llvm.prefetch``): asks the host's caches for a line
  that a later loop will read, so that a gather's independent loads overlap
  (docs/emulator.md, "Speed");
* :func:`sort8`, :func:`sort16`, :func:`sort32`: the first 8, 16 or 32
  int64 values of an array sorted in place by a bitonic network on one
  vector (6, 10 or 15 stages of a shuffle, a minimum, a maximum and a
  select), with no branch; the rank-counting sort it replaced in the
  emulator's line lists took a quarter of `cfd`'s samples;
* :func:`bits_of_f32`, :func:`f32_of_bits`, :func:`bits_of_f64` and
  :func:`f64_of_bits`: a float's bits as an integer and back, in registers.
  Through a scratch array they were a store and a load each, and the f32
  form (a 4-byte store read back as 8 bytes) defeated the host's
  store-to-load forwarding: 7% of `kmeans`' samples, on its float
  atomics.
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


def _float_bits(ftype, width):
    """An intrinsic giving the bits of a ``ftype`` value (``width`` bits) as
    an int64, zero-extended (LLVM's ``bitcast``, no memory)."""
    @intrinsic
    def bits(typingctx, x):
        if x != ftype:
            return None

        def codegen(context, builder, sig, args):
            v = builder.bitcast(args[0], ir.IntType(width))
            return builder.zext(v, ir.IntType(64)) if width < 64 else v
        return types.int64(x), codegen
    return bits


def _float_of_bits(ftype, width):
    """An intrinsic giving the ``ftype`` value whose bits are the low
    ``width`` bits of an integer."""
    @intrinsic
    def value(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            v = context.cast(builder, args[0], sig.args[0], types.int64)
            if width < 64:
                v = builder.trunc(v, ir.IntType(width))
            return builder.bitcast(v, context.get_value_type(ftype))
        return ftype(x), codegen
    return value


#: an f32's 32 bits, zero-extended to an int64
bits_of_f32 = _float_bits(types.float32, 32)
#: the f32 whose bits are the low 32 bits of an integer
f32_of_bits = _float_of_bits(types.float32, 32)
#: an f64's 64 bits as an int64
bits_of_f64 = _float_bits(types.float64, 64)
#: the f64 whose bits are an integer's 64
f64_of_bits = _float_of_bits(types.float64, 64)


def _sorting_network(width):
    """An intrinsic that sorts ``arr[0:width]`` (int64, the array at least
    ``width`` long, ``width`` a power of two) in ascending order, in place:
    Batcher's bitonic network on one ``<width x i64>`` vector, which LLVM
    lowers to the host's vector instructions (one to four 512-bit registers
    where it has them).  Pad with the largest int64 to sort fewer values."""
    @intrinsic
    def sort(typingctx, arr):
        if not (isinstance(arr, types.Array) and arr.dtype == types.int64 and arr.layout == "C"):
            return None

        def codegen(context, builder, sig, args):
            ary = context.make_array(sig.args[0])(context, builder, args[0])
            i1, i32, i64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
            vt = ir.VectorType(i64, width)
            ptr = builder.bitcast(ary.data, vt.as_pointer())
            v = builder.load(ptr, align=8)
            undef = ir.Constant(vt, ir.Undefined)
            k = 2
            while k <= width:           # sorted runs of k from runs of k / 2, alternately ascending and descending
                j = k // 2
                while j >= 1:           # each lane against the lane j away
                    pairs = ir.Constant(ir.VectorType(i32, width), [i ^ j for i in range(width)])
                    other = builder.shuffle_vector(v, undef, pairs)
                    lt = builder.icmp_signed("<", v, other)
                    lo = builder.select(lt, v, other)
                    hi = builder.select(lt, other, v)
                    # the lower lane of a pair keeps the minimum in an ascending run, the maximum in a descending one
                    keep_lo = [int(((i & k) == 0) == (i < (i ^ j))) for i in range(width)]
                    v = builder.select(ir.Constant(ir.VectorType(i1, width), keep_lo), lo, hi)
                    j //= 2
                k *= 2
            builder.store(v, ptr, align=8)
            return context.get_dummy_value()
        return types.none(arr), codegen
    return sort


#: sort the first 8, 16 or 32 int64 values of an array in place (:func:`_sorting_network`)
sort8 = _sorting_network(8)
sort16 = _sorting_network(16)
sort32 = _sorting_network(32)
