"""Dates as operators read logs: ``2026-01-31 14:05:09`` (UTC), compact and sortable, so list
columns stay narrow and nothing is clipped. Only output formats: input parsing is Django's."""

DATE_FORMAT = "Y-m-d"
TIME_FORMAT = "H:i:s"
DATETIME_FORMAT = "Y-m-d H:i:s"
SHORT_DATE_FORMAT = "Y-m-d"
SHORT_DATETIME_FORMAT = "Y-m-d H:i"
