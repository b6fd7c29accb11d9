"""Running re-scan campaigns on the broker: a few lanes of messages per campaign, each message
re-scanning versions for a short while and then handing over to a fresh message, so a campaign
of any size never holds a worker for long and new submissions keep their latency.

Campaign rules live in ``registry.rescans``; this module only moves messages.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta
from uuid import UUID

from celery import current_app
from django.conf import settings
from django.db import transaction

from config.celery import FAST_PUBLISH_RETRY_POLICY
from pipeline.workflow import RESCAN
from registry import rescans
from registry.models import RescanCampaign

logger = logging.getLogger(__name__)

STALLED_AFTER = timedelta(minutes=2)


def dispatch_lanes(campaign_id: object) -> None:
    """Send the campaign's lanes; if the broker is down, the stall sweep sends them later."""
    try:
        for _ in range(settings.SKILLGATE_RESCAN_LANES):
            _send(campaign_id)
    except Exception:
        logger.warning("could not send re-scan %s; a sweep will", campaign_id, exc_info=True)


def dispatch_when_committed(sender: object, *, campaign: RescanCampaign, **kwargs: object) -> None:
    """Receiver of ``registry.signals.campaign_started``."""
    if campaign.status == RescanCampaign.Status.RUNNING:
        campaign_id = campaign.pk
        transaction.on_commit(lambda: dispatch_lanes(campaign_id))


def drain(campaign_id: str) -> None:
    """Re-scan versions for up to ``SKILLGATE_RESCAN_SLICE_S`` seconds, then hand the lane over
    to a new message (at the back of the queue) while versions are left."""
    deadline = time.monotonic() + settings.SKILLGATE_RESCAN_SLICE_S
    campaign = UUID(campaign_id)
    while time.monotonic() < deadline:
        if not rescans.rescan_batch(campaign):
            return
    _send(campaign_id)


def resume_stalled(now: datetime) -> list[str]:
    """Send new lanes for running campaigns that made no progress for a while (their messages
    were lost or dead-lettered): the pending items are still there to take."""
    resumed = []
    for campaign_id in rescans.stalled_campaigns(now, STALLED_AFTER).values_list("id", flat=True):
        dispatch_lanes(campaign_id)
        resumed.append(str(campaign_id))
    return resumed


def _send(campaign_id: object) -> None:
    current_app.signature(RESCAN.task, args=(str(campaign_id),), immutable=True).apply_async(
        retry_policy=FAST_PUBLISH_RETRY_POLICY
    )
