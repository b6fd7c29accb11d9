from django.urls import path
from rest_framework.routers import SimpleRouter

from registry.api import views
from registry.api.feeds import AdvisoryFeed
from registry.api.rescans import RescanCampaignViewSet

router = SimpleRouter(trailing_slash=False)
router.register("admin/rescans", RescanCampaignViewSet, basename="rescan")

_VERSION = "skills/<str:owner>/<str:name>/versions/<str:version>"

urlpatterns = [
    path("skills", views.SkillList.as_view(), name="skill-list"),
    path("search", views.SkillSearch.as_view(), name="skill-search"),
    path("skills/<str:owner>/<str:name>", views.SkillDetail.as_view(), name="skill-detail"),
    path(_VERSION, views.SkillVersionDetail.as_view(), name="skill-version"),
    path(f"{_VERSION}/archive", views.SkillVersionArchive.as_view(), name="skill-version-archive"),
    path(f"{_VERSION}/quarantine", views.QuarantineVersion.as_view(), name="version-quarantine"),
    path(f"{_VERSION}/restore", views.RestoreVersion.as_view(), name="version-restore"),
    path(f"{_VERSION}/yank", views.YankVersion.as_view(), name="version-yank"),
    path(f"{_VERSION}/unyank", views.UnyankVersion.as_view(), name="version-unyank"),
    path("advisories", views.AdvisoryList.as_view(), name="advisory-list"),
    path("advisories.atom", AdvisoryFeed(), name="advisory-feed"),
    path("advisories/<int:pk>", views.AdvisoryDetail.as_view(), name="advisory-detail"),
    *router.urls,
]
