from django.urls import path
from rest_framework.routers import SimpleRouter

from reviews.api.views import AppealViewSet, CannedReasonViewSet, FileAppealView, ReviewViewSet

router = SimpleRouter(trailing_slash=False)
router.register("reviews", ReviewViewSet, basename="review")
router.register("appeals", AppealViewSet, basename="appeal")
router.register("canned-reasons", CannedReasonViewSet, basename="canned-reason")

urlpatterns = [
    path("submissions/<uuid:submission_id>/appeal", FileAppealView.as_view(), name="appeal-file"),
    *router.urls,
]
