from django.urls import path

from accounts.api import views

urlpatterns = [
    path("account", views.Account.as_view(), name="account"),
    path("tokens", views.TokenList.as_view(), name="token-list"),
    path("tokens/legacy", views.LegacyToken.as_view(), name="token-legacy"),
    path("tokens/<int:token_id>", views.TokenDetail.as_view(), name="token-detail"),
]
