"""Top-level URL map: the admin, the API with its schema and docs, and the site pages. Each part
brings its own routes; the games' come from the registry."""

from django.contrib import admin
from django.urls import include, path
from django.utils.translation import gettext_lazy as _
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from casino import i18n
from games import registry
from games.site import views as site_views
from games.staff import metrics

api_v1 = [
    path("", include("casino.http.urls")),
    path("", include("payouts.urls")),
    path("", include("payouts.protection.urls")),
    path("", include("games.tables.urls")),
    *(path("", include(game.api_urls)) for game in registry.GAMES),
    path("staff/", include("games.staff.audit_api")),
    path("staff/", include("games.staff.pit_api")),
    path("staff/", include("games.staff.player_api")),
    path("staff/", include("games.staff.fair_play_api")),
]

urlpatterns = [
    path("", site_views.home, name="home"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/", include(api_v1)),
    path("staff/", include("games.staff.urls")),
    path("i18n/language/", i18n.set_language, name="set-language"),
    # Prometheus's scraper; readable only from METRICS_ALLOWED_ADDRESSES or with METRICS_TOKEN.
    path("metrics", metrics.metrics, name="metrics"),
    path("i18n/js/<str:language>/", i18n.javascript_catalogue, name="javascript-catalogue"),
    path("", include("games.site.urls")),
]

admin.site.site_header = _("Casino back office")
admin.site.site_title = _("Casino back office")
admin.site.index_title = _("Pit staff and administration")
