"""MST: Boruvka minimum spanning forest with 64-bit atomicMin and pointer jumping."""
import numpy as np

from .base import CheckError, Workload, assert_equal, grid_for, register
from .inputs import graph_params, make_graph

BLOCK = 128
NONE = np.uint64(0xFFFFFFFFFFFFFFFF)


@register
class MST(Workload):
    name = "mst"
    ptx = "mst.ptx"
    description = "Boruvka MST: lightest-edge atomicMin, hooking, pointer jumping"
    kind = "irregular"
    param_specs = graph_params(weighted=True)
    sizes = {
        "small": {"graph": "rmat", "scale": 9, "edge_factor": 6, "rows": 20, "cols": 20, "max_weight": 1000},
        "medium": {"graph": "rmat", "scale": 14, "edge_factor": 8, "rows": 64, "cols": 64, "max_weight": 1000},
        "paper": {"graph": "rmat", "scale": 15, "edge_factor": 8, "rows": 180, "cols": 180, "max_weight": 1000},
    }

    def make_inputs(self, rng):
        p = self.params
        return make_graph(p["graph"], rng, scale=p["scale"], edge_factor=p["edge_factor"],
                          rows=p["rows"], cols=p["cols"], symmetric=True, max_weight=p["max_weight"])

    def run(self, dev, mod, g):
        n, m_und = g["n"], len(g["edge_u"])
        ident = np.arange(n, dtype=np.int32)
        d = {k: dev.to_device(g[k]) for k in ("row_ptr", "col_idx", "weight", "edge_id", "edge_u", "edge_v")}
        d_comp, d_parent = dev.to_device(ident), dev.to_device(ident)
        d_best = dev.to_device(np.full(n, NONE, np.uint64))
        d_tree = dev.zeros(m_und, np.int32)
        d_changed = dev.zeros(1, np.int32)
        grid = (grid_for(n, BLOCK),)
        rounds = 0
        while True:
            dev.launch(mod, "mst_find_min", grid, (BLOCK,),
                       [d["row_ptr"], d["col_idx"], d["weight"], d["edge_id"], d_comp, d_best, n])
            dev.copy_to(d_changed, np.zeros(1, np.int32))
            dev.launch(mod, "mst_hook", grid, (BLOCK,),
                       [d["edge_u"], d["edge_v"], d_best, d_comp, d_parent, d_tree, d_changed, n])
            if not dev.from_device(d_changed, np.int32, 1)[0]:
                break
            while True:
                dev.copy_to(d_changed, np.zeros(1, np.int32))
                dev.launch(mod, "mst_jump", grid, (BLOCK,), [d_parent, d_changed, n])
                if not dev.from_device(d_changed, np.int32, 1)[0]:
                    break
            dev.launch(mod, "mst_relabel", grid, (BLOCK,), [d_parent, d_comp, d_best, n])
            rounds += 1
            if rounds > 64:
                raise CheckError("mst: Boruvka did not converge in 64 rounds")
        in_tree = dev.from_device(d_tree, np.int32, m_und).astype(bool)
        w_und = np.zeros(m_und, np.int64)
        w_und[g["edge_id"]] = g["weight"]
        return {"weight": int(w_und[in_tree].sum()), "edges": int(in_tree.sum()),
                "comp": dev.from_device(d_comp, np.int32, n)}

    def reference(self, g, out=None):
        from scipy.sparse import coo_matrix  # scipy is loaded only when a reference is computed
        from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
        n = g["n"]
        w_und = np.zeros(len(g["edge_u"]), np.float64)
        w_und[g["edge_id"]] = g["weight"]
        a = coo_matrix((w_und, (g["edge_u"], g["edge_v"])), shape=(n, n)).tocsr()
        t = minimum_spanning_tree(a)
        ncomp, labels = connected_components(a, directed=False)
        return {"weight": int(round(t.sum())), "edges": n - ncomp, "labels": labels}

    def check(self, out, ref):
        assert_equal("mst total weight", out["weight"], ref["weight"])
        assert_equal("mst edge count", out["edges"], ref["edges"])
        # same partition into components: the label maps are bijective
        pairs = np.unique(np.stack([out["comp"], ref["labels"]], 1), axis=0)
        assert_equal("mst components", len(pairs), len(np.unique(ref["labels"])))
