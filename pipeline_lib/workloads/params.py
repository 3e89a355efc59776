"""Declared parameters of the host drivers: type, range and meaning.

Each driver lists its size parameters once, as ``param_specs`` of
:class:`Param` objects; the configuration check (``pipeline_lib.config``), the
drivers' own constructor and the parameter table of docs/workloads.md all read
them, so a value of the wrong type or out of range is an error that names the
field (``workloads.<name>.params.<field>``) before any job starts.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Param", "ParamError"]


class ParamError(ValueError):
    """A workload parameter of the wrong type or out of its range.  ``field``
    is the parameter's name."""

    def __init__(self, field: str, msg: str):
        super().__init__(msg)
        self.field = field


@dataclass(frozen=True)
class Param:
    """One driver parameter.

    Parameters
    ----------
    kind : ``int``, ``float`` or ``str``.  An ``int`` parameter takes only
        integers (not ``64.5``, not ``"5000"``, not ``true``); a ``float`` one
        takes integers or floats.
    doc : what the parameter means, with its unit.
    min, max : inclusive bounds of a numeric parameter (None: unbounded).
    choices : the allowed values of a ``str`` parameter.
    """

    kind: type
    doc: str
    min: float | None = None
    max: float | None = None
    choices: tuple = ()

    def check(self, field: str, value):
        """``value`` if it is valid, else :class:`ParamError` naming ``field``."""
        if self.kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif self.kind is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            ok = isinstance(value, self.kind)
        if not ok:
            raise ParamError(field, f"expected {self.describe()}, got {type(value).__name__} {value!r}")
        if self.choices and value not in self.choices:
            raise ParamError(field, f"expected one of {', '.join(map(repr, self.choices))}, got {value!r}")
        if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
            raise ParamError(field, f"expected {self.describe()}, got {value!r}")
        return value

    def describe(self) -> str:
        """The type and range, as docs and errors state them."""
        if self.choices:
            return "one of " + ", ".join(map(repr, self.choices))
        name = {int: "an integer", float: "a number", str: "a string"}[self.kind]
        if self.min is not None and self.max is not None:
            return f"{name} in [{self.min}, {self.max}]"
        if self.min is not None:
            return f"{name} >= {self.min}"
        if self.max is not None:
            return f"{name} <= {self.max}"
        return name
