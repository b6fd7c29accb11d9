from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.health import healthz, readyz
from config.views import ApiRoot, home
from pipeline.prometheus import metrics_view

api_v1: list[URLPattern | URLResolver] = [
    path("", ApiRoot.as_view(), name="api-root"),
    path("", include("pipeline.api.urls")),
    path("", include("registry.api.urls")),
    path("", include("reviews.api.urls")),
    path("", include("accounts.api.urls")),
]

urlpatterns = [
    path("", home, name="home"),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("account/", include("authors.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
]

handler404 = "config.api_errors.not_found"
handler500 = "config.api_errors.server_error"
