"""The parser's one refusal: it never guesses."""


class NotUnderstood(Exception):
    """The question (or a part of it, named in the message) could not be mapped."""
