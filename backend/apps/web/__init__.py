"""Web plumbing shared by every app: JSON error bodies, request ids, the API's JSON parser, checks."""
