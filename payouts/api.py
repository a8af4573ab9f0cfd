"""Wallet, ledger and cage endpoints. Views only translate HTTP; services and selectors work."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, permissions, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.http.idempotency import HEADER, idempotent
from casino.http.pagination import NewestFirst
from casino.http.permissions import HasModelPermission, acting_user
from payouts import selectors, services
from payouts.models import Currency
from payouts.serializers import (
    AccountSerializer,
    CageMovementSerializer,
    CageReceiptSerializer,
    WalletEntrySerializer,
    WalletSerializer,
)


class WalletList(generics.ListAPIView):
    """The requester's own wallets, one per currency."""

    serializer_class = WalletSerializer
    pagination_class = None

    def get_queryset(self):
        return selectors.wallets_of(acting_user(self.request))


class WalletTransactionList(generics.ListAPIView):
    """The requester's own wallet entries in one currency, newest first, with running balance."""

    serializer_class = WalletEntrySerializer
    pagination_class = NewestFirst

    def get_queryset(self):
        currency = self.kwargs["currency"].upper()
        if currency not in Currency.values:
            choices = ", ".join(Currency.values)
            raise NotFound(
                _("No wallet currency %(currency)r; use one of %(choices)s.")
                % {"currency": self.kwargs["currency"], "choices": choices}
            )
        return selectors.wallet_entries(acting_user(self.request), currency)


class AccountList(generics.ListAPIView):
    """Every account with its balance: for auditors and pit staff reconciling the ledger."""

    serializer_class = AccountSerializer
    permission_classes = (permissions.IsAuthenticated, HasModelPermission("payouts.view_account"))
    pagination_class = None

    def get_queryset(self):
        return selectors.all_accounts()


class CageMovement(APIView):
    """Cage deposits and withdrawals by pit staff; idempotent by the Idempotency-Key header."""

    permission_classes = (
        permissions.IsAuthenticated,
        HasModelPermission("payouts.cage_transaction"),
    )
    direction = "deposit"

    @extend_schema(
        request=CageMovementSerializer,
        responses={201: CageReceiptSerializer},
        parameters=[OpenApiParameter(HEADER, str, OpenApiParameter.HEADER, required=True)],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        serializer = CageMovementSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        move = services.deposit if self.direction == "deposit" else services.withdraw
        txn = move(
            player=data["player"],
            currency=data["currency"],
            amount=data["amount"],
            reason=data["reason"],
            by=acting_user(request),
        )
        balance = services.wallet(data["player"], data["currency"])
        balance.refresh_from_db()
        return Response(
            {
                "transaction": txn.pk,
                "player": data["player"].username,
                "currency": data["currency"],
                "amount": f"{data['amount']:.2f}",
                "balance": f"{balance.balance:.2f}",
            },
            status=status.HTTP_201_CREATED,
        )
