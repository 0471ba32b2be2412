# VeriScreen — the two quick-start commands are `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test setup python frontend system lint typecheck pytest frontend-test migrate demo bench clean

## Install everything and start the platform on the embedded default with demo data.
run: setup migrate demo
	$(PY) manage.py collectstatic --noinput -v 0
	@echo "demo market data is SYNTHETIC; the server prints its address once it listens"
	$(PY) manage.py serve --host $(HOST) --port $(PORT)

## Install everything and run the whole test suite (what CI runs).
test: setup system
	./scripts/ensure-services.sh
	$(MAKE) lint typecheck
	$(MAKE) pytest
	$(MAKE) frontend-test

setup: python frontend

python: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -r requirements.txt
	touch $@

frontend: node_modules/.installed
	npm run build --silent

# package.json at the top is an npm workspace root; the React app is the `frontend` workspace.
node_modules/.installed: package.json package-lock.json frontend/package.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

system:
	./scripts/system-packages.sh

migrate: python
	$(PY) manage.py migrate --noinput -v 0

demo: python
	$(PY) manage.py market init
	$(PY) manage.py market generate --if-empty
	$(PY) manage.py paradigms load --if-empty

lint: python
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: python
	$(VENV)/bin/mypy backend paradigms

pytest: python
	$(PY) -m pytest -n 2 --dist loadgroup

frontend-test: frontend
	npm run lint && npm run typecheck && npm test

bench: python
	$(PY) manage.py market bench

clean:
	rm -rf $(VENV) node_modules frontend/node_modules frontend/dist var
