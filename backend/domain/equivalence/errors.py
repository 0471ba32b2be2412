"""Errors of the equivalence checker."""


class Unsupported(Exception):
    """A construct the SMT encoding does not model; the verdict becomes `unsupported: <construct>`."""

    def __init__(self, construct: str) -> None:
        super().__init__(construct)
        self.construct = construct
