"""The market sync's beat schedule from one cron-style setting (read by settings.py: no Django imports)."""

from __future__ import annotations

from celery.schedules import crontab


def crontab_from(text: str) -> crontab:
    """`"30 18 * * 1-5"` (minute hour day-of-month month day-of-week) as a Celery crontab."""
    fields = text.split()
    if len(fields) != 5:
        raise SystemExit(
            f"MARKET_SYNC_CRON={text!r}: expected five fields, minute hour day-of-month month day-of-week"
        )
    minute, hour, day_of_month, month, day_of_week = fields
    try:
        return crontab(
            minute=minute, hour=hour, day_of_month=day_of_month, month_of_year=month, day_of_week=day_of_week
        )
    except ValueError as error:
        raise SystemExit(f"MARKET_SYNC_CRON={text!r}: {error}") from error
