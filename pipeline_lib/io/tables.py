"""Documented Parquet tables: every column with its Arrow type and
description, the file stamped with its table name, the schema version and
stage of the code that wrote it, and the caller's metadata (written
atomically and deterministically by :mod:`pipeline_lib.io.atomic`)."""
from __future__ import annotations

import pyarrow as pa

from .atomic import write_table

#: column types used by the tables' (name, type, description) lists
I32, I64, F64, STR, BOOL = pa.int32(), pa.int64(), pa.float64(), pa.string(), pa.bool_()


def table_schema(cols, table: str, stage: str, schema_version: str, meta: dict | None = None) -> pa.Schema:
    """The Arrow schema of ``cols`` (name, type, description) with metadata
    ``table``, ``schema_version``, ``stage`` and then ``meta``, in that order."""
    fields = [pa.field(n, t, metadata={"description": d} if d else None) for n, t, d in cols]
    m = {"table": table, "schema_version": schema_version, "stage": stage, **(meta or {})}
    return pa.schema(fields, metadata={k: str(v) for k, v in m.items()})


def to_table(df, cols, table: str, stage: str, schema_version: str, meta: dict | None = None) -> pa.Table:
    """``df``'s columns ``cols`` as an Arrow table with :func:`table_schema`."""
    sch = table_schema(cols, table, stage, schema_version, meta)
    return pa.Table.from_arrays([pa.array(df[f.name] if len(df) else [], type=f.type) for f in sch], schema=sch)


def write_frame(df, cols, table: str, out, *, stage: str, schema_version: str, meta: dict | None = None) -> None:
    """Write ``df`` as the documented table ``table`` at ``out``."""
    write_table(to_table(df, cols, table, stage, schema_version, meta), out)
