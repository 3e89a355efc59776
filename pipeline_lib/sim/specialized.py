"""The timing engine compiled for one hardware structure.

:mod:`.engine` reads the structural entries of the configuration (the
cache and DRAM geometry, the latencies, the issue width) from ``K``, a
tuple of constants, so that the compiler turns the set, slice and bank
divisions into multiplications and knows the set walks' length
(docs/simulator.md, Speed).  :func:`engine_for` writes a copy of the engine's source with ``K``
set to a configuration's values, under the engine's ``__pycache__``, and
imports it; Numba caches the copy's compiled code beside it, so a structure
is compiled once per machine and every sweep point that shares it (the
variants change only entries read at run time) uses the same code.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

from . import engine

TEMPLATE = Path(engine.__file__)
#: the template's line that each copy replaces
K_LINE = "K = None\n"
_loaded: dict = {}


def engine_for(C):
    """The engine module compiled for the structure of configuration vector
    ``C`` (:func:`engine.structure`): loaded once per process and structure."""
    key = engine.structure(C)
    if key not in _loaded:
        _loaded[key] = _load(key)
    return _loaded[key]


def _load(key: tuple):
    text = TEMPLATE.read_text()
    if text.count(K_LINE) != 1:
        raise RuntimeError(f"{TEMPLATE}: expected the line {K_LINE.strip()!r} exactly once")
    source = text.replace(K_LINE, f"K = {key!r}\n")
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    path = _write(f"engine_{digest}.py", source)
    name = f"{__package__}._engine_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _write(filename: str, source: str) -> Path:
    """The copy's path, written if missing or different.  Written whole
    under another name and renamed, so that a concurrent job never reads
    half of it; an unchanged copy is not touched, since Numba's cache of it
    is keyed on its modification time."""
    for folder in (TEMPLATE.parent / "__pycache__" / "engines",
                   Path(tempfile.gettempdir()) / f"pipeline_lib-engines-{os.getuid()}"):
        path = folder / filename
        try:
            if path.exists() and path.read_text() == source:
                return path
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        except OSError:
            continue
        try:
            with os.fdopen(fd, "w") as f:
                f.write(source)
            os.replace(tmp, path)
            return path
        except OSError:
            Path(tmp).unlink(missing_ok=True)     # nothing half-written is left behind
    raise RuntimeError(f"no writable folder for the compiled engine {filename}")
