"""Saved screens: a question kept under a name, re-run on the latest data, its results pulled as JSON/CSV."""
