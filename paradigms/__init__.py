"""Paradigm library (DESIGN.md §1 step 4): Django app; its cold-start files are in `seed/`."""
