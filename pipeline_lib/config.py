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
DOC_BEGIN = "<!-- fields: generated from config/schema.yaml by `python -m pipeline_lib.config --doc` -->"
DOC_END = "<!-- end of fields -->"


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
    from .workloads.registry_info import SIZES, ParamError, check_params  # drivers' declarations, no emulator
    for wl, spec in config.get("workloads", {}).items():
        if "traceg" in spec:           # imported (pipeline_lib.trace.traceg): no driver to check
            spec.setdefault("benchmark", wl)
            continue
        bench = spec["benchmark"]
        if bench not in SIZES:
            raise ConfigError(f"{source}: invalid field 'workloads.{wl}.benchmark': unknown benchmark "
                              f"'{bench}' (known: {', '.join(sorted(SIZES))})")
        if spec["size"] not in SIZES[bench]:
            raise ConfigError(f"{source}: invalid field 'workloads.{wl}.size': '{spec['size']}' "
                              f"(known: {', '.join(sorted(SIZES[bench]))})")
        try:
            check_params(bench, spec["size"], spec.get("params", {}))
        except ParamError as e:
            raise ConfigError(f"{source}: invalid field 'workloads.{wl}.params.{e.field}': {e}") from None
    from .workflow.checks import check_config
    try:
        check_config(config, source)
    except ValueError as e:
        raise ConfigError(str(e)) from None
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


def read_yaml(path) -> dict:
    """A YAML mapping from ``path``; a syntax error names the file, line and
    column and shows the line."""
    path = Path(path)
    text = path.read_text()
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        what = " ".join(x for x in (e.context, e.problem) if x)
        if mark is None:
            raise ConfigError(f"{path}: YAML syntax error: {what}") from None
        lines = text.splitlines()
        shown = lines[mark.line] if mark.line < len(lines) else ""
        raise ConfigError(f"{path}:{mark.line + 1}:{mark.column + 1}: YAML syntax error: {what}\n"
                          f"    {shown}\n    {' ' * mark.column}^") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: YAML syntax error: {e}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of sections at the top level, got {type(data).__name__}")
    return data


def merge(base: dict, overlay: dict) -> dict:
    """``overlay`` merged into ``base`` key by key, as Snakemake merges
    several ``--configfile`` files (later files win)."""
    out = dict(base)
    for key, value in overlay.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def load(*paths) -> dict:
    """Read, merge and validate the configuration files ``paths``."""
    config: dict = {}
    for p in paths:
        config = merge(config, read_yaml(p))
    return validate(config, ", ".join(str(p) for p in paths))


def field_rows() -> list[tuple[str, str, str, str]]:
    """(dotted field, unit, default, meaning) of every described field of
    ``config/schema.yaml``, in its order (docs/configuration.md's table)."""
    from .schema_doc import field_rows as rows

    return rows(yaml.safe_load(SCHEMA_PATH.read_text()))


def with_doc_table(text: str) -> str:
    """``text`` (docs/configuration.md) with its field table regenerated
    from the schema."""
    from .schema_doc import replace_between

    lines = ["| field | default | meaning |", "|---|---|---|"]
    lines += [f"| `{f}` | {d} | {m} |" for f, _, d, m in field_rows()]
    return replace_between(text, DOC_BEGIN, DOC_END, "\n".join(lines) + "\n", "docs/configuration.md")


def main(argv=None) -> int:
    """``python -m pipeline_lib.config FILE...``: check configuration files
    (syntax with line and column, schema, workload parameters) as the
    workflow would, before any job starts.  ``--doc MD`` regenerates the
    field table of ``MD`` (docs/configuration.md) from the schema."""
    import sys

    args = list(argv if argv is not None else sys.argv[1:])
    if args[:1] == ["--doc"]:
        if len(args) != 2:
            print("usage: python -m pipeline_lib.config --doc docs/configuration.md", file=sys.stderr)
            return 2
        doc = Path(args[1])
        doc.write_text(with_doc_table(doc.read_text()))
        print(f"{doc}: configuration field table regenerated ({len(field_rows())} fields)")
        return 0
    paths = args or [str(ROOT / "config" / "config.yaml")]
    try:
        config = load(*paths)
    except (ConfigError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"{', '.join(paths)}: valid ({len(config.get('workloads', {}))} workloads)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
