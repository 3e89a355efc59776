"""Versions of the parts of the library whose results the workflow caches.

Snakemake cannot see edits to an imported library, so every rule passes the
version of the code it runs through ``params:``.  Bump a version when a change
alters that stage's outputs; the dependent jobs then rerun.
"""
EMULATOR_VERSION = "1"   # PTX parser/decoder/emulator, workload drivers, trace writer
SIMULATOR_VERSION = "4"  # detailed timing simulator (pipeline_lib/sim: engine, simulator, output)
POWER_VERSION = "2"      # power model energies and scaling (pipeline_lib/sim/power.py)
TBPOINT_VERSION = "5"    # TBPoint clustering, regions, sampling policy and baselines (pipeline_lib/tbpoint)
GPUMECH_VERSION = "8"    # GPUMech collector, interval algorithm, representative warp, models (pipeline_lib/gpumech)
SCALING_VERSION = "7"    # Table II counters, scaling model (clusters or regression), its validation (pipeline_lib/scaling)
SIMPROF_VERSION = "5"    # SimProf inputs, jobs and plugin, profile tables, units, phases, sampling (pipeline_lib/simprof)
REPORT_VERSION = "1"     # the HTML report's pages (pipeline_lib/report.py)
