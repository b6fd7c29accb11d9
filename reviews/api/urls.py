from rest_framework.routers import SimpleRouter

from reviews.api.views import ReviewViewSet

router = SimpleRouter(trailing_slash=False)
router.register("reviews", ReviewViewSet, basename="review")

urlpatterns = router.urls
