"""The players' pages, under /play/, and sign-in and sign-out under /accounts/."""

from django.contrib.auth import views as auth_views
from django.urls import path

from casino.frame import SignIn
from games.site import breaks, views

app_name = "play"

urlpatterns = [
    path("accounts/login/", SignIn.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("play/", views.lobby, name="lobby"),
    path("play/wallet/", views.wallet, name="wallet"),
    path("play/statement/", views.statement, name="statement"),
    path("play/limits/", views.limits, name="limits"),
    path("play/devices/", views.devices, name="devices"),
    path("play/recall/", views.recall, name="recall"),
    path("play/recall/joker-draw/<int:pk>/", views.recall_round, name="recall-round"),
    path("play/recall/<slug:game>/<int:pk>/", views.recall_hand, name="recall-hand"),
    path("play/rules/<slug:game>/", views.rules, name="rules"),
    path("play/breaks/", breaks.breaks, name="breaks"),
    path("play/recall/<slug:game>/<int:pk>/summary/", views.hand_summary, name="hand-summary"),
    path("play/joker-draw/<int:pk>/", views.joker_draw_table, name="joker-draw"),
    path("play/<slug:game>/<int:pk>/", views.peer_table, name="peer-table"),
    path("play/tables/<int:pk>/events/", views.table_events, name="table-events"),
]
