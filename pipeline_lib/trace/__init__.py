"""Trace schema, Parquet I/O and trace sinks (docs/trace_format.md)."""
from ..io import AtomicParquetWriter, write_json, write_table
from .schema import SCHEMA_VERSION, TABLES, arrow_schema
from .sink import MemorySink, ParquetTraceSink

__all__ = ["AtomicParquetWriter", "MemorySink", "ParquetTraceSink", "SCHEMA_VERSION", "TABLES",
           "arrow_schema", "write_json", "write_table"]
