# The README commands on a bare machine with python3 and make:
#   make demo            creates .venv, installs the package (and Scrapy) only, runs the example
#   make test            installs the test and dev tools on top, runs lint, mypy and the suite
#                        (in parallel: PYTEST_WORKERS below)
#   make test-unit       the suite without the real crawls (-m "not e2e"): the quick run
#   make package-check   builds the sdist and the wheel, installs the wheel in a fresh venv,
#                        crawls with it and runs the sdist's tests (.ci/package)
#   make test-oldest     runs the crawl tests again on the oldest Scrapy setup.cfg allows
#   make docs            installs the docs extra, runs the other projects' test suites
#                        (tests/conformance/test_conformance.py) for the conformance
#                        page's figures, builds the site with warnings as errors
#                        (docs/_build/html) and runs its doctests and
#                        tests/project/test_docs.py
#   make bench           installs the bench extra on top of the test one, runs the benchmarks
# Only the first run of each downloads packages (from the package index); after that
# nothing needs the network.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# One stamp per set of packages: the demo needs the package alone.
DEMO_STAMP := $(VENV)/.installed-demo
TEST_STAMP := $(VENV)/.installed-test
DOCS_STAMP := $(VENV)/.installed-docs
BENCH_STAMP := $(VENV)/.installed-bench
# The suite runs in parallel: one pytest-xdist worker per core (auto), each
# taking the next test when it is free (worksteal); PYTEST_WORKERS=0 runs it
# in one process, as plain `pytest` does. The few tests that time
# themselves against a bound run while no other test runs (marked alone,
# tests/alone.py).
PYTEST_WORKERS ?= auto
PARALLEL := -n $(PYTEST_WORKERS) --dist worksteal

.PHONY: test test-unit test-compiled test-oldest demo docs lint bench package-check clean

$(DEMO_STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(DEMO_STAMP)

$(TEST_STAMP): $(DEMO_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	touch $(TEST_STAMP)

$(DOCS_STAMP): $(TEST_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

$(BENCH_STAMP): $(TEST_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	touch $(BENCH_STAMP)

lint: $(TEST_STAMP)
	$(BIN)/ruff check scrapy_robots_rfc tests benchmarks example_project
	$(BIN)/ruff format --check scrapy_robots_rfc tests benchmarks example_project
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/python -m pytest $(PARALLEL)

# The suite without the tests marked e2e (real Scrapy crawls against the local
# server, Redis or in a subprocess): the quick run while working. tests/conftest.py
# stops any run in which a test that uses the local server is not marked e2e.
test-unit: $(TEST_STAMP)
	$(BIN)/python -m pytest $(PARALLEL) -m "not e2e"

# The site, offline (docs/conf.py: intersphinx only on Read the Docs or with
# DOCS_INTERSPHINX=1); -n: a broken reference to the package is a warning, -W
# makes every warning an error. First the conformance run, whose figures the
# conformance page renders (docs/_generated/conformance.json, never committed);
# then the site; then the pages' doctests (pytest reads the .rst files), the
# test that every setting, stat... is documented, and the tests that read the
# built HTML (tables one row per entry, headings).
CONFORMANCE_FIGURES := docs/_generated/conformance.json

docs: $(DOCS_STAMP)
	$(BIN)/python -m pytest -q tests/conformance/test_conformance.py --conformance-figures=$(CONFORMANCE_FIGURES)
	$(BIN)/sphinx-build -W --keep-going -n -q -b html docs docs/_build/html
	$(BIN)/python -m pytest docs tests/project/test_docs.py tests/project/test_readme.py

# The oldest Scrapy setup.cfg allows, in a venv of its own under .tox/ (which
# git and the sdist leave out): the tests of real crawls, both activations.
OLDEST_SCRAPY := 2.13.4
OLDEST_VENV := .tox/make-oldest
OLDEST_STAMP := $(OLDEST_VENV)/.installed-$(OLDEST_SCRAPY)
OLDEST_TESTS := tests/crawl/test_middleware.py tests/crawl/test_migration.py tests/crawl/test_startup.py tests/crawl/test_sitemaps.py tests/crawl/test_page_rules_crawl.py tests/crawl/test_fetch_limits.py

$(OLDEST_STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(OLDEST_VENV)
	$(OLDEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(OLDEST_VENV)/bin/python -m pip install --quiet -e '.[test]' 'scrapy==$(OLDEST_SCRAPY)'
	touch $(OLDEST_STAMP)

test-oldest: $(OLDEST_STAMP)
	$(OLDEST_VENV)/bin/python -c "import scrapy; assert scrapy.__version__ == '$(OLDEST_SCRAPY)', scrapy.__version__"
	$(OLDEST_VENV)/bin/python -m pytest $(PARALLEL) $(OLDEST_TESTS)

# The whole suite again against the compiled build (setup.py's
# SCRAPY_ROBOTS_RFC_USE_MYPYC=1): .ci/compiled builds the wheel in a copy under
# .tox/compiled and runs every test there (its arguments go to pytest).
test-compiled: $(TEST_STAMP)
	BUILD_PYTHON=$(abspath $(BIN))/python .ci/compiled $(PARALLEL)

demo: $(DEMO_STAMP)
	cd example_project && $(abspath $(BIN))/python demo.py

bench: $(BENCH_STAMP)
	$(BIN)/python benchmarks/bench_matcher.py
	$(BIN)/python benchmarks/bench_memory.py
	$(BIN)/python benchmarks/bench_usage.py
	$(BIN)/python benchmarks/bench_crawl.py
	$(BIN)/python benchmarks/bench_latency.py
	$(BIN)/python benchmarks/bench_stores.py
	$(BIN)/python benchmarks/bench_fetch_memory.py
	$(BIN)/python benchmarks/bench_cache_memory.py

# Builds with the .venv's `build` (the dev extra); the fresh venv it installs into
# is made with $(PYTHON).
package-check: $(TEST_STAMP)
	BUILD_PYTHON=$(abspath $(BIN))/python PYTHON=$(PYTHON) .ci/package

clean:
	rm -rf $(VENV) .tox build dist *.egg-info
