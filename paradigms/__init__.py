"""Paradigm library (DESIGN.md §1 step 4): Django app plus its cold-start files in `cold_start/`."""
