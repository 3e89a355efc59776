# Entry points. `make run` and `make test` each build .venv from the lock file
# on a fresh machine (Python 3.11 with venv and pip) and then do their job.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORES ?= 2

.PHONY: venv jdk run test ptx bench clean

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

## run the default pipeline (config/config.yaml) on $(CORES) cores
run: venv
	$(BIN)/snakemake --cores $(CORES) --profile profiles/default

## run the test suite
test: venv
	$(BIN)/python -m pytest -q

## regenerate the committed PTX and ptxas info from the CUDA sources (needs nvcc)
ptx:
	$(BIN)/python -m pipeline_lib.workloads.build_ptx

bench: venv
	$(BIN)/python benchmarks/emulator_speed.py

clean:
	rm -rf results .snakemake
