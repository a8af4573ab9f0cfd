"""Fair play at the peer tables: one address, one seat at a table.

Two accounts from one address at one table could see each other's cards and play as one. So
a player may not sit down (or add chips) at a stud or Drawmaha table where another seated
player sat down from, or last signed in from, an address the player sits down from or last
signed in from; nor take a decision in a hand dealt to such a player. Before each deal, of two
seated players who came to share an address (one signed in from the other's while seated),
the one who came last is sat out, dealt no cards, and an alert is raised for the auditors.
The refusal never names the other player. Addresses in ``FAIR_PLAY_SHARED_ADDRESSES`` (the
casino's own terminals) are not compared.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.models import ADDRESS_LENGTH, SignInAddress
from casino.refusals import Kind
from games.models import AlertKind, CollusionAlert, Seat, SeatStatus, Table
from games.tables.rounds import RoundRefused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

SAME_ADDRESS = "same_address"


class SameAddress(RoundRefused):
    """Another seated player shares an address with the player: 409, code ``same_address``."""

    def __init__(self, *, rule: str) -> None:
        super().__init__(
            _(
                "Another player at this table plays from your address; two accounts from one "
                "address may not sit at the same table."
            ),
            field="table",
            rule=rule,
            kind=Kind.CONFLICT,
        )
        self.code = SAME_ADDRESS


def _shared(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(
        ip in ipaddress.ip_network(network, strict=False)
        for network in settings.FAIR_PLAY_SHARED_ADDRESSES
    )


def _compared(*addresses: str) -> set[str]:
    return {address for address in addresses if address and not _shared(address)}


def check_address(
    *,
    player: User,
    table: Table,
    client_address: str,
    rule: str,
    among: Collection[int] | None = None,
) -> None:
    """Refuse ``player`` a seat, chips or a decision at ``table`` (locked by the caller) when
    another player seated there (of the seats ``among``, when given: those dealt into the hand)
    shares an address with them (``SameAddress``)."""
    signed_in = SignInAddress.objects.filter(user=player).values_list("address", flat=True)
    mine = _compared(client_address[:ADDRESS_LENGTH], *signed_in)
    if not mine:
        return
    others = Seat.objects.filter(table=table).exclude(status=SeatStatus.LEFT).exclude(player=player)
    if among is not None:
        others = others.filter(pk__in=among)
    if others.filter(
        Q(client_address__in=mine) | Q(player__sign_in_address__address__in=mine)
    ).exists():
        raise SameAddress(rule=rule)


def newcomers(ready: Sequence[Seat]) -> list[tuple[Seat, Seat]]:
    """Of the seats about to be dealt, those sharing an address (the one sat down from, or last
    signed in from) with one that came before them: each with that partner. A seat came when it
    was taken or when its player last signed in, whichever is later, so a player who signs in
    from a seated partner's address is the newcomer."""
    signed_in = {
        sign_in.user_id: sign_in
        for sign_in in SignInAddress.objects.filter(user_id__in=[s.player_id for s in ready])
    }

    def came(seat: Seat) -> datetime:
        sign_in = signed_in.get(seat.player_id)
        return max(seat.joined_at, sign_in.signed_in_at) if sign_in else seat.joined_at

    first_at: dict[str, Seat] = {}
    found = []
    for seat in sorted(ready, key=came):
        sign_in = signed_in.get(seat.player_id)
        addresses = _compared(seat.client_address, sign_in.address if sign_in else "")
        partner = next((first_at[a] for a in sorted(addresses) if a in first_at), None)
        if partner is None:
            first_at.update(dict.fromkeys(addresses, seat))
        else:
            found.append((seat, partner))
    return found


def raise_alert(table: Table, newcomer: Seat, partner: Seat) -> None:
    """An alert for the auditors that ``newcomer`` and ``partner`` shared an address at
    ``table``; one while an alert of that pair at that table waits for review."""
    first, second = sorted((newcomer.player_id, partner.player_id))
    now = timezone.now()
    CollusionAlert.objects.get_or_create(
        kind=AlertKind.SHARED_ADDRESS,
        table=table,
        first_player_id=first,
        second_player_id=second,
        reviewed_at=None,
        defaults={
            "period_start": min(newcomer.joined_at, partner.joined_at),
            "period_end": now,
            "currency": table.currency,
            "hands": 0,
            "chip_flow_score": 0,
            "soft_play_score": 0,
            "strong_folds_score": 0,
            "net_chips": 0,
        },
    )
