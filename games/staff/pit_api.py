"""The pit's staff API, under /api/v1/staff/: tables (create, open, close with a reason, their
history), limits and paytable versions (propose, approve, list, diff), RTP runs (start,
progress, result) and voids, for the casino's other systems.

The same roles as the pages: pit staff work, auditors read, players are refused (403); the same
maker-checker, by the same services. Whatever changes something takes an Idempotency-Key.
Refusals name the field and the rule, with a stable code.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.http.idempotency import HEADER, idempotent
from casino.http.permissions import acting_user
from casino.refusals import Kind, Refused
from games.joker_draw import rtp_lab
from games.joker_draw.paytable_selectors import paytable_diff, rtp_progress
from games.joker_draw.paytables import approve_paytable_version, propose_paytable_version
from games.joker_draw.tasks import dispatch_rtp_run
from games.models import Round, Table, TableLimits, TableStatus
from games.staff.pit_serializers import (
    LimitsProposalSerializer,
    LimitsVersionSerializer,
    NewTableSerializer,
    PaytableDiffSerializer,
    PaytableProposalSerializer,
    PaytableVersionSerializer,
    ReasonSerializer,
    RtpRunSerializer,
    RtpRunStartSerializer,
    StaffTableSerializer,
    StatusChangeSerializer,
    limits_serializer,
)
from games.staff.table_page import next_step
from games.tables import services as table_services
from games.tables.history import HistoryEntry, table_history
from games.tables.voids import NOT_IN_PLAY, void_round
from payouts.approvals import ChangeRefused
from payouts.models import Paytable, PaytableVersion, RtpRun

IDEMPOTENCY = OpenApiParameter(HEADER, str, OpenApiParameter.HEADER, required=True)
# A refusal by a rule or of the input names its code and the messages by field; a refusal of
# access alone (403 without the permission) says only its detail.
REFUSAL = inline_serializer(
    "Refusal",
    {
        "detail": serializers.CharField(),
        "code": serializers.CharField(required=False),
        # A field's messages; a field made of parts (a table's limits) maps its parts alike.
        "errors": serializers.DictField(child=serializers.JSONField(), required=False),
    },
)


def StaffAccess(read: tuple[str, ...], write: tuple[str, ...] = ()) -> type[BasePermission]:
    """Reads need ``read`` (auditors and pit staff hold the view permissions), anything else
    ``write`` too: auditors read only, players reach nothing."""

    class _Access(BasePermission):
        message = gettext_lazy("Staff only: this needs the permissions of the pit.")

        def has_permission(self, request: Request, view: Any) -> bool:
            needed = read if request.method in SAFE_METHODS else (*read, *write)
            return bool(request.user.has_perms(needed))

    return _Access


TABLES = StaffAccess(("games.view_table", "games.view_tablelimits"), ("games.add_table",))
TABLE_STATUS = StaffAccess(("games.view_table",), ("games.open_close_table",))
LIMITS = StaffAccess(("games.view_tablelimits",), ("games.add_tablelimits",))
APPROVE_LIMITS = StaffAccess(("games.view_tablelimits",), ("games.approve_tablelimits",))
PAYTABLES = StaffAccess(
    ("payouts.view_paytableversion", "payouts.view_paytableline"),
    ("payouts.add_paytableversion",),
)
APPROVE_PAYTABLES = StaffAccess(
    ("payouts.view_paytableversion",), ("payouts.approve_paytableversion",)
)
RTP_RUNS = StaffAccess(("payouts.view_rtprun",), ("payouts.add_rtprun",))
VOIDS = StaffAccess(("games.view_round",), ("games.void_round",))


class PitRefused(Refused):
    """A service's refusal with the status and stable code of what it refuses: the service's
    own code where it names one (``players_seated``), else the code of the field refused."""

    def __init__(self, errors: dict[str, str], refused: Exception | None = None) -> None:
        super().__init__("; ".join(errors.values()))
        self.errors = errors
        if isinstance(refused, ChangeRefused) and refused.code != ChangeRefused.code:
            self.kind, self.code = refused.kind, refused.code
        else:
            self.kind, self.code = self._kind(errors)

    @staticmethod
    def _kind(errors: dict[str, str]) -> tuple[Kind, str]:
        if "approved_by" in errors:  # the maker may not be the checker
            return Kind.FORBIDDEN, "separation_of_duties"
        if "round" in errors:
            return Kind.CONFLICT, NOT_IN_PLAY
        if "status" in errors:
            return Kind.CONFLICT, "wrong_status"
        if "rtp" in errors:
            return Kind.CONFLICT, "rtp_not_in_band"
        return Kind.INVALID, "invalid"

    def messages(self) -> dict[str, list[str]]:
        return {field: [message] for field, message in self.errors.items()}


def _refused(refused: ChangeRefused | rtp_lab.RtpRefused) -> PitRefused:
    return PitRefused({field: str(m) for field, m in refused.errors.items()}, refused)


def _valid(serializer_class: type[serializers.Serializer[Any]], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


# Tables ---------------------------------------------------------------------------------------


class TableList(APIView):
    """Every table (``GET``); a new table, closed until its limits are approved (``POST``)."""

    permission_classes = (IsAuthenticated, TABLES)

    @extend_schema(responses=StaffTableSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(StaffTableSerializer(Table.objects.all(), many=True).data)

    @extend_schema(
        request=NewTableSerializer,
        responses={201: StaffTableSerializer, 400: REFUSAL, 403: REFUSAL},
        parameters=[IDEMPOTENCY],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = _valid(NewTableSerializer, request.data)
        try:
            table = table_services.create_table(**data, by=acting_user(request))
        except ChangeRefused as refused:
            raise _refused(refused) from None
        return Response(StaffTableSerializer(table).data, status=status.HTTP_201_CREATED)


class TableDetail(APIView):
    """A table and the next step of its lifecycle: ``propose_limits``, ``approve_limits``,
    ``open`` or ``running``."""

    permission_classes = (IsAuthenticated, TABLES)

    @extend_schema(
        responses=inline_serializer(
            "StaffTableWithNextStep",
            {"table": StaffTableSerializer(), "next_step": serializers.CharField()},
        )
    )
    def get(self, request: Request, pk: int) -> Response:
        table = get_object_or_404(Table, pk=pk)
        return Response({"table": StaffTableSerializer(table).data, "next_step": next_step(table)})


class TableStatusChange(APIView):
    """Open (``open/``) or close (``close/``) a table, with a reason kept in its history; a
    peer table with players seated closes only after the hand in play (``cash_out_seated``),
    else 409 ``players_seated``."""

    permission_classes = (IsAuthenticated, TABLE_STATUS)
    to_status = TableStatus.OPEN

    @extend_schema(
        request=StatusChangeSerializer,
        responses={200: StaffTableSerializer, 400: REFUSAL, 409: REFUSAL},
        parameters=[IDEMPOTENCY],
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        table = get_object_or_404(Table, pk=pk)
        change = _valid(StatusChangeSerializer, request.data)
        try:
            table = table_services.set_table_status(
                table,
                status=self.to_status,
                by=acting_user(request),
                reason=change["reason"],
                cash_out_seated=change["cash_out_seated"],
            )
        except ChangeRefused as refused:
            raise _refused(refused) from None
        return Response(StaffTableSerializer(table).data)


class HistoryEntrySerializer(serializers.Serializer[Any]):
    """One entry of a history (``games.tables.history.HistoryEntry``)."""

    at = serializers.DateTimeField()
    who = serializers.CharField()
    subject = serializers.CharField()
    action = serializers.CharField()
    reason = serializers.CharField()
    changes = serializers.ListField(
        child=inline_serializer(
            "HistoryChange",
            {
                "label": serializers.CharField(),
                "old": serializers.CharField(),
                "new": serializers.CharField(),
            },
        )
    )

    def to_representation(self, entry: HistoryEntry) -> dict[str, Any]:
        data = super().to_representation(entry)
        data["changes"] = [vars(change) for change in entry.changes]
        return data


class TableHistory(APIView):
    """The table's history, newest first: who, when, what changed (old -> new) and why, for the
    table, its limits and its voided rounds."""

    permission_classes = (IsAuthenticated, TABLES)

    @extend_schema(responses=HistoryEntrySerializer(many=True))
    def get(self, request: Request, pk: int) -> Response:
        table = get_object_or_404(Table, pk=pk)
        return Response(HistoryEntrySerializer(table_history(table), many=True).data)


# Limits ---------------------------------------------------------------------------------------


class TableLimitsList(APIView):
    """A table's limits' versions, newest first (``GET``); a proposal (``POST``), which another
    pit staff member approves."""

    permission_classes = (IsAuthenticated, LIMITS)

    @extend_schema(responses=LimitsVersionSerializer(many=True))
    def get(self, request: Request, pk: int) -> Response:
        table = get_object_or_404(Table, pk=pk)
        versions = table.limits_versions.select_related(
            "table", "proposed_by", "approved_by", "bet_paytable", "bonus_paytable"
        ).order_by("-number")
        return Response(LimitsVersionSerializer(versions, many=True).data)

    @extend_schema(
        request=LimitsProposalSerializer,
        responses={201: LimitsVersionSerializer, 400: REFUSAL},
        parameters=[IDEMPOTENCY],
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        table = get_object_or_404(Table, pk=pk)
        proposal = _valid(LimitsProposalSerializer, request.data)
        values = _valid(limits_serializer(table.game), proposal["limits"])
        unknown = set(proposal["limits"]) - set(values)
        if unknown:
            raise ValidationError(
                {
                    name: [_("%(name)s is no limit of this table's game.") % {"name": name}]
                    for name in sorted(unknown)
                },
                code="unknown_limit",
            )
        try:
            limits = table_services.propose_limits(
                table=table, values=values, reason=proposal["reason"], by=acting_user(request)
            )
        except ChangeRefused as refused:
            raise _refused(refused) from None
        return Response(LimitsVersionSerializer(limits).data, status=status.HTTP_201_CREATED)


class LimitsApproval(APIView):
    """Approve a draft of limits: by anyone of the pit but whoever proposed or changed it."""

    permission_classes = (IsAuthenticated, APPROVE_LIMITS)

    @extend_schema(
        request=None,
        responses={200: LimitsVersionSerializer, 403: REFUSAL, 409: REFUSAL},
        parameters=[IDEMPOTENCY],
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        draft = get_object_or_404(TableLimits, pk=pk)
        try:
            limits = table_services.approve_limits(draft, by=acting_user(request))
        except ChangeRefused as refused:
            raise _refused(refused) from None
        return Response(LimitsVersionSerializer(limits).data)


# Paytables ------------------------------------------------------------------------------------


class PaytableVersionList(APIView):
    """Paytable versions, newest first, of one paytable with ``?paytable=NAME`` (``GET``); a
    proposal (``POST``), which another pit staff member approves once its RTP is computed."""

    permission_classes = (IsAuthenticated, PAYTABLES)

    @extend_schema(
        parameters=[OpenApiParameter("paytable", str, description="The paytable's name.")],
        responses=PaytableVersionSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        versions = PaytableVersion.objects.select_related(
            "paytable", "proposed_by", "approved_by"
        ).prefetch_related("lines")
        name = request.query_params.get("paytable")
        if name is not None:
            if not Paytable.objects.filter(name=name).exists():
                raise ValidationError(
                    {"paytable": [_("No paytable is called %(name)s.") % {"name": name}]},
                    code="does_not_exist",
                )
            versions = versions.filter(paytable__name=name)
        ordered = versions.order_by("paytable__name", "-number")
        return Response(PaytableVersionSerializer(ordered, many=True).data)

    @extend_schema(
        request=PaytableProposalSerializer,
        responses={201: PaytableVersionSerializer, 400: REFUSAL},
        parameters=[IDEMPOTENCY],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = _valid(PaytableProposalSerializer, request.data)
        try:
            version = propose_paytable_version(
                paytable=data["paytable"],
                lines=data["lines"],
                reason=data["reason"],
                by=acting_user(request),
            )
        except ChangeRefused as refused:
            raise _refused(refused) from None
        return Response(PaytableVersionSerializer(version).data, status=status.HTTP_201_CREATED)


class PaytableVersionApproval(APIView):
    """Approve a draft paytable version: by a second person, once a finished RTP run of its
    current lines lies in every band that applies (JD-14)."""

    permission_classes = (IsAuthenticated, APPROVE_PAYTABLES)

    @extend_schema(
        request=None,
        responses={200: PaytableVersionSerializer, 403: REFUSAL, 409: REFUSAL},
        parameters=[IDEMPOTENCY],
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        draft = get_object_or_404(PaytableVersion, pk=pk)
        try:
            version = approve_paytable_version(draft, by=acting_user(request))
        except ChangeRefused as refused:
            raise _refused(refused) from None
        return Response(PaytableVersionSerializer(version).data)


class PaytableVersionDiff(APIView):
    """The version beside the version in force, line by line in rank order (``added``,
    ``removed``, ``changed``, ``same``), with the RTP of each where computed."""

    permission_classes = (IsAuthenticated, PAYTABLES)

    @extend_schema(responses=PaytableDiffSerializer)
    def get(self, request: Request, pk: int) -> Response:
        version = get_object_or_404(PaytableVersion.objects.select_related("paytable"), pk=pk)
        return Response(PaytableDiffSerializer(paytable_diff(version)).data)


# RTP runs -------------------------------------------------------------------------------------


class RtpRunStart(APIView):
    """Start an RTP run of the version's current lines on the workers, as long as approval
    needs; follow it at ``rtp-runs/{id}/``."""

    permission_classes = (IsAuthenticated, RTP_RUNS)

    @extend_schema(
        request=RtpRunStartSerializer,
        responses={201: RtpRunSerializer, 400: REFUSAL},
        parameters=[IDEMPOTENCY],
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        version = get_object_or_404(PaytableVersion.objects.select_related("paytable"), pk=pk)
        try:
            run = rtp_lab.start_approval_run(
                version, by=acting_user(request), dispatch=dispatch_rtp_run
            )
        except rtp_lab.RtpRefused as refused:
            raise _refused(refused) from None
        return Response(RtpRunSerializer(rtp_progress(run)).data, status=status.HTTP_201_CREATED)


class RtpRunDetail(APIView):
    """A run's progress (its chunks stored so far) and, once done, its result."""

    permission_classes = (IsAuthenticated, RTP_RUNS)

    @extend_schema(responses=RtpRunSerializer)
    def get(self, request: Request, pk: int) -> Response:
        run = get_object_or_404(RtpRun, pk=pk)
        return Response(RtpRunSerializer(rtp_progress(run)).data)


# Voids ----------------------------------------------------------------------------------------


class RoundVoid(APIView):
    """Void a round in play, of any game: every stake goes back, the reason is kept."""

    permission_classes = (IsAuthenticated, VOIDS)

    @extend_schema(
        request=ReasonSerializer,
        responses={
            200: inline_serializer(
                "VoidedRound",
                {
                    "round": serializers.IntegerField(),
                    "status": serializers.CharField(),
                    "reason": serializers.CharField(),
                },
            ),
            400: REFUSAL,
            409: REFUSAL,
        },
        parameters=[IDEMPOTENCY],
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        round_ = get_object_or_404(Round, pk=pk)
        reason = _valid(ReasonSerializer, request.data)["reason"]
        try:
            round_ = void_round(round_, by=acting_user(request), reason=reason)
        except ChangeRefused as refused:
            raise _refused(refused) from None
        return Response({"round": round_.pk, "status": round_.status, "reason": reason})


urlpatterns = [
    path("tables/", TableList.as_view(), name="staff-tables"),
    path("tables/<int:pk>/", TableDetail.as_view(), name="staff-table"),
    path("tables/<int:pk>/open/", TableStatusChange.as_view(), name="staff-table-open"),
    path(
        "tables/<int:pk>/close/",
        TableStatusChange.as_view(to_status=TableStatus.CLOSED),
        name="staff-table-close",
    ),
    path("tables/<int:pk>/history/", TableHistory.as_view(), name="staff-table-history"),
    path("tables/<int:pk>/limits/", TableLimitsList.as_view(), name="staff-table-limits"),
    path("limits/<int:pk>/approve/", LimitsApproval.as_view(), name="staff-limits-approve"),
    path("paytable-versions/", PaytableVersionList.as_view(), name="staff-paytable-versions"),
    path(
        "paytable-versions/<int:pk>/approve/",
        PaytableVersionApproval.as_view(),
        name="staff-paytable-version-approve",
    ),
    path(
        "paytable-versions/<int:pk>/diff/",
        PaytableVersionDiff.as_view(),
        name="staff-paytable-version-diff",
    ),
    path(
        "paytable-versions/<int:pk>/rtp-runs/",
        RtpRunStart.as_view(),
        name="staff-rtp-run-start",
    ),
    path("rtp-runs/<int:pk>/", RtpRunDetail.as_view(), name="staff-rtp-run"),
    path("rounds/<int:pk>/void/", RoundVoid.as_view(), name="staff-round-void"),
]
