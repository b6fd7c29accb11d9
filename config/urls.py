from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config.health import healthz, readyz
from config.views import ApiRoot, home
from pipeline.prometheus import metrics_view
from registry.api.views import signing_keys

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
    # The split view serves Swagger UI's init script as a file: no inline script (CSP).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="docs"),
    path("account/", include("authors.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path(".well-known/skillgate/keys.json", signing_keys, name="signing-keys"),
]

handler404 = "config.api_errors.not_found"
handler500 = "config.api_errors.server_error"
