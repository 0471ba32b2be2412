"""Paradigm library logic, free of Django (README.md next to this file).

- `trees` — QST → zss tree, canonical order, shape and content signatures;
- `costs` — the cost model of the tree edit distance;
- `distance` — exact Zhang–Shasha distance (`zss`) and the lower/upper bounds used for pruning;
- `matching` — `ParadigmIndex.nearest` (pruned) and `exhaustive_nearest` (reference);
- `templates` — SQL templates with typed slots (a list of codes is one): `extract_template`, `fill_template`;
- `eviction` — the LFU policy (30-day window, oldest first on ties, pinned never evicted);
- `seeds` — cold-start YAML files; `variations` and `bench` — the matching benchmark.

The ORM models, services and the `paradigms` command live in the top-level `paradigms/` app.
"""
