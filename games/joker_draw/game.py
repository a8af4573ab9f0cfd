"""The joker draw as the shared code sees it (``TableGame``)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.urls import URLPattern
from django.utils.translation import gettext as _

from games.engine import joker_draw as engine
from games.joker_draw import limits, replay, rtp_lab, services, urls, voids
from games.joker_draw.limits import top_round_payout
from games.joker_draw.selectors import overdue_rounds
from games.models import Game, Round, TableLimits
from games.tables.table_game import (
    ZERO,
    CatchUp,
    ExpectedReturn,
    Staked,
    TableGame,
    VoidedStakes,
)
from payouts.models import Paytable

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from games.tables.table_game import ReplayReport


class JokerDrawTables(TableGame):
    code = Game.JOKER_DRAW
    slug = "joker-draw"
    limit_fields = limits.LIMIT_FIELDS
    default_limits = limits.DEFAULT_LIMITS
    banked = True

    def top_round_payout(self, limits: TableLimits) -> Decimal | None:
        return top_round_payout(limits)

    def expected_return(
        self, bet_version_id: int | None, bonus_version_id: int | None
    ) -> ExpectedReturn | None:
        return rtp_lab.expected_return(bet_version_id, bonus_version_id)

    def round_state(self, round_: Round) -> str:
        state = engine.from_json(round_.engine_state)
        box = state.to_act
        turn = (
            _("box %(box)s to decide") % {"box": box.number}
            if box is not None
            else _("dealer drawing")
        )
        return _("round %(round)s: %(player)s, %(boxes)s box(es), %(turn)s") % {
            "round": round_.pk,
            "player": round_.player,
            "boxes": len(state.boxes),
            "turn": turn,
        }

    def demo_limits(self) -> dict[str, Any]:
        return {
            **self.default_limits,
            "bet_paytable": Paytable.objects.get(name="joker-draw-bet-default"),
            "bonus_paytable": Paytable.objects.get(name="joker-draw-bonus-example"),
        }

    def limit_problems(self, values: Mapping[str, Any]) -> dict[str, str]:
        return limits.limit_problems(values)

    def void_stakes(self, round_: Round, *, by: User, reason: str) -> VoidedStakes:
        return voids.void_stakes(round_, by=by, reason=reason)

    def after_void(self, table_id: int) -> None:
        """A banked table has nothing to deal: the player opens the next round."""

    def replay(self, round_: Round) -> ReplayReport:
        return replay.replay_joker_draw(round_)

    def staked(self, engine_state: dict[str, Any]) -> Staked:
        boxes = engine.from_json(engine_state).boxes
        return Staked(
            stakes=sum((box.ante + (box.bet or ZERO) for box in boxes), ZERO),
            bonus=sum((box.bonus or ZERO for box in boxes), ZERO),
        )

    def overdue(self) -> list[CatchUp]:
        """Each round with a box out of time: folded on its own."""
        return [
            CatchUp(table_id, functools.partial(services.expire_decision, round_id), round_id)
            for round_id, table_id in overdue_rounds()
        ]

    @property
    def api_urls(self) -> list[URLPattern]:
        return urls.urlpatterns


GAME = JokerDrawTables()
