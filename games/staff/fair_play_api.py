"""The fair-play report over the JSON API, ``GET /api/v1/staff/fair-play/?from=&to=``: the
page's report (the same form reads the query string), with the open alerts. Auditors and pit
staff read; players are refused (403)."""

from __future__ import annotations

from django.conf import settings
from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ErrorDetail, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.reports_database import reports_source, said
from games.staff.audit_api import _needs
from games.staff.audit_serializers import FairPlayReportSerializer
from games.staff.fair_play import FairPlayForm, open_alerts, pair_json, report

READ_FAIR_PLAY = _needs("games.view_collusionalert", "games.view_round", "games.view_roundevent")


def _checked(form: FairPlayForm) -> FairPlayForm:
    """The form, or the refusal naming each field with its stable code (400)."""
    if not form.is_valid():
        raise ValidationError(
            {
                field: [ErrorDetail(error["message"], code=error["code"]) for error in errors]
                for field, errors in form.errors.get_json_data().items()
            }
        )
    return form


class FairPlayReport(APIView):
    """Every pair of players who shared peer hands in the period, the most suspicious first:
    each signal's score, the player it is about, the rates compared and, for a flagged pair,
    the hands behind it with their replay and PHH links; and the alerts not yet reviewed."""

    permission_classes = READ_FAIR_PLAY

    @extend_schema(
        parameters=[OpenApiParameter("from", str), OpenApiParameter("to", str)],
        responses=FairPlayReportSerializer,
    )
    def get(self, request: Request) -> Response:
        form = _checked(FairPlayForm(request.query_params))
        first, last = form.days()
        source = reports_source()
        response = Response(
            {
                "from": first,
                "to": last,
                "threshold": settings.COLLUSION_ALERT_SCORE,
                "pairs": [pair_json(pair) for pair in report(form, using=source.alias)],
                "open_alerts": [
                    {
                        "id": alert.pk,
                        "raised_at": alert.raised_at,
                        "kind": alert.kind,
                        "table": alert.table_id,
                        "from": alert.period_start,
                        "to": alert.period_end,
                        "currency": alert.currency,
                        "players": [alert.first_player.username, alert.second_player.username],
                        "hands": alert.hands,
                        "chip_flow": str(alert.chip_flow_score),
                        "soft_play": str(alert.soft_play_score),
                        "strong_folds": str(alert.strong_folds_score),
                        "net_chips": str(alert.net_chips),
                    }
                    for alert in open_alerts()
                ],
            }
        )
        return said(response, source)


urlpatterns = [path("fair-play/", FairPlayReport.as_view(), name="audit-fair-play")]
