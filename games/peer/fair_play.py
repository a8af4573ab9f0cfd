"""Fair play at the peer tables: one address, one seat at a table.

Two accounts from one address at one table could see each other's cards and play as one. So
a player may not sit down (or add chips) at a stud or Drawmaha table where another seated
player sat down from, or last signed in from, an address the player sits down from or last
signed in from. The refusal never names the other player. Addresses in
``FAIR_PLAY_SHARED_ADDRESSES`` (the casino's own terminals) are not compared.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from django.conf import settings
from django.db.models import Q
from django.utils.translation import gettext as _

from casino.models import ADDRESS_LENGTH, SignInAddress
from games.models import Seat, SeatStatus, Table
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
            status=409,
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


def check_address(*, player: User, table: Table, client_address: str, rule: str) -> None:
    """Refuse ``player`` a seat, or chips, at ``table`` (locked by the caller) when another
    player seated there shares an address with them (``SameAddress``)."""
    signed_in = SignInAddress.objects.filter(user=player).values_list("address", flat=True)
    mine = {a for a in (client_address[:ADDRESS_LENGTH], *signed_in) if a and not _shared(a)}
    if not mine:
        return
    others = Seat.objects.filter(table=table).exclude(status=SeatStatus.LEFT).exclude(player=player)
    if others.filter(
        Q(client_address__in=mine) | Q(player__sign_in_address__address__in=mine)
    ).exists():
        raise SameAddress(rule=rule)
