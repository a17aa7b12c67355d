"""Hidden-region completeness, differential against GitHub's own parser (cmark-gfm).

Every token that cmark-gfm does not show a reader must appear in the cleaned text only inside
a hidden mark (or not at all).  Marking more than GitHub hides is allowed; less is a bug.
"""

from __future__ import annotations

import itertools
from html.parser import HTMLParser

import cmarkgfm  # type: ignore[import-untyped]
from cmarkgfm.cmark import Options  # type: ignore[import-untyped]
from hypothesis import given
from hypothesis import strategies as st

import untrusted_fence as uf

PIECES = [
    "plain {t}", "<!-- {t} -->", "<!-- {t}", "<?x {t} ?>", "<!X {t}>", "<![CDATA[ {t} ]]>",
    "[{t}]: /u", '[l]: /u "{t}"', "[//]: # ({t})", "[^{t}]: {t}", '![{t}](/i.png "{t}")',
    '[{t}](/u "{t}")', "```js {t} {t}\ncode {t}\n```", "`code {t}`", "> {t}",
    '<img alt="{t}" src="/x.png">', '<a href="/{t}" title="{t}">{t}</a>', "- item {t}",
    "text[^{t}]", "[x]:\n  /u\n  '{t}\n{t}'", "~~~ {t} {t}\n{t}\n~~~", "<!-- a -- {t} -->",
    "<details><summary>{t}</summary>{t}</details>", "    indented {t}",
]  # fmt: skip
SEPARATORS = ["\n\n", "\n", " ", ""]


class _Shown(HTMLParser):
    """Text a browser shows: character data only (no comments, declarations, attributes)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # A code block's language shows as its highlighting: count it as shown.
        for name, value in attrs:
            if tag == "pre" and name == "lang" and value:
                self.parts.append(value)


def shown(markdown: str) -> str:
    html = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_FOOTNOTES
    )
    # The HTML tokenizer's end of file inside a comment: the rest of the document is hidden.
    opened = html.rfind("<!--")
    if opened >= 0 and html.find("-->", opened + 2) < 0:
        html = html[:opened]
    parser = _Shown()
    parser.feed(html)
    parser.close()
    return " ".join(parser.parts)


def build(choices: list[tuple[int, int]]) -> tuple[str, list[str]]:
    counter = itertools.count()
    tokens: list[str] = []

    def token() -> str:
        tokens.append(f"tok{next(counter)}q")
        return tokens[-1]

    doc = ""
    for piece, sep in choices:
        text = PIECES[piece]
        while "{t}" in text:
            text = text.replace("{t}", token(), 1)
        doc += text + SEPARATORS[sep]
    return doc, tokens


documents = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=len(PIECES) - 1),
        st.integers(min_value=0, max_value=len(SEPARATORS) - 1),
    ),
    min_size=1,
    max_size=8,
)


@given(choices=documents)
def test_text_github_does_not_show_is_never_left_unmarked(
    choices: list[tuple[int, int]],
) -> None:
    doc, tokens = build(choices)
    seen = shown(doc)
    body = uf.clean(doc)
    visible = uf.visible_text(body)
    leaked = [t for t in tokens if t not in seen and t in visible]
    assert leaked == [], (doc, body)


def test_the_oracle_sees_plain_text_and_misses_comments() -> None:
    assert "tok1q" in shown("a tok1q <!-- tok2q -->")
    assert "tok2q" not in shown("a tok1q <!-- tok2q -->")
