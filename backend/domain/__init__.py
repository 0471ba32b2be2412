"""Domain logic of VeriScreen: plain Python packages with no Django imports.

`market` (ClickHouse store, schema, SQL guard, demo data, importers), `language` (semantic model,
QST, parser, compiler, LLM roles) and `equivalence` (bounded SQL equivalence with z3). The Django,
DRF, Celery and Channels layers in `backend.apps` are thin wrappers around these packages; a test
(tests/test_architecture.py) keeps Django out of here.
"""
