"""Language engine: semantic model, Query Structure Tree (QST), question → QST → SQL, LLM roles.

Public entry point: `backend.domain.language.translation` (Translation, Translator, LlmCall).
"""
