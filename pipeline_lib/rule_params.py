"""Rule parameters that Snakemake compares by name, not only by value.

Snakemake's ``params`` rerun trigger compares a job's parameters as a *set of
values* (``set(self._params(job))`` in its persistence layer): a new
parameter whose value equals one already there, or two parameters that swap
their values, leave the set as it was, and the job is not rerun although it
would now compute something else.  Every rule therefore declares its
parameters through :func:`keyed`::

    params:
        **keyed(sigma=TBP["inter_sigma"], within_kernel=TBP["inter_within_kernel"],
                code_version=TBPOINT_VERSION),

which keeps each named parameter (scripts read ``snakemake.params.sigma`` as
before) and adds one more, ``keyed``: per job, a digest of the parameters as
``{name: value}``, so that names are part of what Snakemake compares.
``tests/test_workflow.py`` checks that every rule declares its parameters
this way and that a swap of two values reruns the rule.
"""
from __future__ import annotations

import hashlib
import json

__all__ = ["KEYED", "keyed", "keyed_settings"]

KEYED = "keyed"


def keyed_settings(params: dict, wildcards) -> dict:
    """``params`` with each function of the wildcards evaluated for one job."""
    return {name: (value(wildcards) if callable(value) else value) for name, value in params.items()}


def keyed(**params) -> dict:
    """``params`` plus ``keyed``: a function of the job's wildcards that
    returns ``sha256:<hex>`` of the evaluated parameters as sorted JSON.

    Parameter values must be plain data (numbers, strings, booleans, lists,
    dicts) or functions of the wildcards alone that return plain data; a
    value JSON cannot write fails when the DAG is built, naming it.
    """
    if KEYED in params:
        raise ValueError(f"rule parameter name {KEYED!r} is reserved for the keyed digest")

    def digest(wildcards) -> str:
        settings = keyed_settings(params, wildcards)
        try:
            text = json.dumps(settings, sort_keys=True, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError) as err:
            raise TypeError(f"rule parameters {sorted(params)}: a value is not plain data ({err})") from None
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()

    digest.names = tuple(params)     # what the wiring test checks against the rule's names
    return {**params, KEYED: digest}
