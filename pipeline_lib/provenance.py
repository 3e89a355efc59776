"""Provenance stamped into every Parquet table the workflow writes: the
git commit of the code (with ``-dirty`` when tracked files differ from it)
and a digest of the validated configuration, next to the library version
each stage already records.

The Snakefile exports both as environment variables when it is parsed
(:func:`export`), so every job (local or on a cluster, where the Snakefile
is parsed again) sees the same values; :func:`metadata` reads them for the
table writers.  Outside the workflow nothing is added, so library calls
keep their bytes.  Kept free of heavy imports: the Snakefile calls it.
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess

ENV = {"git_commit": "PIPELINE_GIT_COMMIT", "config_digest": "PIPELINE_CONFIG_DIGEST"}


def git_commit(path) -> str:
    """``git describe --always --dirty`` of the checkout at ``path`` (full hash), or "unknown"."""
    try:
        res = subprocess.run(["git", "-C", str(path), "describe", "--always", "--dirty", "--abbrev=40"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return res.stdout.strip() if res.returncode == 0 and res.stdout.strip() else "unknown"


def config_digest(config: dict) -> str:
    """SHA-256 (first 16 hex digits) of the configuration as sorted JSON."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def export(workflow_dir, config: dict) -> dict:
    values = {"git_commit": git_commit(workflow_dir), "config_digest": config_digest(config)}
    for key, var in ENV.items():
        os.environ[var] = values[key]
    return values


def metadata() -> dict:
    """The exported provenance (empty outside the workflow)."""
    return {key: os.environ[var] for key, var in ENV.items() if os.environ.get(var)}

