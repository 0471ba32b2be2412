"""The compiler's one refusal."""


class CompileError(ValueError):
    """The QST is well formed but cannot be compiled on this data (e.g. no such period)."""
