"""What can be asked: the semantic model (metrics, units, synonyms) and the concept catalogue, read-only."""
