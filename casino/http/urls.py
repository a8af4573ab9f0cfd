"""Signing in and out of the API, under /api/v1/."""

from django.urls import path

from casino.http.tokens import TokenLogin, TokenLogout

urlpatterns = [
    path("auth/token/", TokenLogin.as_view(), name="token"),
    path("auth/logout/", TokenLogout.as_view(), name="token-logout"),
]
