"""Deterministic, atomic file writing: Parquet, text and JSON (docs/trace_format.md).

Files are written (Parquet with zstd) to a temporary name beside the target
and renamed into place, so an interrupted job never leaves a
complete-looking file.  The same table and metadata always give the same
bytes.
"""
from __future__ import annotations

import contextlib
import glob
import json
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .. import provenance

COMPRESSION = "zstd"


def _tmp(path: Path) -> Path:
    """A fresh temporary name beside ``path``.  Temporaries of ``path`` left by
    a killed earlier attempt are removed first: one job at a time writes a
    given output, so any such file is debris."""
    for stale in path.parent.glob(f".{glob.escape(path.name)}.tmp*"):
        stale.unlink(missing_ok=True)
    return path.with_name(f".{path.name}.tmp{os.getpid()}")


@contextlib.contextmanager
def atomic_path(path):
    """A temporary path to write; renamed to ``path`` when the block ends
    without an exception, removed otherwise."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _tmp(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _with_provenance(schema: pa.Schema, metadata: dict | None = None) -> pa.Schema:
    """``schema`` with the workflow's provenance and ``metadata`` added to its metadata."""
    extra = {**provenance.metadata(), **(metadata or {})}
    if not extra:
        return schema
    meta = dict(schema.metadata or {})
    meta.update({k.encode(): str(v).encode() for k, v in extra.items()})
    return schema.with_metadata(meta)


def write_table(table: pa.Table, path, metadata: dict | None = None) -> None:
    table = table.replace_schema_metadata(_with_provenance(table.schema, metadata).metadata)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression=COMPRESSION)


class AtomicParquetWriter:
    """Streaming writer (one row group per ``write``) that appears at its
    final path only when closed successfully."""

    def __init__(self, path, schema: pa.Schema):
        schema = _with_provenance(schema)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = _tmp(self.path)
        self.writer = pq.ParquetWriter(self.tmp, schema, compression=COMPRESSION)
        self.schema = schema

    def write(self, table: pa.Table) -> None:
        self.writer.write_table(table)

    def close(self) -> None:
        self.writer.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        try:
            self.writer.close()
        finally:
            if self.tmp.exists():
                self.tmp.unlink()


@contextlib.contextmanager
def atomic_text(path):
    """A text file opened for writing that appears at ``path`` complete, when
    the block ends without an exception, or not at all."""
    with atomic_path(path) as tmp, open(tmp, "w") as fh:
        yield fh


def write_text(text: str, path) -> None:
    """Atomically write a text file: it appears complete or not at all."""
    with atomic_text(path) as fh:
        fh.write(text)


def write_json(obj, path) -> None:
    """Atomically write a small JSON document (sorted keys, stable bytes)."""
    write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n", path)
