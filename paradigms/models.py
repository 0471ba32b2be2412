"""Paradigm library models. The paradigm-evolution issue adds the library itself (QST, SQL, usage)."""
