"""The trainer: on play-money tables only, the expected value of every option of the decision a
player's own box faces, from the best play of the round's bet paytable (JD-5..JD-7).

It answers only the player of a round in play at a FUN table, only for the box whose turn it is,
and it reckons only with cards that box has held: its five dealt cards and what it drew. Nothing
of another box, of the dealer or of the deck enters, so the advice is what a player could work
out alone; and it only advises: the decision stays the player's own request.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from casino.refusals import Kind
from games.engine import joker_draw as engine
from games.engine.cards import parse_card
from games.engine.joker_draw import JokerDrawEvent
from games.engine.rules import JokerDrawRule
from games.joker_draw import best_play
from games.joker_draw.sql import paytable_version
from games.models import Game, Round, RoundStatus
from games.tables.rounds import RoundRefused
from payouts.models import Currency

FUN_ONLY_RULE = "trainer-fun-only"  # the trainer's stable refusal code: never on real money


def advice(*, player_id: int, round_id: int, box: int) -> dict[str, Any]:
    """Every option of `box`'s decision with its expected value in original antes, best first."""
    round_ = (
        Round.objects.filter(pk=round_id, table__game=Game.JOKER_DRAW, player_id=player_id)
        .select_related("table")
        .first()
    )
    if round_ is None:  # another player's round is as good as no round at all
        raise RoundRefused(
            _("No such round."), field="round", rule=JokerDrawRule.BOX_ORDER, kind=Kind.NOT_FOUND
        )
    if round_.table.currency != Currency.FUN:
        raise RoundRefused(
            _("The trainer is for play-money tables only."),
            field="round",
            rule=FUN_ONLY_RULE,
            kind=Kind.FORBIDDEN,
        )
    if round_.status != RoundStatus.DECIDING:
        raise RoundRefused(
            _("The round is over."),
            field="round",
            rule=JokerDrawRule.DEALER_TURN,
            kind=Kind.CONFLICT,
        )
    state = engine.from_json(round_.engine_state)
    deciding = state.to_act
    if deciding is None or deciding.number != box:
        raise RoundRefused(
            _("This box is not the one deciding now."),
            field="box",
            rule=JokerDrawRule.BOX_ORDER,
            kind=Kind.CONFLICT,
        )
    solution = best_play.solution_for(paytable_version(round_.bet_paytable_version_id).odds())
    if solution is None:
        raise RoundRefused(
            _("The trainer has no best play for this paytable yet."),
            field="round",
            rule=JokerDrawRule.PAYTABLES,
            kind=Kind.CONFLICT,
        )
    if deciding.exchanges == 0:
        found = best_play.first_advice(solution, deciding.cards)
    else:
        drawn = [
            parse_card(card)
            for data in round_.events.filter(
                kind=JokerDrawEvent.EXCHANGE, data__box=box
            ).values_list("data", flat=True)
            for card in data["drawn"]
        ]
        seen = [*deciding.initial_cards, *drawn]
        found = best_play.later_advice(solution, deciding.cards, seen, deciding.exchanges)
    return {"round": round_.pk, "box": box, "exchanges": deciding.exchanges, **found}
