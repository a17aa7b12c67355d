"""The view against GitHub's renderer (tests/fence/_oracle.py: cmark-gfm, an HTML5 parser
and GitHub's sanitizer allowlist, walked independently of the fence's writer).

Per occurrence: the view shows each token as many times as GitHub shows it (no leak, no
over-hide), and keeps every link target and image source GitHub keeps.  The suite runs 5,000
seeded documents of the oracle's PIECES; tests/bench/fence_differential.py runs 100,000.
"""

from __future__ import annotations

import random
import re

from _oracle import (
    CONTAINERS,
    Document,
    generate,
    leaks,
    minimise,
    render,
    shown,
    shown_in_html,
)

import untrusted_fence as uf

DOCUMENTS = 5_000
SEED = 2026


def _documents() -> list[Document]:
    rng = random.Random(SEED)
    return [generate(rng) for _ in range(DOCUMENTS)]


def test_the_view_places_every_token_occurrence_as_github_does_in_5000_documents() -> None:
    found = []
    for doc in _documents():
        _, leaked = leaks(doc.text, doc.tokens)
        if leaked:
            found.append((minimise(doc.text, leaked), doc.text, leaked))
        if len(found) == 3:
            break
    assert [] == found


def test_the_generated_documents_hide_tokens_from_github() -> None:
    # The suite is only worth something if GitHub really hides many of the tokens.
    hidden = sum(len(leaks(doc.text, doc.tokens)[0]) for doc in _documents()[:500])
    assert hidden > 500


def test_generation_is_deterministic_for_a_seed() -> None:
    first = generate(random.Random(7))
    assert first == generate(random.Random(7))


def test_every_container_is_applied_to_pieces() -> None:
    rng = random.Random(3)
    texts = [generate(rng, size=1).text for _ in range(400)]
    assert all(any(t.startswith(c) for t in texts) for c in CONTAINERS if c)


def test_fences_and_definitions_are_put_in_list_items_too() -> None:
    rng = random.Random(5)
    texts = [generate(rng, ("```{t}", "[{t}]: /u"), size=1).text for _ in range(200)]
    assert {"- ", "1. "} == {c for c in ("- ", "1. ") for t in texts if t.startswith(c)}


def test_the_oracle_sees_plain_text_and_misses_comments() -> None:
    seen = shown("a tok1q <!-- tok2q -->")
    assert (True, False) == ("tok1q" in seen, "tok2q" in seen)


def test_the_oracle_parses_html5_an_unclosed_attribute_swallows_the_paragraphs() -> None:
    seen = shown('<div title="tok1q\n\ntok2q\n\ntok3q')
    assert [] == [t for t in ("tok1q", "tok2q", "tok3q") if t in seen]


def test_the_oracle_parses_html5_a_slash_separates_attributes() -> None:
    assert "tok1q" not in shown_in_html('<span/title="tok1q">x</span>')


def test_the_oracle_parses_html5_bogus_comments_hide_their_text() -> None:
    assert "" == shown_in_html("<! tok1q ></3 tok2q><?x tok3q>").strip()


def test_the_oracle_hides_a_collapsed_details_body_and_shows_its_summary() -> None:
    seen = shown_in_html("<details><summary>tok1q</summary>tok2q</details>")
    assert (True, False) == ("tok1q" in seen, "tok2q" in seen)


def test_the_oracle_shows_an_open_details_body() -> None:
    assert "tok2q" in shown_in_html("<details open><summary>a</summary>tok2q</details>")


def test_the_oracle_hides_rp_content() -> None:
    assert "tok1q" not in shown_in_html("<ruby>a<rp>tok1q</rp><rt>b</rt></ruby>")


def test_the_oracle_unwraps_elements_outside_the_allowlist() -> None:
    assert "tok1q" in shown_in_html("<section><font>tok1q</font></section>")


def test_the_oracle_drops_script_and_style_with_their_content() -> None:
    assert "" == shown_in_html("<script>tok1q</script><style>tok2q</style>").strip()


def test_the_oracle_hides_a_tag_named_by_the_payload() -> None:
    assert "" == shown("<tok1q>").strip()


def test_the_oracle_parses_a_fragment_where_a_frameset_replaces_no_text() -> None:
    assert "tok1q tok2q" == shown_in_html("<frameset>tok1q</frameset><p>tok2q</p>")


def test_the_oracle_shows_a_leading_templates_content_as_the_sanitizer_unwraps_it() -> None:
    assert "tok1q" == shown_in_html("<template>tok1q</template>").strip()


def test_the_oracle_counts_a_code_blocks_language_as_shown() -> None:
    assert "python" in shown("```python\nx\n```")


def test_the_oracle_renders_footnotes_and_tables() -> None:
    html = render("a[^1] | b\n--|--\nc | d | tok1q\n\n[^1]: note")
    assert ("footnote-ref" in html, "tok1q" in html) == (True, False)


def test_escaped_backtick_opens_a_shorter_code_span_as_github_does() -> None:
    # "\``" is a literal backtick and then a one-backtick opener: the image is code.
    text = "\\``![tok1q](/i.png)`"
    assert (["tok1q"], ["tok1q"]) == (
        [t for t in ["tok1q"] if t in shown(text)],
        [t for t in ["tok1q"] if t in uf.render(text).text],
    )


def test_an_rp_outside_a_ruby_is_not_closed_by_a_ruby_close() -> None:
    # GitHub hides the token (the rp stays open); the fence marks it.
    assert (["tok1q"], []) == leaks("a <rp></ruby>tok1q", ["tok1q"])


def test_an_rp_whose_close_follows_a_block_start_hides_the_rest() -> None:
    # cmark-gfm's <blockquote> comes between: the tree builder ignores the </rp> after it.
    assert (["tok1q"], []) == leaks("y<dt><rp>\n></rp>tok1q", ["tok1q"])


def test_a_details_close_in_indented_code_closes_nothing() -> None:
    # cmark-gfm escapes the indented "</details": the collapsed body runs to the end.
    assert (["tok1q"], []) == leaks("q<details>\n\n    </details\ntok1q", ["tok1q"])


def _outside_marks(view: uf.View) -> str:
    """The view with its hidden and collapsed marks removed, content and all, and its link
    targets (which GitHub shows as links, not text)."""
    out, depth = [], 0
    for kind, text in view.pieces:
        if kind == "open" or (kind == "mark" and text == uf.HIDDEN_OPEN):
            depth += 1
        elif kind == "close" or (kind == "mark" and text == uf.HIDDEN_CLOSE):
            depth -= 1
        elif depth == 0 and kind != "target":
            out.append(text)
    return "".join(out)


def test_the_view_without_its_marks_renders_back_to_what_github_shows_in_2000_documents() -> None:
    # The round trip: rendered again, the view shows the same tokens as the original does.
    rng = random.Random(SEED + 1)
    found = []
    for _ in range(2_000):
        doc = generate(rng)
        view = uf.render(doc.text)
        again = shown(_outside_marks(view))
        if sorted(re.findall(r"tok\d+q", shown(doc.text))) != sorted(re.findall(r"tok\d+q", again)):
            found.append((doc.text, view.text))
        if len(found) == 3:
            break
    assert [] == found
