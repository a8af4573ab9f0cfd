"""No template shows a word that is not marked for translation: every template is read with
Django's own template Lexer, its text outside translate tags is parsed as HTML, and any word
left in a text node or a visible attribute fails the test."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.template.base import Lexer, TokenType

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
# What a person reads besides the text of an element.
VISIBLE_ATTRIBUTES = {"alt", "title", "placeholder", "aria-label", "label"}
WORD = re.compile(r"[^\W\d_]+")
# Not words of any language: names and codes that read the same in every language.
NOT_WORDS = {
    "PHH",  # the hand-history standard's name
    "RTP",  # return to player, the industry's term in every language
    "SHA",  # of SHA-256, the hash's name
    "USD",  # a currency code
    "FUN",  # the play money's currency code
}
# What stands where a template tag or a variable stood: no letters, and nothing that could
# break the HTML around it (a tag may stand inside an element's start tag).
TAG_HOLE, VARIABLE_HOLE = " ", "0"


def visible_source(source: str) -> str:
    """The template's HTML with each tag, variable and translated block replaced by a hole,
    and comments left out."""
    out: list[str] = []
    skip_until: str | None = None
    for token in Lexer(source).tokenize():
        if token.token_type is TokenType.BLOCK:
            command = token.contents.split()[0] if token.contents else ""
            if skip_until is not None:
                if command == skip_until:
                    skip_until = None
                continue
            if command in {"blocktranslate", "blocktrans"}:
                skip_until = "end" + command
            elif command == "comment":
                skip_until = "endcomment"
            out.append(TAG_HOLE)
        elif skip_until is not None or token.token_type is TokenType.COMMENT:
            continue
        elif token.token_type is TokenType.VAR:
            out.append(VARIABLE_HOLE)
        else:
            out.append(token.contents)
    return "".join(out)


class VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.hidden_depth = 0  # inside <script> or <style>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in {"script", "style"}:
            self.hidden_depth += 1
        for name, value in attrs:
            visible = name in VISIBLE_ATTRIBUTES or (
                name == "value" and dict(attrs).get("type") in {"submit", "button", "reset"}
            )
            if visible and value:
                self.texts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in {"script", "style"}:
            self.hidden_depth = max(0, self.hidden_depth - 1)

    def handle_data(self, data: str) -> None:
        if not self.hidden_depth:
            self.texts.append(data)


def unmarked_words(source: str) -> list[str]:
    parser = VisibleText()
    parser.feed(visible_source(source))
    parser.close()
    return [word for text in parser.texts for word in WORD.findall(text) if word not in NOT_WORDS]


def all_templates() -> list[Path]:
    return sorted(TEMPLATES.rglob("*.html"))


@pytest.mark.parametrize(
    "template", all_templates(), ids=lambda path: str(path.relative_to(TEMPLATES))
)
def test_every_word_of_a_template_is_marked_for_translation(template):
    words = unmarked_words(template.read_text(encoding="utf-8"))
    assert not words, f"{template.relative_to(TEMPLATES)} shows words no one translates: {words}"


def test_the_check_sees_text_attributes_and_skips_what_is_marked():
    assert unmarked_words("<p>Lobby</p>") == ["Lobby"]
    assert unmarked_words('<img alt="Card back" src="x.svg">') == ["Card", "back"]
    assert unmarked_words('<input type="submit" value="Go">') == ["Go"]
    assert unmarked_words('<input type="text" value="{{ name }}" name="client_seed">') == []
    assert unmarked_words("{% load i18n %}<p>{% translate 'Lobby' %}</p>") == []
    marked = "<p>{% blocktranslate with n=count %}{{ n }} boxes{% endblocktranslate %}</p>"
    assert unmarked_words(marked) == []
    assert (
        unmarked_words("{% comment %}Why this is so{% endcomment %}<p>{{ table.name }}</p>") == []
    )
    assert (
        unmarked_words("<script>const x = 'words';</script><style>.a { color: red; }</style>") == []
    )
    assert unmarked_words("<td>USD</td><td>12.30</td>") == []
    assert unmarked_words('<li{% if tags %} class="{{ tags }}"{% endif %}>{{ m }}</li>') == []
    assert unmarked_words("<p>{{ count }} boxes</p>") == ["boxes"]
