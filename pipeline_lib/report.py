"""Pages of the HTML report (``snakemake --report``): each method's Markdown
summary rendered as a self-contained HTML page, with the provenance of the
run that produced it (README, "The HTML report")."""
from __future__ import annotations

import html
from pathlib import Path

import markdown

from . import __version__, provenance
from .io import write_text

STYLE = """body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em;line-height:1.4}
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #bbb;padding:.2em .5em}
th{background:#eee}
code{background:#f4f4f4;padding:0 .2em}.provenance{color:#555;font-size:.9em;border-top:1px solid #ccc}"""


def render_page(text: str, title: str) -> str:
    """``text`` (Markdown with pipe tables) as a standalone HTML page whose
    footer names the git commit, config digest and library version."""
    body = markdown.markdown(text, extensions=["tables"], output_format="html")
    meta = {**provenance.metadata(), "pipeline_lib": __version__}
    footer = ", ".join(f"{k} <code>{html.escape(str(v))}</code>" for k, v in sorted(meta.items()))
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>\n{body}\n"
            f"<p class=\"provenance\">Produced by {footer}.</p>\n</body></html>\n")


def write_page(md_path, html_path) -> None:
    """Render the Markdown file ``md_path`` to ``html_path`` (atomically)."""
    md_path = Path(md_path)
    text = md_path.read_text()
    title = next((line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")), md_path.stem)
    write_text(render_page(text, title), html_path)
