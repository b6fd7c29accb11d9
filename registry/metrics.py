"""Prometheus figures of running re-scan campaigns, read from their counters at scrape time."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from registry import rescans
from registry.models import RescanCampaign


class RescanCollector(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily]:
        versions = GaugeMetricFamily(
            "skillgate_rescan_versions",
            "Versions of each running re-scan campaign, by progress.",
            labels=["campaign", "progress"],
        )
        eta = GaugeMetricFamily(
            "skillgate_rescan_eta_seconds",
            "Estimated seconds left of each running re-scan campaign.",
            labels=["campaign"],
        )
        for campaign in RescanCampaign.objects.filter(status=RescanCampaign.Status.RUNNING):
            name = str(campaign.pk)
            figures = rescans.progress(campaign)
            for progress, value in (
                ("total", figures.total),
                ("done", figures.done),
                ("changed", figures.changed),
                ("failed", figures.failed),
            ):
                versions.add_metric([name, progress], value)
            if figures.eta is not None:
                eta.add_metric([name], figures.eta.total_seconds())
        yield versions
        yield eta
