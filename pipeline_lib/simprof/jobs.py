"""Reference checks of the Spark jobs' answers (their ``summary.json``),
computed in Python from the same input file, as the GPU workloads' drivers
check their kernels. A job whose answer is wrong is not profiled further."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

JOBS = ("wordcount", "sort", "grep", "naivebayes", "cc", "pagerank")


def _components(edges: np.ndarray) -> tuple[int, int]:
    """(vertices, weakly connected components) of an edge list."""
    ids, inv = np.unique(edges, return_inverse=True)
    inv = inv.reshape(-1, 2)
    adj = coo_matrix((np.ones(len(inv)), (inv[:, 0], inv[:, 1])), shape=(len(ids), len(ids)))
    return len(ids), connected_components(adj, directed=True, connection="weak")[0]


def check(job: str, data: Path, summary: dict, arg: str = "") -> None:
    """Raise ValueError naming the job, the input and the field that
    disagrees with the reference."""
    def expect(field, want):
        got = summary.get(field)
        ok = abs(got - want) <= 1e-6 * max(1.0, abs(want)) if isinstance(want, float) else got == want
        if not ok:
            raise ValueError(f"Spark job '{job}' on {data}: {field} is {got!r}, the reference gives {want!r}")

    if summary.get("job") != job:
        raise ValueError(f"Spark job '{job}' on {data}: its summary is for {summary.get('job')!r}")
    text = Path(data).read_text()
    if job == "wordcount":
        words = text.split()
        expect("words", len(words))
        expect("distinct_words", len(set(words)))
    elif job == "sort":
        lines = text.splitlines()
        expect("records", len(lines))
        expect("first", min(lines))
    elif job == "grep":
        pattern = re.compile(arg)
        expect("matches", sum(1 for line in text.splitlines() if pattern.search(line)))
    elif job == "naivebayes":
        expect("documents", len(text.splitlines()))
        if not 0.0 <= summary.get("accuracy", -1) <= 1.0:
            raise ValueError(f"Spark job '{job}' on {data}: accuracy {summary.get('accuracy')!r} is not a share")
    elif job in ("cc", "pagerank"):
        edges = np.loadtxt(data, dtype=np.int64, ndmin=2)
        vertices, components = _components(edges)
        expect("vertices", vertices)
        if job == "cc":
            expect("components", components)
        else:   # GraphX's PageRank keeps the ranks summing to the vertex count
            expect("rank_sum", float(vertices))
    else:
        raise ValueError(f"unknown Spark job '{job}' (known: {', '.join(JOBS)})")
