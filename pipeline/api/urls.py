from django.urls import path
from rest_framework.routers import SimpleRouter

from pipeline.api.operators import DeadLetterViewSet, QueueMetricsView, QueueStatusView
from pipeline.api.views import SubmissionLimits, SubmissionViewSet

router = SimpleRouter(trailing_slash=False)
router.register("submissions", SubmissionViewSet, basename="submission")
router.register("admin/dead-letters", DeadLetterViewSet, basename="dead-letter")

urlpatterns = [
    path("limits", SubmissionLimits.as_view(), name="submission-limits"),
    path("admin/queue/status", QueueStatusView.as_view(), name="queue-status"),
    path("admin/queue/metrics", QueueMetricsView.as_view(), name="queue-metrics"),
    *router.urls,
]
