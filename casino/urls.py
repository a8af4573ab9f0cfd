"""Top-level URL map: the admin, the API with its schema and docs, and the site pages."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from casino.http.tokens import TokenLogin, TokenLogout
from games.drawmaha import api as drawmaha_api
from games.joker_draw import api as round_api
from games.site import views as site_views
from games.stud import api as stud_api
from games.tables import api as games_api
from games.tables import seed_api
from payouts import api as payouts_api

api_v1 = [
    path("auth/token/", TokenLogin.as_view(), name="token"),
    path("auth/logout/", TokenLogout.as_view(), name="token-logout"),
    path("wallets/", payouts_api.WalletList.as_view(), name="wallets"),
    path(
        "wallets/<str:currency>/transactions/",
        payouts_api.WalletTransactionList.as_view(),
        name="wallet-transactions",
    ),
    path("accounts/", payouts_api.AccountList.as_view(), name="accounts"),
    path(
        "cage/deposits/", payouts_api.CageMovement.as_view(direction="deposit"), name="cage-deposit"
    ),
    path(
        "cage/withdrawals/",
        payouts_api.CageMovement.as_view(direction="withdraw"),
        name="cage-withdrawal",
    ),
    path("tables/", games_api.TableList.as_view(), name="tables"),
    path("me/seeds/", seed_api.MySeeds.as_view(), name="my-seeds"),
    path("me/seeds/rotate/", seed_api.RotateMySeeds.as_view(), name="my-seeds-rotate"),
    path("joker-draw/rounds/", round_api.JokerDrawRounds.as_view(), name="joker-draw-rounds"),
    path(
        "joker-draw/rounds/<int:pk>/", round_api.JokerDrawRound.as_view(), name="joker-draw-round"
    ),
    path(
        "joker-draw/rounds/<int:pk>/actions/",
        round_api.JokerDrawRoundActions.as_view(),
        name="joker-draw-round-actions",
    ),
    path("stud/tables/<int:pk>/", stud_api.StudTable.as_view(), name="stud-table"),
    path("stud/tables/<int:pk>/seats/", stud_api.StudSeats.as_view(), name="stud-seats"),
    path("stud/tables/<int:pk>/leave/", stud_api.StudLeave.as_view(), name="stud-leave"),
    path("stud/tables/<int:pk>/actions/", stud_api.StudActions.as_view(), name="stud-actions"),
    path("stud/tables/<int:pk>/rebuy/", stud_api.StudRebuy.as_view(), name="stud-rebuy"),
    path("stud/tables/<int:pk>/ante/", stud_api.StudAutoAnte.as_view(), name="stud-auto-ante"),
    path("stud/hands/", stud_api.StudHands.as_view(), name="stud-hands"),
    path("stud/hands/<int:pk>/", stud_api.StudHand.as_view(), name="stud-hand"),
    path("stud/hands/<int:pk>/phh/", stud_api.StudHandHistory.as_view(), name="stud-hand-phh"),
    path("stud/hands/<int:pk>/show/", stud_api.StudShowHand.as_view(), name="stud-hand-show"),
    path("drawmaha/tables/<int:pk>/", drawmaha_api.DrawmahaTable.as_view(), name="drawmaha-table"),
    path(
        "drawmaha/tables/<int:pk>/seats/",
        drawmaha_api.DrawmahaSeats.as_view(),
        name="drawmaha-seats",
    ),
    path(
        "drawmaha/tables/<int:pk>/leave/",
        drawmaha_api.DrawmahaLeave.as_view(),
        name="drawmaha-leave",
    ),
    path(
        "drawmaha/tables/<int:pk>/actions/",
        drawmaha_api.DrawmahaActions.as_view(),
        name="drawmaha-actions",
    ),
    path("drawmaha/hands/", drawmaha_api.DrawmahaHands.as_view(), name="drawmaha-hands"),
    path("drawmaha/hands/<int:pk>/", drawmaha_api.DrawmahaHand.as_view(), name="drawmaha-hand"),
    path(
        "drawmaha/hands/<int:pk>/phh/",
        drawmaha_api.DrawmahaHandHistory.as_view(),
        name="drawmaha-hand-phh",
    ),
]

urlpatterns = [
    path("", site_views.home, name="home"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/", include(api_v1)),
    path("staff/", include("games.staff.urls")),
    path("", include("games.site.urls")),
]

admin.site.site_header = "Casino back office"
admin.site.site_title = "Casino back office"
admin.site.index_title = "Pit staff and administration"
