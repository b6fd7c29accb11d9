from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from authors import views

app_name = "authors"

_VERSION = "skills/<str:owner>/<str:name>/versions/<str:version>"

urlpatterns = [
    path(
        "login/",
        auth_views.LoginView.as_view(template_name="authors/login.html"),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(
            template_name="authors/password.html",
            success_url=reverse_lazy("authors:password-done"),
        ),
        name="password",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="authors/password_done.html"),
        name="password-done",
    ),
    path("", views.home, name="home"),
    path("submissions/", views.submissions, name="submissions"),
    path("submissions/<uuid:submission_id>/", views.submission, name="submission"),
    path("submissions/<uuid:submission_id>/appeal", views.appeal, name="appeal"),
    path("skills/", views.skills, name="skills"),
    path(f"{_VERSION}/yank", views.change_version, {"action": "yank"}, name="yank"),
    path(f"{_VERSION}/unyank", views.change_version, {"action": "unyank"}, name="unyank"),
    path("tokens/", views.token_list, name="tokens"),
    path("tokens/<int:token_id>/revoke", views.token_revoke, name="token-revoke"),
    path("tokens/legacy/revoke", views.legacy_token_revoke, name="legacy-token-revoke"),
]
