"""The shared I/O layer: atomic, deterministic files (:mod:`.atomic`), the
documented table writer (:mod:`.tables`), each method's stage writer and
the progress lines that go to the job's log (pipeline_lib.jobs)."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from .atomic import AtomicParquetWriter, atomic_path, atomic_text, write_json, write_table, write_text
from .tables import BOOL, F64, I32, I64, STR, table_schema, to_table, write_frame

__all__ = ["AtomicParquetWriter", "BOOL", "F64", "I32", "I64", "STR", "TABLE_SCHEMA_VERSION", "atomic_path",
           "atomic_text", "build_once", "progress", "stage_writer", "table_schema", "to_table", "write_frame",
           "write_json", "write_table", "write_text"]

#: schema version of the methods' tables (a table's columns and their
#: meaning; the code that fills them has its own version in versions.py)
TABLE_SCHEMA_VERSION = "1.0"


def build_once(target, build) -> Path:
    """``target`` as it is if it exists; else ``build(tmp)`` makes the file
    in a temporary directory beside it and returns its path, and that
    complete file is renamed to ``target`` (a build cache keyed by the name:
    concurrent builders each rename a complete file, a failed one leaves
    nothing)."""
    target = Path(target)
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        os.replace(build(Path(tmp)), target)
    return target


def stage_writer(version_field: str, version: str, schema_version: str = TABLE_SCHEMA_VERSION):
    """``write(df, cols, name, out, **meta)`` for one method: the table
    ``name`` (columns ``cols``: name, Arrow type, description) with metadata
    ``schema_version``, ``stage`` = ``name``, ``version_field`` =
    ``version``, the library version and ``meta``."""
    from .. import __version__

    def write(df, cols, name: str, out, **meta) -> None:
        write_frame(df, cols, name, out, stage=name, schema_version=schema_version,
                    meta={version_field: version, "library_version": __version__, **meta})
    return write


def progress(msg: str) -> None:
    """One progress line on stderr (the job's log), flushed at once."""
    print(msg, file=sys.stderr, flush=True)
