"""Whether two directories of results hold the same tables, their provenance aside.

    .venv/bin/python benchmarks/same_tables.py DIR_A DIR_B [--glob 'tbpoint/*/tbpoint-fermi/*']

Every Parquet and JSON file under DIR_A that matches the glob (default: all)
is compared with the file of the same relative path under DIR_B: Parquet
files by their data (columns, types and values; the schema's metadata, which
records the git commit of the run -- with ``-dirty`` for a working tree --
and the configuration digest, is left out), JSON files by their parsed
content.  Prints one line per file and exits with 1 if any differs or is
missing.  For a speed change that must not change a number: copy a
stage's outputs aside, rerun the stage with the code before (snakemake's
``--forcerun``), and compare the two.
"""
import argparse
import json
import sys
from pathlib import Path

import pyarrow.parquet as pq


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` hold the same data (Parquet) or content (JSON)."""
    if a.suffix == ".parquet":
        ta, tb = pq.read_table(a), pq.read_table(b)
        return ta.replace_schema_metadata(None).equals(tb.replace_schema_metadata(None))
    return json.loads(a.read_text()) == json.loads(b.read_text())


def compare(dir_a: Path, dir_b: Path, pattern: str) -> list[tuple[str, str]]:
    """(relative path, "same" / "DIFFERENT" / "missing") of every Parquet and
    JSON file under ``dir_a`` matching ``pattern``, against ``dir_b``."""
    rows = []
    for a in sorted(p for p in dir_a.glob(pattern) if p.suffix in (".parquet", ".json") and p.is_file()):
        rel = a.relative_to(dir_a)
        b = dir_b / rel
        rows.append((str(rel), "missing" if not b.exists() else "same" if same_file(a, b) else "DIFFERENT"))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir_a", type=Path)
    ap.add_argument("dir_b", type=Path)
    ap.add_argument("--glob", default="**/*", help="files under DIR_A to compare (default: all)")
    args = ap.parse_args()
    rows = compare(args.dir_a, args.dir_b, args.glob)
    if not rows:
        sys.exit(f"{args.dir_a}: no Parquet or JSON file matches {args.glob!r}")
    for rel, verdict in rows:
        print(f"{verdict:9s} {rel}")
    differ = sum(v != "same" for _, v in rows)
    print(f"{len(rows) - differ} of {len(rows)} files the same")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
