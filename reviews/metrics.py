"""Prometheus figures of reviewers' marks: per-rule precision over the last 90 days."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from reviews.feedback import rule_precision


class RulePrecisionCollector(Collector):
    def collect(self) -> Iterator[GaugeMetricFamily]:
        precision = GaugeMetricFamily(
            "skillgate_rule_precision",
            "Share of a Tier 1 rule's findings reviewers confirmed (marked in the last 90 days).",
            labels=["rule"],
        )
        marked = GaugeMetricFamily(
            "skillgate_rule_findings_marked",
            "A Tier 1 rule's findings reviewers marked in the last 90 days, by their word.",
            labels=["rule", "verdict"],
        )
        for rule in rule_precision():
            precision.add_metric([rule.rule_id], round(rule.precision, 4))
            marked.add_metric([rule.rule_id, "confirmed"], rule.confirmed)
            marked.add_metric([rule.rule_id, "false_positive"], rule.marked - rule.confirmed)
        yield precision
        yield marked
