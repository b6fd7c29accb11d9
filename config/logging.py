"""Log filters: what an operator reads in the web log should be worth reading."""

from __future__ import annotations

import logging


class ClientErrorsWithoutTracebacks(logging.Filter):
    """A 4xx is the client's mistake, answered as designed (a reviewer opening a page they may
    not, an unknown id): keep Django's one-line warning, drop the traceback it attaches."""

    def filter(self, record: logging.LogRecord) -> bool:
        status_code = getattr(record, "status_code", None)
        if record.name == "django.request" and status_code is not None and status_code < 500:
            record.exc_info = None
            record.exc_text = None
        return True
