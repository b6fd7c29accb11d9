"""What the registry announces, for other parts of the system to act on in the same transaction.

The registry knows nothing of who listens: the pipeline sends a started campaign's messages
(``pipeline/apps.py``), human review opens an item for a version a re-scan found worse
(``reviews/apps.py``).
"""

from __future__ import annotations

from django.dispatch import Signal

campaign_started = Signal()
"""Sent as a re-scan campaign starts, with its items created. Argument: ``campaign``."""

version_needs_review = Signal()
"""Sent as a re-scan finds a published version newly concerning or newly critical (already
quarantined then). Arguments: ``item`` (the RescanItem, with the old and new verdicts),
``severity`` ("concerning" or "critical") and ``reasons`` (a list of sentences)."""
