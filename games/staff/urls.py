"""The staff screens, under /staff/."""

from django.urls import path

from games.staff import (
    audit_views,
    best_play_views,
    fair_play_views,
    pit_views,
    player_views,
    views,
)

app_name = "staff"

urlpatterns = [
    path("", views.live, name="live"),
    path("live/tables/", views.live_fragment, name="live-fragment"),
    path("tables/<int:pk>/status/", views.table_status, name="table-status"),
    path("rounds/<int:pk>/", views.round_detail, name="round"),
    path("rounds/<int:pk>/void/", views.void, name="void-round"),
    path("rounds/<int:pk>/corrections/", views.propose_correction, name="propose-correction"),
    path("corrections/<int:pk>/approve/", views.approve_correction, name="approve-correction"),
    path("corrections/<int:pk>/reject/", views.reject_correction, name="reject-correction"),
    path("limits/", views.limits, name="limits"),
    path("limits/tables/<int:pk>/propose/", views.propose_limits, name="propose-limits"),
    path("limits/<int:pk>/approve/", views.approve_limits, name="approve-limits"),
    path("limits/<int:pk>/reject/", views.reject_limits, name="reject-limits"),
    path("paytables/", views.paytables, name="paytables"),
    path("paytables/<int:pk>/propose/", views.propose_paytable, name="propose-paytable"),
    path("paytables/versions/<int:pk>/approve/", views.approve_paytable, name="approve-paytable"),
    path("paytables/versions/<int:pk>/reject/", views.reject_paytable, name="reject-paytable"),
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

# The audit room (games.staff.audit_views).
urlpatterns += [
    path("payouts/rounds/", audit_views.rounds_review, name="rounds-review"),
    path("payouts/rounds.csv", audit_views.rounds_review_csv, name="rounds-review-csv"),
    path("gaming-day/", audit_views.gaming_day_report, name="gaming-day"),
    path("gaming-day.csv", audit_views.gaming_day_csv, name="gaming-day-csv"),
    path("gaming-day/chart.png", audit_views.gaming_day_chart, name="gaming-day-chart"),
    path("ledger/accounts/", audit_views.ledger_accounts, name="ledger-accounts"),
    path("ledger/accounts.csv", audit_views.ledger_accounts_csv, name="ledger-accounts-csv"),
    path(
        "ledger/trial-balance.csv",
        audit_views.trial_balance_csv,
        name="ledger-trial-balance-csv",
    ),
    path("ledger/accounts/<int:pk>/", audit_views.ledger_account, name="ledger-account"),
    path("ledger/accounts/<int:pk>.csv", audit_views.ledger_account_csv, name="ledger-account-csv"),
    path(
        "ledger/transactions/<int:pk>/",
        audit_views.ledger_transaction,
        name="ledger-transaction",
    ),
    path(
        "ledger/transactions/<int:pk>.csv",
        audit_views.ledger_transaction_csv,
        name="ledger-transaction-csv",
    ),
    path("rtp/observe/", audit_views.observe_rtp_now, name="rtp-observe"),
    path(
        "rtp/observe/<uuid:task_id>/",
        audit_views.observation_progress,
        name="rtp-observe-progress",
    ),
]

# The players' pages (games.staff.player_views): read only.
urlpatterns += [
    path("players/", player_views.player_list, name="players"),
    path("players/<int:pk>/", player_views.player_page, name="player"),
    path(
        "players/<int:pk>/statement.csv",
        player_views.player_statement_csv,
        name="player-statement-csv",
    ),
]

# Fair play at the peer tables (games.staff.fair_play_views).
urlpatterns += [
    path("fair-play/", fair_play_views.fair_play, name="fair-play"),
    path("fair-play.csv", fair_play_views.fair_play_csv, name="fair-play-csv"),
    path("fair-play/run/", fair_play_views.run_now, name="fair-play-run"),
    path("fair-play/alerts/<int:pk>/review/", fair_play_views.review, name="review-alert"),
]

# Players against best play at the joker draw (games.staff.best_play_views): read only.
urlpatterns += [path("best-play/", best_play_views.best_play, name="best-play")]
