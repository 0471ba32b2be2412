"""Daily sync of real A-share data (Tushare Pro, AKShare) into the canonical tables.

Django-free: the HTTP client is injected (`transport.HttpPost`), planning reads the store's latest
dates (`plan.py`), and `runner.run_sync` replaces each fetched slice by delete-then-insert.
"""
