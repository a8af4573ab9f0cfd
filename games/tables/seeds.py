"""Seed pairs: the server seed is committed before any stake it shuffles for (FS-2).

A player has one current pair: a server seed, secret, whose SHA-256 (the commitment) is
published at once; a client seed the player may change at any time; and the nonce of the next
round. Every joker draw round the player opens is shuffled by the pair with its next nonce, so
the server cannot choose a seed after seeing the stake or the client seed. Rotating the pair
reveals its server seed (FS-7), which verifies every round played under it, and commits a new
one. A peer table likewise commits the server seed of its next hand before the hand's antes or
blinds; the hand mixes in the seated players' client seeds (`hand_client_seed`) and its seed
is revealed when the hand is over.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.db import service_transaction
from casino.refusals import Kind
from casino.roles import PLAYER
from games.engine import fairness
from games.engine.rules import FairShuffleRule
from games.models import Round, RoundStatus, SeedPair, SeedPairStatus, Table
from games.tables.rounds import RoundRefused

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from games.models import Seat

# Letters, digits, '.', '_' and '-': the separators of a peer hand's client seed ('=', ',')
# and of the HMAC text (':', FS-3) never occur inside one player's seed.
CLIENT_SEED = re.compile(r"[A-Za-z0-9._-]{1,64}")


def new_client_seed() -> str:
    """A client seed for a player who has not chosen one: 16 random hex characters."""
    return secrets.token_hex(8)


def checked_client_seed(client_seed: str) -> str:
    """The client seed if it is well formed, else a refusal naming the field (FS-2)."""
    if not isinstance(client_seed, str) or not CLIENT_SEED.fullmatch(client_seed):
        raise RoundRefused(
            _("A client seed is 1 to 64 letters, digits, dots, underscores or hyphens."),
            field="client_seed",
            rule=FairShuffleRule.SEEDS_COMMITTED,
        )
    return client_seed


def _new_pair(
    *, player: User | None = None, table: Table | None = None, client_seed: str = ""
) -> SeedPair:
    server_seed = fairness.new_server_seed()
    return SeedPair.objects.create(
        player=player,
        table=table,
        server_seed=server_seed,
        commitment=fairness.commitment(server_seed),
        client_seed=client_seed,
    )


# Players' pairs ----------------------------------------------------------------------------------


def current_pair(player: User) -> SeedPair:
    """The player's current pair; the first is made when first asked for (or first played)."""
    return _current(player=player)


def _current(**owner: Any) -> SeedPair:
    """The current pair of a player or a table (``owner``), made if there is none."""
    pair = SeedPair.objects.filter(status=SeedPairStatus.CURRENT, **owner).first()
    if pair is not None:
        return pair
    try:
        with transaction.atomic():
            return _new_pair(**owner, client_seed=new_client_seed() if "player" in owner else "")
    except IntegrityError:  # a concurrent request made it first
        return SeedPair.objects.get(status=SeedPairStatus.CURRENT, **owner)


def committed_pair(player: User) -> SeedPair:
    """The player's current pair, for a stake: never made here, after the server has seen the
    stake, but committed before it (when the player became one, or when they read its hash)."""
    pair = SeedPair.objects.filter(status=SeedPairStatus.CURRENT, player=player).first()
    if pair is None:
        raise RoundRefused(
            _("Your seed pair is committed before your first stake: read its hash first."),
            field="seed_pair",
            rule=FairShuffleRule.SEEDS_COMMITTED,
            kind=Kind.CONFLICT,
        )
    return pair


def commit_new_players_pair(sender: Any, instance: Any, action: str, **changes: Any) -> None:
    """Receiver of a change to who is in which role group: whoever becomes a player has a
    server seed committed, its hash published, before they can send a stake (FS-2)."""
    if action != "post_add":
        return
    added = changes["pk_set"]
    if changes["reverse"]:  # group.user_set.add(...): the instance is the group
        if instance.name == PLAYER:
            for user in get_user_model().objects.filter(pk__in=added):
                current_pair(user)
    elif Group.objects.filter(pk__in=added, name=PLAYER).exists():
        current_pair(instance)


def set_client_seed(player: User, client_seed: str) -> SeedPair:
    """The player's client seed from now on: rounds opened after this one use it; a round
    already dealt keeps its deck (FS-2)."""
    checked_client_seed(client_seed)
    with service_transaction():
        pair = current_pair(player)
        SeedPair.objects.filter(pk=pair.pk).update(client_seed=client_seed)
        pair.client_seed = client_seed
    return pair


@dataclass(frozen=True)
class Rotation:
    revealed: SeedPair
    current: SeedPair


def rotate(player: User) -> Rotation:
    """Reveal the current pair's server seed (FS-7) and commit a new one, with the same client
    seed and nonces from 1 again. Refused while a round of the pair is being played: its seed
    would show the cards still to come (the dealer's, the draws)."""
    with service_transaction():
        current_pair(player)
        pair = SeedPair.objects.select_for_update().get(
            player=player, status=SeedPairStatus.CURRENT
        )
        if Round.objects.filter(seed_pair=pair, status=RoundStatus.DECIDING).exists():
            raise RoundRefused(
                _(
                    "Finish your rounds before rotating the seed pair: its server seed would "
                    "show their cards."
                ),
                field="seed_pair",
                rule=FairShuffleRule.SEED_REVEALED,
                kind=Kind.CONFLICT,
            )
        pair.status = SeedPairStatus.REVEALED
        pair.revealed_at = timezone.now()
        pair.save(update_fields=["status", "revealed_at"])
        new = _new_pair(player=player, client_seed=pair.client_seed)
    return Rotation(revealed=pair, current=new)


# Peer tables -------------------------------------------------------------------------------------


def table_pair(table: Table) -> SeedPair:
    """The committed server seed of the table's next hand (made if the table has none yet)."""
    return _current(table=table)


def hand_client_seed(ready: Sequence[Seat]) -> str:
    """A peer hand's client seed: each dealt player's current client seed as
    ``{seat}={client seed}``, in seat order, joined by commas (e.g. ``1=lucky,4=3f9a``)."""
    seeds = {
        pair.player_id: pair.client_seed for pair in map(current_pair, [s.player for s in ready])
    }
    return ",".join(
        f"{s.number}={seeds[s.player_id]}" for s in sorted(ready, key=lambda s: s.number)
    )


def deal_hand_seed(table: Table) -> SeedPair:
    """Take the table's committed seed for the hand being dealt (under the table's lock) and
    commit the next hand's; the hand's seed is revealed when it is over (`reveal_hand_seed`)."""
    pair = table_pair(table)
    SeedPair.objects.filter(pk=pair.pk).update(status=SeedPairStatus.IN_PLAY)
    pair.status = SeedPairStatus.IN_PLAY
    _new_pair(table=table)
    return pair


def reveal_hand_seed(round_: Round) -> None:
    """A peer hand is over (played out or voided): its seed is shown (FS-7). A joker draw
    round's pair is the player's, revealed only by a rotation: nothing changes for it."""
    if round_.player_id is not None or round_.seed_pair_id is None:
        return
    now = timezone.now()
    SeedPair.objects.filter(pk=round_.seed_pair_id, status=SeedPairStatus.IN_PLAY).update(
        status=SeedPairStatus.REVEALED, revealed_at=now
    )
    round_.seed_pair = SeedPair.objects.get(pk=round_.seed_pair_id)
