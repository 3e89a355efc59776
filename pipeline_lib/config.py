"""Loading and validating the workflow configuration.

The schema is ``config/schema.yaml`` (JSON Schema).  Errors name the file and
the dotted path of the offending field.  Semantic checks (known benchmarks,
their parameters) follow the schema check.  Kept free of heavy imports: the
Snakefile calls it on every parse.
"""
from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_PATH = ROOT / "config" / "schema.yaml"


class ConfigError(ValueError):
    """An invalid configuration value; the message names file and field."""


def _path(err) -> str:
    return ".".join(str(p) for p in err.absolute_path) or "(top level)"


def validate(config: dict, source: str = "config") -> dict:
    """Validate ``config`` (already loaded); fill defaults; return it."""
    import jsonschema

    schema = yaml.safe_load(SCHEMA_PATH.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        raise ConfigError(f"{source}: invalid field '{_path(e)}': {e.message}"
                          + (f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""))
    _fill_defaults(config, schema)
    from .workloads.registry_info import SIZES  # light module: parameter names only
    for wl, spec in config.get("workloads", {}).items():
        bench = spec["benchmark"]
        if bench not in SIZES:
            raise ConfigError(f"{source}: invalid field 'workloads.{wl}.benchmark': unknown benchmark "
                              f"'{bench}' (known: {', '.join(sorted(SIZES))})")
        if spec["size"] not in SIZES[bench]:
            raise ConfigError(f"{source}: invalid field 'workloads.{wl}.size': '{spec['size']}' "
                              f"(known: {', '.join(sorted(SIZES[bench]))})")
        bad = set(spec.get("params", {})) - set(SIZES[bench][spec["size"]])
        if bad:
            raise ConfigError(f"{source}: invalid field 'workloads.{wl}.params.{sorted(bad)[0]}': "
                              f"not a parameter of {bench} (have {', '.join(sorted(SIZES[bench][spec['size']]))})")
    return config


def _fill_defaults(node, schema):
    if not isinstance(node, dict) or schema.get("type") != "object":
        return
    for key, sub in schema.get("properties", {}).items():
        if key not in node and "default" in sub:
            node[key] = sub["default"]
        if key in node:
            _fill_defaults(node[key], sub)
    addl = schema.get("additionalProperties")
    if isinstance(addl, dict):
        for key, val in node.items():
            if key not in schema.get("properties", {}):
                _fill_defaults(val, addl)


def load(path) -> dict:
    path = Path(path)
    try:
        config = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from None
    return validate(config, str(path))
