"""What every method's stages share to write their outputs: the documented
table writer stamped with the stage and the method's code version, and the
progress lines that go to the job's log (pipeline_lib.jobs)."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

__all__ = ["build_once", "progress", "stage_writer"]


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


def stage_writer(version_field: str, version: str):
    """``write(df, cols, name, out, **meta)`` for one method: the table
    ``name`` (columns ``cols``: name, Arrow type, description) with metadata
    ``stage`` = ``name``, ``version_field`` = ``version``, the library
    version and ``meta``."""
    from .. import __version__
    from ..sim.output import write_frame

    def write(df, cols, name: str, out, **meta) -> None:
        write_frame(df, cols, name, out, {"stage": name, version_field: version, "library_version": __version__,
                                          **meta})
    return write


def progress(msg: str) -> None:
    """One progress line on stderr (the job's log), flushed at once."""
    print(msg, file=sys.stderr, flush=True)
