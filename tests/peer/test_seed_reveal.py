"""When a peer hand's server seed is shown, and to whom (FS-7b). The seed recomputes every card
of the hand, the folded hands ST-10 keeps hidden too, so a player still at the table must not
read it: not in the API, the recall page, the hand history download (PHH), the staff's round
page or the admin. Auditors read it as soon as the hand is over; each player dealt in reads it
once they have left the table; nobody else ever does, the pit included."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.test import Client

from casino.roles import PLAYER
from games.drawmaha.hand import Hand
from games.drawmaha.tasks import DRAWMAHA as drawmaha
from games.models import Round, RoundStatus, Seat, SeatStatus, Table
from games.peer.selectors import shown_server_seed
from payouts.services import deposit
from tests.fixtures.users import api_client, make_user


@pytest.fixture
def finished_hand(player, other_player, pit, drawmaha_table, settings) -> Round:
    """A Drawmaha hand of alice and bob, over (one folded), with both still seated; the next
    hand waits an hour, so that leaving cashes out at once."""
    for user in (player, other_player):
        deposit(player=user, currency="USD", amount=Decimal("500.00"), reason="cage", by=pit)
    drawmaha.join(player=player, table=drawmaha_table, seat=1, buy_in=Decimal("100.00"))
    drawmaha.join(player=other_player, table=drawmaha_table, seat=2, buy_in=Decimal("100.00"))
    settings.DRAWMAHA_HAND_PAUSE_SECONDS = 3600
    hand = Round.objects.get(table=drawmaha_table, status=RoundStatus.DECIDING)
    dealt = Hand.from_json(hand.engine_state)
    to_act = dealt.state.to_act
    assert to_act is not None
    first = User.objects.get(pk=dealt.players[to_act])
    drawmaha.act(player=first, table=drawmaha_table, action="fold")
    hand.refresh_from_db()
    assert hand.status == RoundStatus.SETTLED
    assert hand.revealed_server_seed() is not None  # over: no card of it is still to come
    return hand


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def everywhere(user: User, hand: Round) -> dict[str, str]:
    """Every surface the user may read the hand on, as text."""
    surfaces = {
        "api": api_client(user).get(f"/api/v1/drawmaha/hands/{hand.pk}/"),
        "phh": api_client(user).get(f"/api/v1/drawmaha/hands/{hand.pk}/phh/"),
        "recall": signed_in(user).get(f"/play/recall/drawmaha/{hand.pk}/"),
        "summary": signed_in(user).get(f"/play/recall/drawmaha/{hand.pk}/summary/"),
        "hands": api_client(user).get(f"/api/v1/drawmaha/hands/?table={hand.table_id}"),
        "table": api_client(user).get(f"/api/v1/drawmaha/tables/{hand.table_id}/"),
    }
    if user.is_staff:
        surfaces["staff"] = signed_in(user).get(f"/staff/rounds/{hand.pk}/")
        surfaces["admin"] = signed_in(user).get(f"/admin/games/round/{hand.pk}/change/")
    return {name: response.getvalue().decode() for name, response in surfaces.items()}


def showing(user: User, hand: Round) -> list[str]:
    """The surfaces that show the user the hand's seed."""
    seed = hand.secret_server_seed()
    return [name for name, text in everywhere(user, hand).items() if seed in text]


def leave(user: User, table: Table) -> None:
    drawmaha.leave(player=user, table=table)
    assert Seat.objects.get(table=table, player=user).status == SeatStatus.LEFT


def test_a_seated_player_reads_no_seed_of_a_hand_played_and_the_leaver_reads_it(
    finished_hand, player, other_player
):
    seed = finished_hand.secret_server_seed()
    for user in (player, other_player):
        seen = everywhere(user, finished_hand)
        assert [name for name, text in seen.items() if seed in text] == []
        assert 'id="verify"' not in seen["recall"]
        assert 'data-testid="verify-later"' in seen["recall"]
        assert (
            api_client(user)
            .get(f"/api/v1/drawmaha/hands/{finished_hand.pk}/")
            .json()["server_seed"]
            is None
        )

    leave(player, finished_hand.table)
    seen = everywhere(player, finished_hand)
    assert seed in seen["api"]
    assert f'_server_seed = "{seed}"' in seen["phh"]
    assert seed in seen["recall"]
    assert 'id="verify"' in seen["recall"]
    # bob still sits at the table: alice leaving tells him nothing (FS-7b).
    assert [
        name for name, text in everywhere(other_player, finished_hand).items() if seed in text
    ] == []


def test_auditors_read_the_seed_at_once_and_the_pit_never(finished_hand, pit, auditor):
    seed = finished_hand.secret_server_seed()
    for staff in (pit, auditor):
        staff.is_staff = True  # the admin too
        staff.save(update_fields=["is_staff"])
    audited = everywhere(auditor, finished_hand)
    for name in ("api", "phh", "recall", "staff", "admin"):
        assert seed in audited[name], name
    assert showing(pit, finished_hand) == []
    # The house still checks the commitment against the seed for the pit.
    assert "the revealed seed matches the commitment" in everywhere(pit, finished_hand)["staff"]


def test_a_player_never_dealt_in_never_reads_the_seed(finished_hand, player, pit):
    """carol sat at the table before the hand, left, and asks for it: nothing, even once the
    hand's players have left."""
    carol = make_user("carol", PLAYER)
    deposit(player=carol, currency="USD", amount=Decimal("100.00"), reason="cage", by=pit)
    table = finished_hand.table
    Seat.objects.create(
        table=table,
        number=5,
        player=carol,
        chips=Decimal("0"),
        status=SeatStatus.LEFT,
        left_at=finished_hand.created_at,
    )
    leave(player, table)
    assert shown_server_seed(finished_hand, carol) is None
    assert showing(carol, finished_hand) == []
    assert api_client(carol).get(f"/api/v1/drawmaha/hands/{finished_hand.pk}/").status_code == 404
