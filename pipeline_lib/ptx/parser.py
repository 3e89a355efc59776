"""Parser for the PTX that nvcc 13 emits (``nvcc -ptx -arch=sm_80``).

It turns PTX text into a :class:`Module` of :class:`Kernel` objects holding
plain Python statements (opcode, modifiers, operands, source line).  Decoding
into the emulator's integer instruction array happens in
:mod:`pipeline_lib.ptx.decode`.

What is skipped: ``.loc``, ``.file``, ``.pragma``, ``.section`` blocks (debug
info), comments.  What is an error: any other unknown directive, any
statement outside a kernel that is not a supported module-level variable, a
file that ends inside a kernel, a parameter list or a statement (a truncated
file), and a file with no ``.version``.  Errors are :class:`PTXError` and read
``file:line (kernel K): what is wrong`` followed by the line's text.

A problem inside one kernel's body (an unsupported instruction such as
``call`` or ``tex``, an operand the parser cannot read) does not stop the
module from loading: it is kept on that kernel (:attr:`Kernel.error`) and
raised when the kernel is decoded, so the module's other kernels still run.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import isa

__all__ = ["PTXError", "Operand", "Statement", "Variable", "Kernel", "Module", "parse_ptx"]


class PTXError(Exception):
    """A PTX construct the toolkit cannot parse or does not support."""

    def __init__(self, msg, source="<ptx>", line=None, text=None, kernel=None):
        where = source if line is None else f"{source}:{line}"
        if kernel:
            where += f" (kernel {kernel})"
        full = f"{where}: {msg}"
        if text is not None:
            full += f"\n    {text.strip()}"
        super().__init__(full)
        self.source, self.line, self.text, self.kernel = source, line, text, kernel


@dataclass
class Operand:
    """One instruction operand.

    kind is one of ``reg`` (name), ``imm`` (text of the literal), ``sym``
    (a variable or label name), ``mem`` (``[base+offset]``: base is a
    register or symbol name or None, offset an int), ``vec`` (``{a, b}``:
    parts is a list of Operands), ``pair`` (``%r1|%p1``: parts).
    ``neg`` marks a ``!%p`` predicate source.
    """

    kind: str
    name: str | None = None
    offset: int = 0
    parts: list | None = None
    neg: bool = False


@dataclass
class Statement:
    opcode: str                 # e.g. "ld"
    mods: list[str]             # e.g. ["global", "nc", "v4", "f32"]
    operands: list[Operand]
    guard: str | None           # predicate register guarding the instruction
    guard_neg: bool
    line: int
    text: str


@dataclass
class Variable:
    """A ``.shared``, ``.const``, ``.global`` or ``.local`` array."""

    space: str
    name: str
    dtype: str
    count: int                  # elements (0 for ``.extern .shared x[]``)
    align: int
    init: bytes | None = None
    extern: bool = False

    @property
    def nbytes(self) -> int:
        return self.count * _TYPE_SIZE[self.dtype]


@dataclass
class Kernel:
    name: str
    params: list[tuple[str, str, int]]        # (name, type, byte offset)
    param_bytes: int
    regs: dict[str, str] = field(default_factory=dict)   # register name -> type
    variables: list[Variable] = field(default_factory=list)
    body: list = field(default_factory=list)  # Statements and ("label", name)
    line: int = 0
    entry: bool = True
    error: "PTXError | None" = None           # the first problem in the body (raised when decoded)


@dataclass
class Module:
    source: str
    kernels: dict[str, Kernel]
    variables: list[Variable]
    version: str = ""
    target: str = ""


_TYPE_SIZE = {
    "b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2,
    "b32": 4, "u32": 4, "s32": 4, "f32": 4, "b64": 8, "u64": 8, "s64": 8,
    "f64": 8, "pred": 1,
}

# Instructions nvcc emits that the emulator does not implement, with what to do
# instead; any other opcode outside isa.OPS is reported as unsupported too.
UNSUPPORTED_INSTRUCTIONS = {
    "call": "device-function calls (including printf and non-inlined functions) are not supported; "
            "inline the callee (__forceinline__) or remove the call",
    "tex": "texture fetches are not supported; read the array with ld.global (plain or __ldg loads)",
    "tld4": "texture gathers are not supported",
    "txq": "texture queries are not supported",
    "suld": "surface loads are not supported", "sust": "surface stores are not supported",
    "sured": "surface reductions are not supported", "suq": "surface queries are not supported",
    "wmma": "warp matrix (tensor core) instructions are not supported",
    "mma": "warp matrix (tensor core) instructions are not supported",
    "ldmatrix": "warp matrix loads are not supported",
    "cp": "asynchronous copies (cp.async) are not supported",
    "mbarrier": "asynchronous barriers are not supported",
    "shf": "funnel shifts are not supported", "lop3": "lop3 is not supported",
    "dp4a": "dp4a is not supported", "dp2a": "dp2a is not supported",
    "trap": "trap is not supported", "brkpt": "brkpt is not supported",
    "nanosleep": "nanosleep is not supported", "match": "match.sync is not supported",
    "redux": "redux.sync is not supported", "bfind": "bfind is not supported",
    "ldu": "ldu is not supported", "prefetch": "prefetch is not supported",
    "isspacep": "isspacep is not supported", "brx": "indirect branches (brx.idx) are not supported",
}

_SKIP_DIRECTIVES = {".loc", ".file", ".pragma", ".maxntid", ".reqntid", ".minnctapersm",
                    ".maxnreg", ".maxclusterrank", ".reqnctapercluster", ".explicitcluster",
                    ".noreturn"}


# Directives terminated by the end of the line rather than by ";".
_LINE_DIRECTIVES = {".version", ".target", ".address_size", ".file", ".loc"}


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _remove_sections(text: str) -> str:
    """Blank out ``.section name { ... }`` blocks but keep line numbers."""
    out, i = [], 0
    for m in re.finditer(r"\.section\b[^{]*\{", text):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while depth and j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        out.append(text[i:m.start()])
        out.append("\n" * text.count("\n", m.start(), j))
        i = j
    out.append(text[i:])
    return "".join(out)


# appended by _split_statements to text left without ";" at the end of the file
_UNTERMINATED = "\0"


def _split_statements(text: str):
    """Yield (line_number, statement_text) for ``;``-terminated statements,
    labels (``name:``) and braces, tracking the source line of each.  Text
    the file ends in without a ``;`` is yielded with ``_UNTERMINATED`` appended."""
    line, buf, start = 1, [], None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            stmt = "".join(buf).strip()
            if stmt.split(None, 1)[:1] and stmt.split(None, 1)[0] in _LINE_DIRECTIVES:
                yield start, stmt
                buf, start = [], None
            line += 1
        if ch in "{}" and not "".join(buf).strip():
            yield line, ch
            buf, start = [], None
        elif ch == ";":
            stmt = "".join(buf).strip()
            if stmt:
                yield start, stmt
            buf, start = [], None
        elif ch == ":" and re.fullmatch(r"\s*[\w$.]+\s*", "".join(buf)) and "".join(buf).strip()[:1] != ".":
            yield start, "".join(buf).strip() + ":"
            buf, start = [], None
        elif ch == "{" and "".join(buf).lstrip().startswith(".") and "=" not in "".join(buf) and \
                "".join(buf).count("(") == "".join(buf).count(")"):
            # "{" opening a function body after its header without ";"
            yield start, "".join(buf).strip()
            yield line, "{"
            buf, start = [], None
        else:
            if start is None and not ch.isspace():
                start = line
            buf.append(ch)
        i += 1
    if "".join(buf).strip():
        yield start, "".join(buf).strip() + _UNTERMINATED


_INT_RE = re.compile(r"^-?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)[uU]?$")
_FLT_RE = re.compile(r"^-?(0[fFdD][0-9a-fA-F]+|[0-9]*\.[0-9]+([eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)$")


def parse_int(text: str) -> int:
    t = text.strip().rstrip("uU")
    neg = t.startswith("-")
    if neg:
        t = t[1:]
    if t.lower().startswith("0x"):
        v = int(t, 16)
    elif t.lower().startswith("0b"):
        v = int(t[2:], 2)
    elif len(t) > 1 and t.startswith("0"):
        v = int(t, 8)
    else:
        v = int(t)
    return -v if neg else v


def _parse_operand(tok: str) -> Operand:
    tok = tok.strip()
    if tok.startswith("{") and tok.endswith("}"):
        return Operand("vec", parts=[_parse_operand(p) for p in _split_commas(tok[1:-1])])
    if tok.startswith("[") and tok.endswith("]"):
        inner = tok[1:-1].replace(" ", "").replace("\t", "")
        m = re.fullmatch(r"([%\w$.]+)?(?:\+?(-?(?:0[xX][0-9a-fA-F]+|\d+)))?", inner)
        if not m or (m.group(1) is None and m.group(2) is None):
            raise ValueError(f"unsupported address operand {tok!r}")
        base = m.group(1)
        if base is not None and _INT_RE.match(base):
            return Operand("mem", name=None, offset=parse_int(base))
        return Operand("mem", name=base, offset=parse_int(m.group(2)) if m.group(2) else 0)
    if "|" in tok:
        return Operand("pair", parts=[_parse_operand(p) for p in tok.split("|")])
    if tok.startswith("!"):
        op = _parse_operand(tok[1:])
        op.neg = True
        return op
    if tok.startswith("%"):
        return Operand("reg", name=tok)
    if _INT_RE.match(tok) or _FLT_RE.match(tok):
        return Operand("imm", name=tok)
    if re.fullmatch(r"[\w$.]+(\+-?\d+)?", tok):
        if "+" in tok:
            name, off = tok.split("+", 1)
            return Operand("sym", name=name, offset=int(off))
        return Operand("sym", name=tok)
    raise ValueError(f"unsupported operand {tok!r}")


def _split_commas(text: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return [p.strip() for p in parts]


def _parse_init(text: str, dtype: str, count: int) -> bytes:
    import numpy as np
    vals = [v.strip() for v in text.strip().strip("{}").split(",") if v.strip()]
    size = _TYPE_SIZE[dtype]
    out = bytearray(count * size)
    for k, v in enumerate(vals):
        if dtype.startswith("f"):
            if v[:2].lower() in ("0f", "0d"):
                raw = int(v[2:], 16)
            else:
                raw = np.array(float(v), dtype=np.float32 if size == 4 else np.float64).view(
                    np.uint32 if size == 4 else np.uint64).item()
        else:
            raw = parse_int(v) & ((1 << (8 * size)) - 1)
        out[k * size:(k + 1) * size] = raw.to_bytes(size, "little")
    return bytes(out)


_VAR_RE = re.compile(
    r"^(?P<extern>\.extern\s+)?(?P<vis>\.visible\s+|\.weak\s+)?(?P<space>\.shared|\.const|\.global|\.local)\s+"
    r"(?:\.align\s+(?P<align>\d+)\s+)?(?P<type>\.\w+)\s+(?P<name>[\w$]+)"
    r"(?P<dims>(\[\d*\])*)\s*(?:=\s*(?P<init>.*))?$", re.S)


def _parse_variable(stmt: str) -> Variable | None:
    m = _VAR_RE.match(stmt)
    if not m:
        return None
    dtype = m.group("type")[1:]
    if dtype not in _TYPE_SIZE:
        raise ValueError(f"unsupported variable type .{dtype}")
    dims = re.findall(r"\[(\d*)\]", m.group("dims") or "")
    count = 1
    extern = bool(m.group("extern"))
    for d in dims:
        if d == "":
            count = 0
        else:
            count *= int(d)
    align = int(m.group("align") or _TYPE_SIZE[dtype])
    init = _parse_init(m.group("init"), dtype, count) if m.group("init") else None
    return Variable(m.group("space")[1:], m.group("name"), dtype, count, align, init, extern)


def _parse_params(header: str, kname: str):
    if "(" in header and ")" not in header[header.index("("):]:
        raise ValueError("the parameter list has no closing ')'")
    inside = header[header.index("(") + 1: header.rindex(")")] if "(" in header else ""
    params, off = [], 0
    for p in _split_commas(inside):
        m = re.fullmatch(r"\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+([\w$]+)(?:\[(\d+)\])?", p.strip())
        if not m or m.group(2) not in _TYPE_SIZE:
            raise ValueError(f"unsupported kernel parameter {p.strip()!r}")
        dtype, name = m.group(2), m.group(3)
        size = _TYPE_SIZE[dtype] * (int(m.group(4)) if m.group(4) else 1)
        align = int(m.group(1)) if m.group(1) else _TYPE_SIZE[dtype]
        off = (off + align - 1) // align * align
        params.append((name, dtype, off))
        off += size
    return params, off


def _keep_first_error(kernel: Kernel, err: PTXError, stmt: str) -> None:
    """Remember a problem in a kernel's body.  The first one is kept, except
    that a ``call`` replaces the ``.param`` declarations of its call sequence,
    so that the message names the instruction the user has to change."""
    is_call = stmt.split(None, 1)[0].split(".")[0] == "call"
    if kernel.error is None or (is_call and getattr(kernel.error, "call_sequence", False)):
        kernel.error = err
    if stmt.startswith(".param"):
        err.call_sequence = True


def parse_ptx(text: str, source: str = "<ptx>") -> Module:
    """Parse PTX text into a :class:`Module`. Raises :class:`PTXError` for a
    module-level problem; a problem inside a kernel body is kept on that
    kernel (``Kernel.error``) and raised when it is decoded."""
    text = _remove_sections(_strip_comments(text))
    kernels: dict[str, Kernel] = {}
    mod_vars: list[Variable] = []
    version = target = ""
    cur: Kernel | None = None
    depth = 0
    last_line = 1

    for line, stmt in _split_statements(text):
        last_line = line
        if stmt.endswith(_UNTERMINATED):
            stmt = stmt[:-1]
            header = re.match(r"^(\.visible\s+|\.weak\s+)?\.(entry|func)\s+([\w$]+)", stmt)
            where = (f"inside kernel {cur.name} (opened at line {cur.line})" if cur
                     else f"in the header of kernel {header.group(3)}, before its body" if header
                     else "in a statement")
            raise PTXError(f"the file ends {where}: the statement has no ';' (is the file truncated?)",
                           source, line, stmt, cur.name if cur else None)
        if stmt == "{":
            if cur is None:
                raise PTXError("unexpected '{'", source, line, stmt)
            depth += 1
            continue
        if stmt == "}":
            if cur is None:
                raise PTXError("unexpected '}' outside a kernel", source, line, stmt)
            depth -= 1
            if depth == 0:
                cur = None
            continue
        first = stmt.split(None, 1)[0]
        if cur is None:
            # module level
            if first in (".version",):
                version = stmt.split()[1] if len(stmt.split()) > 1 else ""
            elif first == ".target":
                target = stmt.split(None, 1)[1] if len(stmt.split()) > 1 else ""
            elif first == ".address_size":
                if stmt.split()[1:] != ["64"]:
                    raise PTXError("only .address_size 64 is supported", source, line, stmt)
            elif first in _SKIP_DIRECTIVES:
                pass
            elif re.match(r"^(\.visible\s+|\.weak\s+)?\.(entry|func)\b", stmt) or (
                    first == ".extern" and ".func" in stmt):
                if ".extern" in stmt.split("(")[0] and ".func" in stmt:
                    continue  # declaration of an external function (e.g. vprintf)
                m = re.search(r"\.(entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)", stmt)
                if m is None:
                    raise PTXError("a kernel or function header without a name", source, line, stmt)
                name = m.group(2)
                try:
                    params, nbytes = _parse_params(stmt[m.end():], name)
                except ValueError as e:
                    raise PTXError(str(e), source, line, stmt, name) from None
                cur = Kernel(name, params, nbytes, line=line, entry=m.group(1) == "entry")
                kernels[name] = cur
            else:
                try:
                    var = _parse_variable(stmt)
                except ValueError as e:
                    raise PTXError(str(e), source, line, stmt) from None
                if var is None:
                    raise PTXError("unsupported module-level directive", source, line, stmt)
                mod_vars.append(var)
            continue
        try:
            _parse_body_statement(cur, stmt, first, line, source)
        except PTXError as e:
            _keep_first_error(cur, e, stmt)
    if cur is not None:
        raise PTXError(f"the file ends inside kernel {cur.name} (opened at line {cur.line}): "
                       f"{depth} closing '}}' missing (is the file truncated?)", source, last_line, None, cur.name)
    if not version:
        raise PTXError("not a PTX module: no .version directive", source)
    return Module(source, kernels, mod_vars, version, target)


def _parse_body_statement(cur: Kernel, stmt: str, first: str, line: int, source: str) -> None:
    """Add one statement of a kernel body to ``cur`` (raises PTXError)."""
    if stmt.endswith(":") and not stmt.startswith("."):
        cur.body.append(("label", stmt[:-1].strip(), line))
        return
    if first == ".reg":
        m = re.fullmatch(r"\.reg\s+\.(\w+)\s+(.+)", stmt, re.S)
        if not m or m.group(1) not in _TYPE_SIZE:
            raise PTXError("unsupported register declaration", source, line, stmt, cur.name)
        for decl in _split_commas(m.group(2)):
            mm = re.fullmatch(r"(%[\w$]+)<(\d+)>", decl)
            names = [f"{mm.group(1)}{k}" for k in range(int(mm.group(2)))] if mm else [decl]
            for nm in names:
                cur.regs[nm] = m.group(1)
        return
    if first in _SKIP_DIRECTIVES:
        return
    if first == ".param":
        raise PTXError("a .param declaration inside a kernel body belongs to a device-function call "
                       "sequence; " + UNSUPPORTED_INSTRUCTIONS["call"], source, line, stmt, cur.name)
    if first.startswith("."):
        try:
            var = _parse_variable(stmt)
        except ValueError as e:
            raise PTXError(str(e), source, line, stmt, cur.name) from None
        if var is None:
            raise PTXError(f"unsupported directive {first}", source, line, stmt, cur.name)
        cur.variables.append(var)
        return
    cur.body.append(_parse_instruction(stmt, line, source, cur.name))


def _parse_instruction(stmt: str, line: int, source: str, kname: str) -> Statement:
    guard, neg = None, False
    s = stmt
    m = re.match(r"@(!?)(%[\w$]+)\s+", s)
    if m:
        neg, guard = m.group(1) == "!", m.group(2)
        s = s[m.end():]
    parts = s.split(None, 1)
    dotted = parts[0].split(".")
    opcode, mods = dotted[0], [x for x in dotted[1:] if x]
    if opcode in UNSUPPORTED_INSTRUCTIONS:
        raise PTXError(f"unsupported instruction '{opcode}': {UNSUPPORTED_INSTRUCTIONS[opcode]}",
                       source, line, stmt, kname)
    if opcode not in isa.OP or opcode == "nop":
        raise PTXError(f"unsupported instruction '{opcode}' (not in the emulator's instruction set; "
                       "docs/emulator.md lists what is supported)", source, line, stmt, kname)
    try:
        operands = [_parse_operand(t) for t in _split_commas(parts[1])] if len(parts) > 1 else []
    except ValueError as e:
        raise PTXError(str(e), source, line, stmt, kname) from None
    return Statement(opcode, mods, operands, guard, neg, line, stmt)
