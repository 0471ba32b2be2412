"""The JSON form of an ordered labelled tree: `{"label": str, "children": [...], ...values}`.

A QST (backend/domain/language/QST.md) is such a tree, and so is the description of a reverse check
(backend/domain/pipeline/validate/reverse/description.py): the paradigm library matches both by tree
edit distance. The form lives here, apart from the parser, so that the reverse checks — which must
read the question independently of the parser — can build trees without importing it.
"""

from __future__ import annotations

from typing import Any

Node = dict[str, Any]


class QstError(ValueError):
    """A tree (a QST or a reverse check's description) that does not follow the format."""
