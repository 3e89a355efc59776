"""The house plan's code rules (README, "Where a change goes"): small
functions, every results path from pipeline_lib.workflow."""
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES, MAX_PARAMS = 200, 30


def _functions():
    for path in sorted([*ROOT.glob("pipeline_lib/**/*.py"), *ROOT.glob("scripts/*.py"), *ROOT.glob("benchmarks/*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                params = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
                yield path.relative_to(ROOT), node, node.end_lineno - node.lineno + 1, params


def test_no_function_is_over_200_lines_or_30_parameters():
    big = [f"{p}:{n.lineno} {n.name}: {lines} lines, {params} parameters"
           for p, n, lines, params in _functions() if lines > MAX_LINES or params > MAX_PARAMS]
    assert not big, "split these (or group their arguments by role):\n" + "\n".join(big)


def test_the_checker_sees_a_long_function(tmp_path, monkeypatch):
    """The rule above can fail: a generated 201-line function is caught."""
    body = "\n".join(f"    x{i} = {i}" for i in range(200))
    (tmp_path / "pipeline_lib").mkdir()
    (tmp_path / "pipeline_lib" / "m.py").write_text(f"def f(a):\n{body}\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = [(n.name, lines) for _, n, lines, _ in _functions()]
    assert found == [("f", 201)]


def test_rules_take_results_paths_from_the_paths_module():
    """No rule file builds a path under the results directory by hand."""
    hand_built = [f"{p.name}:{i}: {line.strip()}"
                  for p in [ROOT / "Snakefile", *sorted((ROOT / "rules").glob("*.smk"))]
                  for i, line in enumerate(p.read_text().splitlines(), 1)
                  if re.search(r'f"\{RESULTS\}|\{RESULTS\}/|RESULTS \+', line)]
    assert not hand_built, "use P (pipeline_lib/workflow/paths.py):\n" + "\n".join(hand_built)
