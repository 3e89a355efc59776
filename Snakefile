# Simulation-methodology pipeline: trace -> profile -> cluster -> sample ->
# simulate -> validate.  See README.md and docs/.  Keep this file cheap to
# parse: cluster jobs re-read it.
import os

from pipeline_lib import provenance
from pipeline_lib.config import read_yaml, validate
from pipeline_lib.jobs import export_producers
from pipeline_lib.rule_params import keyed
from pipeline_lib.workflow import Paths

# The default configuration applies only when none is given on the command
# line (Snakemake would otherwise merge the two workload lists).  It is read
# by our reader, whose syntax errors name the line and column.
CONFIG_FILES = [str(p) for p in workflow.configfiles]
if not config:
    CONFIG_FILES = [os.path.join(workflow.basedir, "config", "config.yaml")]
    config.update(read_yaml(CONFIG_FILES[0]))

CONFIG = validate(config, source=", ".join(CONFIG_FILES) or "config")
# git commit and config digest, stamped into every table's metadata (docs/configuration.md)
provenance.export(workflow.basedir, CONFIG)
RESULTS = CONFIG["results_dir"]
# every results path (pipeline_lib/workflow/paths.py)
P = Paths(RESULTS)
# what the analysis and summary jobs ask a scheduler for (trace and
# simulation jobs take theirs from the config)
LIGHT_JOB = {"mem_mb": 2000, "runtime": 15}
# the suite that simulate, TBPoint and GPUMech run over; other configured
# workloads are traced and simulated only where a sweep or the scaling model
# names them
# (the configuration's checks across fields ran in validate: pipeline_lib/workflow/checks.py)
WORKLOADS = sorted(w for w, spec in CONFIG["workloads"].items() if spec["suite"])

wildcard_constraints:
    wl="[A-Za-z0-9_]+(-[A-Za-z0-9_]+)*",
    hw="[a-z0-9]+(-[a-z0-9]+)*",
    sweep="[a-z0-9]+(-[a-z0-9]+)*",

include: "rules/report.smk"
include: "rules/trace.smk"
include: "rules/simulate.smk"
include: "rules/tbpoint.smk"
include: "rules/gpumech.smk"
include: "rules/sweep.smk"
include: "rules/scaling.smk"
include: "rules/simprof.smk"

# which rule writes which file, for the jobs' error messages (pipeline_lib.jobs)
export_producers(workflow.rules)


rule all:
    input:
        expand(P.trace("check.json"), wl=WORKLOADS),
        expand(P.sim("{t}"), wl=WORKLOADS, hw=HARDWARE, t=["summary.json", "power.parquet"]),
        # summaries as the HTML report's pages (rules/report.smk)
        report_pages(*expand(P.tbpoint("{hw}", "{p}.md"), hw=TBP_HARDWARE, p=["summary", "host_time"])),
        P.tbpoint("markov", "fig7.parquet"),
        P.tbpoint("kernel_types", "kernel_types.parquet"),
        report_pages(P.tbpoint("sensitivity", "summary.md")) if TBP_SENSITIVITY else [],
        report_pages(*expand(P.gpumech("{hw}", "{p}.md"), hw=GM_HARDWARE, p=["summary", "host_time"])),
        expand(P.gpumech("{hw}", "sweeps.parquet"), hw=GM_HARDWARE) if GM["sweeps"] else [],
        expand(P.sweeps("{sweep}", "points.parquet"), sweep=sorted(SWEEPS)),
        SCALING_TARGETS,
        SIMPROF_TARGETS,
