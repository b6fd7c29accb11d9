from django.urls import path

from registry.api import views

urlpatterns = [
    path("skills", views.SkillList.as_view(), name="skill-list"),
    path("skills/<str:owner>/<str:name>", views.SkillDetail.as_view(), name="skill-detail"),
    path(
        "skills/<str:owner>/<str:name>/versions/<str:version>",
        views.SkillVersionDetail.as_view(),
        name="skill-version",
    ),
]
