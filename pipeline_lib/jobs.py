"""What every Snakemake job script shares: its log file and its errors.

``with job_log(snakemake):`` around a script's body sends the stage's
progress lines (stderr) to the rule's log file and, when the job fails, writes
the traceback there too, so that the log Snakemake points to says what went
wrong.  A damaged or truncated Parquet input is reported by its path, the
rule that writes it and the command that rebuilds it, instead of as
pyarrow's bare "magic bytes not found".
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
import traceback
from pathlib import Path

__all__ = ["CorruptTableError", "PRODUCERS_ENV", "export_producers", "job_log", "producing_rule", "check_tables"]

# The Snakefile puts [(output regex, rule), ...] here so that a job can name
# the rule that writes a given file (jobs are separate processes).
PRODUCERS_ENV = "PIPELINE_RULE_OUTPUTS"


class CorruptTableError(RuntimeError):
    """An input table exists but cannot be read as Parquet."""


def export_producers(rules) -> None:
    """Put every rule's output patterns, as regexes, in the environment, so
    that a job can name the rule that rebuilds a damaged input (the Snakefile
    calls this when it is parsed; jobs inherit the variable)."""
    from snakemake.io import regex_from_filepattern

    producers = [(regex_from_filepattern(str(f)).rstrip("$"), rule.name)
                 for rule in rules for f in rule.output]
    os.environ[PRODUCERS_ENV] = json.dumps(producers)


def producing_rule(path) -> str | None:
    """The rule whose output pattern matches ``path`` (None where unknown)."""
    try:
        producers = json.loads(os.environ.get(PRODUCERS_ENV, "[]"))
    except ValueError:
        return None
    path = str(path)
    for pattern, rule in producers:
        if re.fullmatch(pattern, path):
            return rule
    return None


def check_tables(paths) -> None:
    """Raise :class:`CorruptTableError` for the first of ``paths`` (the
    ``.parquet`` ones) that exists but whose footer cannot be read."""
    import pyarrow.parquet as pq

    for p in paths:
        p = str(p)
        if not p.endswith(".parquet") or not Path(p).is_file():
            continue
        try:
            pq.read_metadata(p)
        except Exception as e:  # pyarrow raises ArrowInvalid or OSError, by version
            rule = producing_rule(p)
            by = f" (written by rule {rule})" if rule else ""
            raise CorruptTableError(
                f"{p}: not a readable Parquet table ({e}); the file is damaged or truncated. "
                f"Rebuild it{by}: snakemake --forcerun {p}") from None


def _inputs(sm) -> list[str]:
    out = []
    for item in sm.input:
        out.extend(item if isinstance(item, list) else [item])
    return [str(x) for x in out]


@contextlib.contextmanager
def job_log(sm, capture: bool = True):
    """Run a job script's body with its stderr in ``sm.log[0]``.

    ``capture=False`` is for stages that write the log themselves (a Spark
    job's output); the traceback of a failure is then appended to it.
    """
    log_path = sm.log[0] if len(sm.log) else None
    if log_path is None:
        yield
        return
    Path(log_path).parent.mkdir(parents=True, exist_ok=True)
    fh = open(log_path, "w") if capture else None
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stderr(fh) if fh else contextlib.nullcontext():
            try:
                yield
            except Exception as e:
                try:
                    check_tables(_inputs(sm))
                except CorruptTableError as corrupt:
                    raise corrupt from e
                raise
        if fh:  # a job that printed nothing still leaves a log that says it ran
            print(f"rule {getattr(sm, 'rule', '?')}: done in {time.perf_counter() - t0:.1f} s, "
                  f"{len(list(sm.output))} outputs", file=fh)
    except BaseException:
        with (contextlib.nullcontext(fh) if fh else open(log_path, "a")) as out:
            traceback.print_exc(file=out)
            out.flush()
        raise
    finally:
        if fh:
            fh.close()
        sys.stderr.flush()
