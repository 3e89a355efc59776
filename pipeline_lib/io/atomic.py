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
import queue
import threading
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


def write_table(table: pa.Table, path, metadata: dict | None = None, compression: str = COMPRESSION) -> None:
    table = table.replace_schema_metadata(_with_provenance(table.schema, metadata).metadata)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression=compression)


class AtomicParquetWriter:
    """Streaming writer (one row group per ``write``) that appears at its
    final path only when closed successfully.

    With ``background`` the row groups are encoded and written by a thread
    of their own, in the order given, while the caller goes on (the trace
    sink: the emulator runs without the GIL, and Parquet's encoding took
    about as long as emulating).  At most one table waits in line, so memory
    stays bounded.  The file's bytes are the same either way.  A write that
    fails in the thread is raised by the next :meth:`write`, by
    :meth:`flush` or by :meth:`close`; the tables after it are not written.
    """

    def __init__(self, path, schema: pa.Schema, background: bool = False, compression: str = COMPRESSION):
        schema = _with_provenance(schema)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = _tmp(self.path)
        self.writer = pq.ParquetWriter(self.tmp, schema, compression=compression)
        self.schema = schema
        self._error: BaseException | None = None
        self._queue: queue.Queue | None = None
        self._thread: threading.Thread | None = None
        if background:
            self._queue = queue.Queue(maxsize=1)
            self._thread = threading.Thread(target=self._drain, name=f"write {self.path.name}", daemon=True)
            self._thread.start()

    def _drain(self) -> None:
        while (table := self._queue.get()) is not None:
            if self._error is None:
                try:
                    self.writer.write_table(table)
                except BaseException as e:     # raised in the caller's thread (_raise)
                    self._error = e

    def _raise(self) -> None:
        if self._error is not None:
            raise OSError(f"{self.path}: writing a row group failed: {self._error}") from self._error

    def write(self, table: pa.Table) -> None:
        if self._queue is None:
            self.writer.write_table(table)
            return
        self._raise()
        self._queue.put(table)

    def flush(self) -> None:
        """Wait until every table given is written (no more writes after
        this); raise the error of a failed one."""
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        self._raise()

    def close(self) -> None:
        try:
            self.flush()
        except BaseException:
            self.abort()
            raise
        self.writer.close()
        os.replace(self.tmp, self.path)

    def abort(self) -> None:
        try:
            if self._thread is not None:
                self._queue.put(None)
                self._thread.join()
                self._thread = None
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
