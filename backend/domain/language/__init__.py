"""Language engine: semantic model, Query Structure Tree (QST), question → QST → SQL, LLM roles.

Public entry points:
- `translation` — the contract (Translation, Translator, LlmCall, SchemaContext);
- `api.translate_question(question, context, translator=None)` — the built-in engine unless told otherwise;
- `context.LanguageContext.from_store(store, today=None)` — dictionaries, calendar and schema prompt;
- `engine.BuiltinTranslator` — lexicon + grammar parser (`parser`) and sqlglot compiler (`compiler`);
- `qst` — QST JSON format (QST.md), validation and `qst_distance`;
- `semantic_model.yaml` / `grammar_words.yaml` — the editable vocabulary and conventions.
"""
