"""Seeded inputs of the Spark jobs (seed 000, Tables 10 and 11): Zipf text,
labelled documents, and stochastic Kronecker graphs.

The seed's inputs came from BigDataBench's synthesizer and from SNAP graphs
(Table 11). We generate them: text whose word frequencies follow a Zipf
law, and Kronecker graphs (Leskovec et al., JMLR 2010) whose 2 x 2
initiator matrix sets the topology. Every generator takes a seed and gives
the same bytes for the same arguments.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..trace.parquet_io import write_text


def _vocabulary(size: int) -> np.ndarray:
    return np.array([f"w{i:06d}" for i in range(size)])


def zipf_ranks(rng: np.random.Generator, count: int, vocab: int, exponent: float) -> np.ndarray:
    """``count`` word ranks in [0, vocab) with P(rank r) proportional to
    1 / (r + 1)^exponent (a truncated Zipf law; any exponent > 0)."""
    weights = 1.0 / np.arange(1, vocab + 1, dtype=np.float64) ** exponent
    return rng.choice(vocab, size=count, p=weights / weights.sum())


def zipf_text(path: Path, words: int, vocab: int, exponent: float, words_per_line: int, seed: int) -> None:
    """Text of ``words`` Zipf-distributed words, ``words_per_line`` a line."""
    rng = np.random.default_rng(seed)
    w = _vocabulary(vocab)[zipf_ranks(rng, words, vocab, exponent)]
    lines = [" ".join(w[i:i + words_per_line]) for i in range(0, len(w), words_per_line)]
    write_text("\n".join(lines) + "\n", path)


def labelled_documents(path: Path, documents: int, classes: int, words_per_doc: int, vocab: int,
                       exponent: float, seed: int) -> None:
    """NaiveBayes input: ``label<TAB>text`` lines. Each class draws its words
    from the same Zipf law over its own random order of the vocabulary, so
    the classes share words but not frequent ones."""
    rng = np.random.default_rng(seed)
    words = _vocabulary(vocab)
    orders = [rng.permutation(vocab) for _ in range(classes)]
    labels = rng.integers(0, classes, documents)
    ranks = zipf_ranks(rng, documents * words_per_doc, vocab, exponent).reshape(documents, words_per_doc)
    lines = [f"{c}\t" + " ".join(words[orders[c][r]]) for c, r in zip(labels, ranks)]
    write_text("\n".join(lines) + "\n", path)


def kronecker_edges(scale: int, edge_factor: int, initiator, seed: int) -> np.ndarray:
    """Stochastic Kronecker graph with 2^scale vertices and about
    edge_factor x 2^scale distinct directed edges (no self loops).

    Each edge descends ``scale`` levels of the initiator: at each level it
    picks quadrant (i, j) with probability initiator[i][j] / sum, which sets
    one bit of the source and of the destination (the R-MAT way of sampling
    a Kronecker graph). Returns an (E, 2) int64 array, sorted.
    """
    p = np.asarray(initiator, np.float64)
    if p.shape != (2, 2) or (p < 0).any() or p.sum() <= 0:
        raise ValueError(f"a Kronecker initiator is a 2 x 2 matrix of non-negative numbers, got {initiator}")
    rng = np.random.default_rng(seed)
    m = edge_factor << scale
    quad = rng.choice(4, size=(m, scale), p=(p / p.sum()).ravel())
    bits = 1 << np.arange(scale, dtype=np.int64)
    src = ((quad >> 1) * bits).sum(axis=1)
    dst = ((quad & 1) * bits).sum(axis=1)
    e = np.unique(np.c_[src, dst], axis=0)
    return e[e[:, 0] != e[:, 1]]


def kronecker_graph(path: Path, scale: int, edge_factor: int, initiator, seed: int) -> int:
    """An edge-list file (``src dst`` lines, GraphX's format); returns the
    edge count."""
    e = kronecker_edges(scale, edge_factor, initiator, seed)
    write_text("".join(f"{s} {d}\n" for s, d in e), path)
    return len(e)
