"""Markdown field tables generated from a JSON Schema (docs/configuration.md
from config/schema.yaml, docs/hardware.md from config/hardware/schema.yaml),
so that the documentation cannot drift from what is validated."""
from __future__ import annotations

import json

#: a field of a mapping whose keys the user names (sweeps, workloads, runs)
NAMED = "<name>"


def field_rows(schema: dict, into_described: bool = True) -> list[tuple[str, str, str, str]]:
    """(dotted field, unit, default, meaning) of every field of ``schema``
    that has a ``description``, in the schema's order.  Objects are walked
    into (a mapping of user-named entries as ``<name>``); with
    ``into_described=False`` a described object is one row.  Defaults are
    written as JSON (a string bare); an empty mapping's is left out (its fields carry
    theirs); a field its object requires shows ``(required)``."""
    rows = []

    def walk(node: dict, prefix: str) -> None:
        required = set(node.get("required", ()))
        for name, sub in node["properties"].items():
            path = prefix + name
            described = "description" in sub
            if described:
                default = sub.get("default")
                shown = ("(required)" if name in required else "" if default is None or default == {} else
                         f"`{default if isinstance(default, str) else json.dumps(default)}`")
                rows.append((path, str(sub.get("unit", "")), shown, " ".join(str(sub["description"]).split())))
            if described and not into_described:
                continue
            if "properties" in sub:
                walk(sub, path + ".")
            named = sub.get("additionalProperties")
            if isinstance(named, dict) and "properties" in named:
                walk(named, f"{path}.{NAMED}.")

    walk(schema, "")
    return rows


def replace_between(text: str, begin: str, end: str, table: str, where: str) -> str:
    """``text`` with what lies between the markers ``begin`` and ``end``
    (kept) replaced by ``table``; ``where`` names the document in the error."""
    if begin not in text or end not in text:
        raise ValueError(f"{where}: the markers {begin!r} and {end!r} are missing")
    head, rest = text.split(begin, 1)
    return head + begin + "\n\n" + table + "\n" + end + rest.split(end, 1)[1]
