"""Prometheus ``/metrics``: the operator figures, read from the database and the broker (once)
at scrape time, so every web process reports the same numbers (no per-process counters). The
counts come from the figures the database keeps (pipeline.rollups), computed by
pipeline.monitoring as for the metrics API."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.db.models import Count, Sum
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from pipeline import monitoring, rollups, selectors
from pipeline.fleet import CONSUMED_QUEUES, fleet_status
from pipeline.models import DeadLetter, TimeoutBucket
from registry.metrics import RescanCollector
from reviews.metrics import RulePrecisionCollector


class PipelineCollector(Collector):
    def collect(self):
        now = timezone.now()
        status = monitoring.queue_counts(now)
        metrics = monitoring.queue_metrics(now)

        by_state = GaugeMetricFamily(
            "skillgate_submissions", "Submissions by current state.", labels=["state"]
        )
        for state, n in status["submissions_by_state"].items():
            by_state.add_metric([state], n)
        yield by_state

        transitions = CounterMetricFamily(
            "skillgate_transitions",
            "State transitions recorded, by target state.",
            labels=["to_state"],
        )
        for to_state, n in rollups.transitions_total().items():
            transitions.add_metric([to_state], n)
        yield transitions

        yield GaugeMetricFamily(
            "skillgate_stale_submissions",
            "Automated submissions without progress for 3+ minutes (authors see a warning).",
            value=status["stale_count"],
        )
        yield GaugeMetricFamily(
            "skillgate_stuck_submissions",
            "Automated submissions without progress for SKILLGATE_STUCK_AFTER_S (5 minutes by "
            "default): the recovery sweep re-dispatches them.",
            value=status["stuck_count"],
        )
        yield GaugeMetricFamily(
            "skillgate_inflight_attempts",
            "Pipeline steps running now.",
            value=status["in_flight"],
        )
        depth = GaugeMetricFamily(
            "skillgate_queue_depth", "Messages ready per broker queue.", labels=["queue"]
        )
        for queue, n in metrics["queue_depth"].items():
            if n is not None:
                depth.add_metric([queue], n)
        yield depth
        yield GaugeMetricFamily(
            "skillgate_broker_up",
            "1 when the broker answered this scrape, 0 when it was unreachable.",
            value=1 if metrics["broker"] == "ok" else 0,
        )

        letters = CounterMetricFamily(
            "skillgate_dead_letters", "Dead letters recorded, by reason.", labels=["reason"]
        )
        for row in DeadLetter.objects.values("reason").annotate(n=Count("id")):
            letters.add_metric([row["reason"]], row["n"])
        yield letters
        open_letters = GaugeMetricFamily(
            "skillgate_dead_letters_open",
            "Dead letters waiting for an operator (not replayed, dismissed or resolved).",
            labels=["reason"],
        )
        open_by_reason = monitoring.open_dead_letters_by_reason()
        for reason in DeadLetter.Reason.values:
            open_letters.add_metric([reason], open_by_reason.get(reason, 0))
        yield open_letters
        dlq = metrics["dead_letter_queue"]
        if dlq["difference"] is not None:
            yield GaugeMetricFamily(
                "skillgate_dead_letter_queue_difference",
                "Messages in submission-dlq minus open dead letters: 0 once reconciled; "
                "anything else for long means the reconciliation sweep is failing.",
                value=dlq["difference"],
            )

        timeouts = CounterMetricFamily(
            "skillgate_timeouts",
            "Failed step attempts by classification (timeouts, provider errors, ...), all time.",
            labels=["classification"],
        )
        for bucket in TimeoutBucket.objects.values("classification").annotate(n=Sum("count")):
            timeouts.add_metric([bucket["classification"]], bucket["n"])
        yield timeouts

        durations = GaugeMetricFamily(
            "skillgate_stage_duration_ms",
            "Stage duration percentiles over the last 24 h.",
            labels=["stage", "quantile"],
        )
        targets = GaugeMetricFamily(
            "skillgate_stage_target_ms",
            "Published stage targets: Tier 1 500 ms, Tier 2 15 s, publishing 5 s, end to end "
            "30 s (median; p95 twice that).",
            labels=["stage", "quantile"],
        )
        for stage, figures in metrics["stage_durations"].items():
            for quantile, key in (("0.5", "p50_ms"), ("0.95", "p95_ms")):
                if figures[key] is not None:
                    durations.add_metric([stage, quantile], figures[key])
            targets.add_metric([stage, "0.5"], figures["target_ms"])
            targets.add_metric([stage, "0.95"], figures["target_p95_ms"])
        yield durations
        yield targets

        rates = GaugeMetricFamily(
            "skillgate_decision_rate",
            "Share of automatic decisions over the last 24 h.",
            labels=["decision"],
        )
        for decision in ("auto_approve", "review", "reject"):
            value = metrics["totals"][f"{decision}_rate"]
            if value is not None:
                rates.add_metric([decision], value)
        yield rates
        reviews = GaugeMetricFamily(
            "skillgate_reviews", "Submissions waiting for people.", labels=["status"]
        )
        reviews.add_metric(["open"], metrics["reviews"]["open"])
        reviews.add_metric(["overdue"], metrics["reviews"]["overdue"])
        yield reviews
        if metrics["job_failure_rate"] is not None:
            yield GaugeMetricFamily(
                "skillgate_job_failure_rate",
                "Share of step messages dead-lettered, 24 h.",
                value=metrics["job_failure_rate"],
            )


class FleetCollector(Collector):
    """Worker liveness per queue (Celery's inspection) and the broker's consumers per queue,
    from ``pipeline.fleet`` (one inspection shared by scrapes within its time to live)."""

    def collect(self):
        fleet = fleet_status()
        consumers = GaugeMetricFamily(
            "skillgate_queue_consumers",
            "Consumers the broker counts on each queue (absent when it is unreachable).",
            labels=["queue"],
        )
        workers = GaugeMetricFamily(
            "skillgate_workers_up",
            "Workers that answered Celery's inspection and consume the queue; 0 means its "
            "messages wait (absent when the workers could not be asked).",
            labels=["queue"],
        )
        for queue in fleet.queues:
            if queue.consumers is not None:
                consumers.add_metric([queue.name], queue.consumers)
            if queue.workers is not None and queue.name in CONSUMED_QUEUES:
                workers.add_metric([queue.name], queue.workers)
        yield consumers
        yield workers


class SlaCollector(Collector):
    """Submissions that missed their pipeline deadline (the reviews' SLA is
    ``skillgate_reviews{status="overdue"}``)."""

    def collect(self):
        yield CounterMetricFamily(
            "skillgate_sla_timeouts",
            "Submissions rejected for missing their pipeline deadline (SLA_TIMEOUT), all time.",
            value=selectors.sla_timeouts(),
        )


_REGISTRY = CollectorRegistry(auto_describe=False)
_REGISTRY.register(PipelineCollector())
_REGISTRY.register(FleetCollector())
_REGISTRY.register(SlaCollector())
_REGISTRY.register(RescanCollector())
_REGISTRY.register(RulePrecisionCollector())


def metrics_view(request: HttpRequest) -> HttpResponse:
    token = settings.SKILLGATE_METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given, token):
            return HttpResponse("a bearer token is required\n", status=401)
    return HttpResponse(generate_latest(_REGISTRY), content_type=CONTENT_TYPE_LATEST)
