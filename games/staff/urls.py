"""The staff screens, under /staff/."""

from django.urls import path

from games.staff import pit_views, views

app_name = "staff"

urlpatterns = [
    path("", views.live, name="live"),
    path("live/tables/", views.live_fragment, name="live-fragment"),
    path("tables/<int:pk>/status/", views.table_status, name="table-status"),
    path("rounds/<int:pk>/", views.round_detail, name="round"),
    path("rounds/<int:pk>/void/", views.void, name="void-round"),
    path("rounds/<int:pk>/corrections/", views.propose_correction, name="propose-correction"),
    path("corrections/<int:pk>/approve/", views.approve_correction, name="approve-correction"),
    path("limits/", views.limits, name="limits"),
    path("limits/tables/<int:pk>/propose/", views.propose_limits, name="propose-limits"),
    path("limits/<int:pk>/approve/", views.approve_limits, name="approve-limits"),
    path("paytables/", views.paytables, name="paytables"),
    path("paytables/<int:pk>/propose/", views.propose_paytable, name="propose-paytable"),
    path("paytables/versions/<int:pk>/approve/", views.approve_paytable, name="approve-paytable"),
    path("payouts/", views.payouts, name="payouts"),
    path("payouts.csv", views.payouts_csv, name="payouts-csv"),
    path("ledger/", views.ledger, name="ledger"),
    path("rtp/", views.rtp, name="rtp"),
    path("rtp/chart.png", views.rtp_chart, name="rtp-chart"),
    path("tables/new/", pit_views.create_table, name="create-table"),
    path("tables/<int:pk>/", pit_views.table_page, name="table"),
    path("paytables/versions/<int:pk>/", pit_views.paytable_version, name="paytable-version"),
    path("paytables/versions/<int:pk>/rtp/", pit_views.compute_rtp, name="compute-rtp"),
    path("paytables/<int:pk>/history/", pit_views.paytable_history_page, name="paytable-history"),
    path("rtp/runs/<int:pk>/progress/", pit_views.rtp_run_progress, name="rtp-progress"),
]
