import re
from django.test import Client
from tests.fixtures.users import logged_in
from tests.i18n.test_pages_in_russian import PAGES, VisibleText, NOT_TEXT, LATIN_WORD, NAMES, names_made


def test_dump(world):
    names = names_made(world)
    for viewer, page, status in PAGES:
        client = Client() if viewer is None else logged_in(getattr(world, viewer))
        url = page.format(joker_table=world.joker_table.pk, stud_table=world.stud_table.pk,
            drawmaha_table=world.drawmaha_table.pk, settled_round=world.settled_round.pk)
        html = client.get(url, HTTP_ACCEPT_LANGUAGE="ru").content.decode()
        p = VisibleText(); p.feed(html); p.close()
        for text in p.texts:
            ws = [w for w in LATIN_WORD.findall(NOT_TEXT.sub(" ", text)) if w not in NAMES and w not in names and w.lower() not in names]
            if ws:
                print("@@", url, "|", text.strip()[:300].replace("\n", " "))
