"""Top-level URL map: the admin, the API with its schema and docs, and the site pages. Each part
brings its own routes; the games' come from the registry."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from games import registry
from games.site import views as site_views

api_v1 = [
    path("", include("casino.http.urls")),
    path("", include("payouts.urls")),
    path("", include("games.tables.urls")),
    *(path("", include(game.api_urls)) for game in registry.GAMES),
    path("staff/", include("games.staff.pit_api")),
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
