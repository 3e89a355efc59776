"""SpMV: CSR y = A x, scalar (thread per row) or vector (warp per row) kernel,
repeated ``iters`` times as Parboil's driver does."""
import numpy as np

from .base import Workload, assert_close, grid_for, register
from .params import Param
from .inputs import random_csr

BLOCK = 128


@register
class SpMV(Workload):
    name = "spmv"
    ptx = "spmv.ptx"
    description = "CSR sparse matrix-vector product, scalar or warp-per-row vector kernel"
    kind = "regular"
    param_specs = {
        "variant": Param(str, "kernel: thread per row or warp per row", choices=("scalar", "vector")),
        "rows": Param(int, "matrix rows (= columns)", min=1),
        "mean_nnz": Param(int, "mean non-zeros per row", min=1),
        "skew": Param(float, "spread of the row lengths (0: all equal)", min=0.0),
        "iters": Param(int, "repeated products (one launch each)", min=1),
    }
    sizes = {
        "small": {"variant": "scalar", "rows": 2048, "mean_nnz": 12, "skew": 1.0, "iters": 3},
        "medium": {"variant": "scalar", "rows": 49_152, "mean_nnz": 12, "skew": 1.0, "iters": 6},
        "paper": {"variant": "scalar", "rows": 98_304, "mean_nnz": 24, "skew": 1.0, "iters": 50},
    }

    def make_inputs(self, rng):
        p = self.params
        if p["variant"] not in ("scalar", "vector"):
            raise ValueError("spmv variant must be 'scalar' or 'vector'")
        row_ptr, cols, vals = random_csr(p["rows"], p["rows"], p["mean_nnz"], rng, p["skew"])
        return {"row_ptr": row_ptr, "col_idx": cols, "val": vals,
                "x": rng.uniform(-1, 1, p["rows"]).astype(np.float32)}

    def run(self, dev, mod, inp):
        p = self.params
        n = p["rows"]
        d = {k: dev.to_device(v) for k, v in inp.items()}
        d_y = dev.zeros(n, np.float32)
        kernel = f"spmv_csr_{p['variant']}"
        threads = n if p["variant"] == "scalar" else 32 * n
        for _ in range(p["iters"]):
            dev.launch(mod, kernel, (grid_for(threads, BLOCK),), (BLOCK,),
                       [d["row_ptr"], d["col_idx"], d["val"], d["x"], d_y, n])
        return {"y": dev.from_device(d_y, np.float32, n)}

    def reference(self, inp, out=None):
        from scipy.sparse import csr_matrix  # scipy is loaded only when a reference is computed
        n = self.params["rows"]
        a = csr_matrix((inp["val"].astype(np.float64), inp["col_idx"], inp["row_ptr"]), shape=(n, n))
        return {"y": a @ inp["x"].astype(np.float64)}

    def check(self, out, ref):
        assert_close("spmv y", out["y"], ref["y"], rtol=1e-4, atol=1e-4)
