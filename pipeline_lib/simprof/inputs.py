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

from ..io import atomic_text

# words generated at a time: bounds the generators' memory, and fixed so that
# the same arguments give the same bytes
CHUNK_WORDS = 1 << 20


def _vocabulary(size: int) -> np.ndarray:
    return np.array([f"w{i:06d}" for i in range(size)])


def zipf_ranks(rng: np.random.Generator, count: int, vocab: int, exponent: float) -> np.ndarray:
    """``count`` word ranks in [0, vocab) with P(rank r) proportional to
    1 / (r + 1)^exponent (a truncated Zipf law; any exponent > 0)."""
    weights = 1.0 / np.arange(1, vocab + 1, dtype=np.float64) ** exponent
    return rng.choice(vocab, size=count, p=weights / weights.sum())


def zipf_text(path: Path, words: int, vocab: int, exponent: float, words_per_line: int, seed: int) -> None:
    """Text of ``words`` Zipf-distributed words, ``words_per_line`` a line;
    written in chunks of whole lines so that paper-scale inputs fit in memory."""
    rng = np.random.default_rng(seed)
    names = _vocabulary(vocab)
    step = max(1, CHUNK_WORDS // words_per_line) * words_per_line
    with atomic_text(path) as fh:
        for first in range(0, words, step):
            w = names[zipf_ranks(rng, min(step, words - first), vocab, exponent)]
            fh.write("\n".join(" ".join(w[i:i + words_per_line]) for i in range(0, len(w), words_per_line)) + "\n")


def labelled_documents(path: Path, documents: int, classes: int, words_per_doc: int, vocab: int,
                       exponent: float, seed: int) -> None:
    """NaiveBayes input: ``label<TAB>text`` lines. Each class draws its words
    from the same Zipf law over its own random order of the vocabulary, so
    the classes share words but not frequent ones. Written in chunks of
    documents."""
    rng = np.random.default_rng(seed)
    words = _vocabulary(vocab)
    orders = [rng.permutation(vocab) for _ in range(classes)]
    labels = rng.integers(0, classes, documents)
    step = max(1, CHUNK_WORDS // words_per_doc)
    with atomic_text(path) as fh:
        for first in range(0, documents, step):
            lab = labels[first:first + step]
            ranks = zipf_ranks(rng, len(lab) * words_per_doc, vocab, exponent).reshape(len(lab), words_per_doc)
            fh.write("\n".join(f"{c}\t" + " ".join(words[orders[c][r]]) for c, r in zip(lab, ranks)) + "\n")


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
    bits = 1 << np.arange(scale, dtype=np.int64)
    parts = []
    for first in range(0, m, CHUNK_WORDS):      # in chunks: bounded memory at paper scale
        quad = rng.choice(4, size=(min(CHUNK_WORDS, m - first), scale), p=(p / p.sum()).ravel())
        parts.append(np.c_[((quad >> 1) * bits).sum(axis=1), ((quad & 1) * bits).sum(axis=1)])
    e = np.unique(np.concatenate(parts), axis=0)
    return e[e[:, 0] != e[:, 1]]


def kronecker_graph(path: Path, scale: int, edge_factor: int, initiator, seed: int) -> int:
    """An edge-list file (``src dst`` lines, GraphX's format); returns the
    edge count."""
    e = kronecker_edges(scale, edge_factor, initiator, seed)
    with atomic_text(path) as fh:
        for first in range(0, len(e), CHUNK_WORDS):
            fh.write("".join(f"{s} {d}\n" for s, d in e[first:first + CHUNK_WORDS]))
    return len(e)


# Fields of each kind of configured input (config: simprof.inputs; docs/configuration.md).
KINDS = {
    "text": ("words", "vocab", "exponent", "words_per_line", "seed"),
    "documents": ("documents", "classes", "words_per_doc", "vocab", "exponent", "seed"),
    "graph": ("scale", "edge_factor", "initiator", "seed"),
}
_GENERATORS = {"text": zipf_text, "documents": labelled_documents, "graph": kronecker_graph}


def check_spec(name: str, spec: dict) -> None:
    """Raise ValueError naming the input and the field that is missing or
    foreign to its kind."""
    kind = spec.get("kind")
    if kind not in KINDS:
        raise ValueError(f"simprof.inputs.{name}.kind: {kind!r} is not one of {', '.join(KINDS)}")
    fields = set(spec) - {"kind"}
    missing = [f for f in KINDS[kind] if f not in fields]
    extra = sorted(fields - set(KINDS[kind]))
    if missing or extra:
        what = f"lacks {', '.join(missing)}" if missing else f"has {', '.join(extra)}, not a field of {kind}"
        raise ValueError(f"simprof.inputs.{name}: a {kind} input {what} (fields: {', '.join(KINDS[kind])})")
    if kind == "graph":
        try:
            kronecker_edges(1, 1, spec["initiator"], 0)     # checks the initiator's shape
        except (ValueError, TypeError) as e:
            raise ValueError(f"simprof.inputs.{name}.initiator: {e}") from None


def generate(name: str, spec: dict, path: Path) -> None:
    """Write the configured input ``name`` to ``path``."""
    check_spec(name, spec)
    _GENERATORS[spec["kind"]](Path(path), **{f: spec[f] for f in KINDS[spec["kind"]]})
