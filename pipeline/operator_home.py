"""The operator's home: the admin index opens on the system's health, each figure linking to the
list behind it, so "is it healthy, what is stuck, what failed and why" is one page and a click.

Everything here is read from the sources the API and ``/metrics`` use (pipeline.monitoring,
pipeline.fleet, reviews.selectors), so the three never disagree. The charts are drawn here as
numbers (bar rectangles) and rendered as inline SVG by the template: no script runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.urls import reverse

from config.celery import DEAD_LETTER_QUEUE
from pipeline import monitoring, selectors
from pipeline.fleet import CONSUMED_QUEUES, FleetStatus, QueueHealth, fleet_status
from pipeline.models import DeadLetter, ProcessingAttempt
from pipeline.roles import VIEW_OPERATIONS
from reviews.models import Review
from reviews.roles import VIEW_PERMISSION as VIEW_REVIEWS
from reviews.selectors import OPEN, in_state, overdue_review_count

WINDOW = timedelta(hours=24)
CHART_WIDTH, CHART_HEIGHT, BAR_STEP = 96, 20, 4


@dataclass(frozen=True)
class Bar:
    x: int
    y: int
    height: int
    label: str


@dataclass(frozen=True)
class FailureClass:
    """One class of failed step attempts over the last 24 hours, hour by hour."""

    name: str
    total: int
    bars: tuple[Bar, ...]
    url: str

    @property
    def chart_label(self) -> str:
        return f"{self.name}: {self.total} in the last 24 hours, by hour"


@dataclass(frozen=True)
class QueueRow:
    queue: QueueHealth
    url: str
    consumed: bool

    @property
    def idle(self) -> bool:
        """A consumed queue that no live worker consumes: its messages wait."""
        return self.consumed and self.queue.workers == 0


@dataclass(frozen=True)
class Figure:
    label: str
    value: int
    url: str
    help: str
    alarm: bool = field(default=False)


@dataclass(frozen=True)
class HealthPanel:
    generated_at: datetime
    fleet: FleetStatus
    queues: tuple[QueueRow, ...]
    figures: tuple[Figure, ...]
    failures: tuple[FailureClass, ...]
    oldest_review: Review | None
    oldest_review_url: str
    flower_url: str
    chart_width: int = CHART_WIDTH
    chart_height: int = CHART_HEIGHT


def may_see_health(user: User | AnonymousUser) -> bool:
    return user.is_active and user.has_perm(VIEW_OPERATIONS)


def health_panel(user: User | AnonymousUser, now: datetime) -> HealthPanel:
    """The panel for an operator: workers and queues, stale/stuck/dead letters, failures by
    class (24 h), SLA breaches and the oldest waiting review, each with its list's URL."""
    fleet = fleet_status()
    counts = monitoring.queue_counts(now)
    since = now - WINDOW
    reviews_visible = user.has_perm(VIEW_REVIEWS)
    review_queue = reverse("admin:reviews_review_changelist")
    oldest = (
        in_state(Review.objects.select_related("submission"), OPEN).order_by("opened_at").first()
    )
    sla_timeouts = selectors.sla_timeouts(since)
    overdue_reviews = overdue_review_count(now)
    stale_minutes = int(selectors.STALE_AFTER.total_seconds() // 60)
    stuck_minutes = int(selectors.stuck_after().total_seconds() // 60)
    figures = (
        Figure(
            "Stale",
            counts["stale_count"],
            _list("pipeline_submission", progress="stale"),
            f"no progress for {stale_minutes}+ minutes",
            counts["stale_count"] > 0,
        ),
        Figure(
            "Stuck",
            counts["stuck_count"],
            _list("pipeline_submission", progress="stuck"),
            f"{stuck_minutes}+ minutes: the recovery sweep acts",
            counts["stuck_count"] > 0,
        ),
        Figure(
            "Dead letters open",
            counts["dead_letters_pending"],
            open_dead_letters_url(),
            "messages the pipeline gave up on",
            counts["dead_letters_pending"] > 0,
        ),
        Figure(
            "SLA timeouts (24 h)",
            sla_timeouts,
            _list("pipeline_submissionstateevent", trigger=selectors.SLA_TIMEOUT_TRIGGER),
            f"past the {settings.SKILLGATE_PIPELINE_DEADLINE_S // 60}-minute pipeline deadline",
            sla_timeouts > 0,
        ),
        Figure(
            "Overdue reviews",
            overdue_reviews,
            f"{review_queue}?overdue=yes" if reviews_visible else "",
            "open reviews past their due date",
            overdue_reviews > 0,
        ),
    )
    return HealthPanel(
        generated_at=now,
        fleet=fleet,
        queues=tuple(_queue_row(queue) for queue in fleet.queues),
        figures=figures,
        failures=failures_by_class(now),
        oldest_review=oldest,
        oldest_review_url=reverse("admin:reviews_review_change", args=[oldest.pk])
        if oldest is not None and reviews_visible
        else "",
        flower_url=settings.SKILLGATE_FLOWER_URL,
    )


def failures_by_class(now: datetime) -> tuple[FailureClass, ...]:
    """Failed step attempts per class over the last 24 hours (the current hour and the 23
    before it), most frequent first, each with 24 hourly bars."""
    first_hour = (now - WINDOW + timedelta(hours=1)).replace(minute=0, second=0, microsecond=0)
    hours = [first_hour + timedelta(hours=offset) for offset in range(24)]
    counts: dict[str, dict[datetime, int]] = {}
    for row in monitoring.timeouts_by_hour(first_hour)["hourly"]:
        counts.setdefault(row["classification"], {})[row["hour"]] = row["count"]
    classes = [
        FailureClass(
            name,
            sum(by_hour.values()),
            bars([by_hour.get(hour, 0) for hour in hours], hours),
            _list(
                "pipeline_processingattempt",
                status__exact=ProcessingAttempt.Status.FAILED,
                error_class=name,
            ),
        )
        for name, by_hour in counts.items()
    ]
    return tuple(sorted(classes, key=lambda c: (-c.total, c.name)))


def bars(values: list[int], hours: list[datetime]) -> tuple[Bar, ...]:
    """One bar per hour, scaled to the busiest hour; an hour with any failure shows at least
    one pixel, an hour without none."""
    peak = max(values, default=0) or 1
    drawn = []
    for index, (value, hour) in enumerate(zip(values, hours, strict=True)):
        height = 0 if not value else max(1, round(value / peak * (CHART_HEIGHT - 2)))
        drawn.append(
            Bar(index * BAR_STEP, CHART_HEIGHT - height, height, f"{hour:%H}:00 UTC: {value}")
        )
    return tuple(drawn)


def open_dead_letters_url() -> str:
    return _list("pipeline_deadletter", status__exact=DeadLetter.Status.OPEN)


def _queue_row(queue: QueueHealth) -> QueueRow:
    consumed = queue.name in CONSUMED_QUEUES
    url = open_dead_letters_url() if queue.name == DEAD_LETTER_QUEUE.name else ""
    return QueueRow(queue, url, consumed)


def _list(model: str, **filters: str) -> str:
    """The admin changelist of ``app_model``, filtered."""
    url = reverse(f"admin:{model}_changelist")
    return f"{url}?{urlencode(filters)}" if filters else url
