"""What the pipeline announces, for other parts of the system to act on in the same transaction.

The pipeline knows nothing of who listens: human review subscribes to ``submission_needs_review``
(``reviews/apps.py``) instead of the pipeline calling into reviews. Receivers run synchronously
inside the step's transaction, so a submission never waits for review without its record.
"""

from __future__ import annotations

from django.dispatch import Signal

submission_needs_review = Signal()
"""Sent as a submission enters NEEDS_REVIEW. Arguments: ``submission``, ``decision`` (the
policy's), ``tier1`` (the Tier 1 report) and ``judgement`` (the judge's)."""
