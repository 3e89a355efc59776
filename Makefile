# Entry points. `make run` and `make test` each build .venv from the lock file
# on a fresh machine (Python 3.11 with venv and pip) and then do their job.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORES ?= 2

# the configuration files of `make run` (later files are merged over earlier ones)
CONFIG ?= config/config.yaml

.PHONY: venv jdk system-packages check-config run study report test ptx bench clean

$(BIN)/.installed: requirements.lock pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade "pip==25.3"
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

venv: $(BIN)/.installed jdk

## SimProf's Spark jobs need a JDK 17+ (javac, java); installed from Debian's packages where missing
jdk:
	@command -v javac >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless >/dev/null; }
	@javac -version

## Debian packages of the system tests: SLURM and munge (tests/test_slurm.py), Chromium
## (the HTML report's test) and QEMU's user-mode emulator with gcc (SimProf's emulated counter mode,
## tests/test_simprof_emulated.py); installed where missing if this is root with apt, else those tests
## are skipped
system-packages:
	@missing=""; \
	command -v slurmctld >/dev/null 2>&1 && command -v munged >/dev/null 2>&1 || missing="$$missing slurm-wlm munge"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v qemu-x86_64 >/dev/null 2>&1 || missing="$$missing qemu-user"; \
	command -v gcc >/dev/null 2>&1 || missing="$$missing gcc"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else echo "note: not installed:$$missing (needs root and apt); their tests will be skipped"; fi

## check the configuration files as the workflow will (syntax with line and column, fields, parameters)
check-config: $(BIN)/.installed
	$(BIN)/python -m pipeline_lib.config $(CONFIG)

## the first run: every stage of the four methods on small inputs (config/config.yaml), then the HTML report
run: venv check-config
	$(BIN)/snakemake --cores $(CORES) --profile profiles/default --configfile $(CONFIG)
	$(MAKE) report CONFIG="$(CONFIG)"

## the default studies: the medium suite at the size the validations need (config/study.yaml)
study:
	$(MAKE) run CONFIG=config/study.yaml

## the HTML report of the last run: every figure and summary table, by method
report: venv
	$(BIN)/snakemake --report results/report.html --configfile $(CONFIG)

## run the test suite
test: venv system-packages
	$(BIN)/python -m pytest -q

## regenerate the committed PTX and ptxas info from the CUDA sources (needs nvcc)
ptx:
	$(BIN)/python -m pipeline_lib.workloads.build_ptx

bench: venv
	$(BIN)/python benchmarks/emulator_speed.py

clean:
	rm -rf results .snakemake
