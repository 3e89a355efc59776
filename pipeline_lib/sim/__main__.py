"""``python -m pipeline_lib.sim --hardware-doc docs/hardware.md``: regenerate
the hardware field table of docs/hardware.md from config/hardware/schema.yaml."""
import argparse
from pathlib import Path

from .hardware import field_rows, with_doc_table

ap = argparse.ArgumentParser(prog="python -m pipeline_lib.sim", description=__doc__.splitlines()[0].strip("`"))
ap.add_argument("--hardware-doc", metavar="MD", required=True,
                help="the Markdown file whose field table is regenerated (docs/hardware.md)")
doc = Path(ap.parse_args().hardware_doc)
doc.write_text(with_doc_table(doc.read_text()))
print(f"{doc}: hardware field table regenerated ({len(field_rows())} fields)")
