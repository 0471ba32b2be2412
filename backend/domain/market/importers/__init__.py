"""Loading real data files into the canonical market tables."""
