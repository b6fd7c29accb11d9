from rest_framework.routers import SimpleRouter

from pipeline.api.views import SubmissionViewSet

router = SimpleRouter(trailing_slash="")
router.register("submissions", SubmissionViewSet, basename="submission")

urlpatterns = router.urls
