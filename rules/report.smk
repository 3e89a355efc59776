# The HTML report (`snakemake --report results/report.html`): every method's
# figures and summary tables, grouped by method, each with a caption
# (report/) that says what it shows and what was run. Figures are marked
# where their rules declare them, through figure(); summaries reach the
# report as pages rendered from their Markdown by rule report_page.
from pipeline_lib.versions import REPORT_VERSION

report: "../report/workflow.rst"

REPORT_CAPTIONS = os.path.join(workflow.basedir, "report")
# results/<method>/... -> the report's category
REPORT_CATEGORIES = {"tbpoint": "TBPoint", "gpumech": "GPUMech", "scaling": "Scaling model", "simprof": "SimProf"}


def figure(path, caption, category, subcategory=None):
    """``path`` marked for the report, captioned by report/<caption>.rst
    (Jinja: the producing job's wildcards, params and config)."""
    return report(path, caption=os.path.join(REPORT_CAPTIONS, f"{caption}.rst"), category=category,
                  subcategory=subcategory)


def report_pages(*markdown_files):
    """The report pages of these Markdown summaries (targets of rule all)."""
    return [f[: -len(".md")] + ".html" for f in markdown_files]


localrules: report_page


rule report_page:
    input:
        P.method("{method}", "{page}.md"),
    output:
        report(P.method("{method}", "{page}.html"), caption=os.path.join(REPORT_CAPTIONS, "page.rst"),
               category=lambda wc: REPORT_CATEGORIES[wc.method], subcategory="Summaries"),
    wildcard_constraints:
        method="|".join(REPORT_CATEGORIES),
        page="[A-Za-z0-9_/-]+",
    params:
        **keyed(
            code_version=REPORT_VERSION,
        ),
    resources:
        **LIGHT_JOB,
    threads: 1
    run:
        from pipeline_lib.report import write_page

        write_page(input[0], output[0])
