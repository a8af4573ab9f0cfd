"""The ledger's endpoints, under /api/v1/: wallets, accounts and the cage."""

from django.urls import path

from payouts import api

urlpatterns = [
    path("wallets/", api.WalletList.as_view(), name="wallets"),
    path(
        "wallets/<str:currency>/transactions/",
        api.WalletTransactionList.as_view(),
        name="wallet-transactions",
    ),
    path("accounts/", api.AccountList.as_view(), name="accounts"),
    path("cage/deposits/", api.CageMovement.as_view(direction="deposit"), name="cage-deposit"),
    path(
        "cage/withdrawals/",
        api.CageMovement.as_view(direction="withdraw"),
        name="cage-withdrawal",
    ),
]
