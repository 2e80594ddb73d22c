# The two README commands on a bare machine with python3 and make:
#   make test   creates .venv, installs the package with its test tools, runs the suite
#   make demo   runs the example
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test demo lint bench clean

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check scrapy_robots_rfc tests benchmarks example_project
	$(BIN)/ruff format --check scrapy_robots_rfc tests benchmarks example_project
	$(BIN)/mypy
	$(BIN)/python -m pytest

demo: $(STAMP)
	cd example_project && ../$(BIN)/python demo.py

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_matcher.py
	$(BIN)/python benchmarks/bench_memory.py
	$(BIN)/python benchmarks/bench_crawl.py
	$(BIN)/python benchmarks/bench_stores.py

clean:
	rm -rf $(VENV) .tox build dist *.egg-info
