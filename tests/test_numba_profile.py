"""benchmarks/numba_profile.py: the profiled child runs the optimised code,
numba's mark against inlining under debug information lifted
(docs/simulator.md, Speed)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

# compiled with debug information everywhere (NUMBA_DEBUGINFO), as the profiler's
# child compiles the engine: does the loop call numba's overload of min?
CHILD = """
import re
import sys
sys.path.insert(0, {benchmarks!r})
import numpy as np
from numba import njit
import numba_profile
if {lift}:
    numba_profile._inline_as_optimised()

@njit(_nrt=False)
def smallest(a):
    m = np.int64(1) << 60
    for x in a:
        m = min(m, x)
    return m

assert smallest(np.arange(5, 69, dtype=np.int64)) == 5
asm = smallest.inspect_asm(smallest.signatures[0])
# a call loads its target's address (movabs) or names it (call)
called = re.search(r"^\\s*(movabsq\\s+\\$|callq?\\s+)\\S*ol_min", asm, re.M)
print("calls-min" if called else "inlined")
"""


@pytest.mark.parametrize("lift, want", [(False, "calls-min"), (True, "inlined")])
def test_debug_build_inlines_min_only_with_the_mark_lifted(tmp_path, lift, want):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_DEBUGINFO": "1"}
    out = subprocess.run([sys.executable, "-c", CHILD.format(benchmarks=str(BENCHMARKS), lift=lift)],
                         capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split()[-1] == want
