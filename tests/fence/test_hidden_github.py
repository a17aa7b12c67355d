"""Hidden text of issue 12 (finding 3) that the fence now marks: collapsed <details> bodies,
<rp> content, and code points that render blank."""

from __future__ import annotations

import pytest

import untrusted_fence as uf


def test_a_collapsed_details_body_is_marked_and_its_summary_shows() -> None:
    text = "<details><summary>Logs</summary>approve now</details> after"
    assert (["approve now"], True) == (uf.hidden_regions(text), "Logs" in uf.visible_text(text))


def test_an_unclosed_details_hides_the_rest() -> None:
    assert ["hidden"] == uf.hidden_regions("<details>\nhidden\n")


def test_an_open_details_body_stays_visible() -> None:
    text = "<details open><summary>x</summary>body</details>"
    assert "body" in uf.visible_text(text)


def test_rp_content_is_marked() -> None:
    text = "<ruby>\u6f22<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>"
    assert "(" not in uf.visible_text(text)


def test_a_details_tag_inside_code_is_inert() -> None:
    text = "`<details>` body"
    assert [] == uf.hidden_regions(text)


@pytest.mark.parametrize(
    "blank", ["\U00013441", "\U00013442", "\U00016fe4", "\u303f", "\U0001d159"]
)
def test_a_blank_rendering_code_point_becomes_a_space(blank: str) -> None:
    assert "a b" == uf.clean(f"a{blank}b")


@pytest.mark.parametrize("closer", ["\u2988", "\u3019", "\u2998", "\u27eb"])
def test_a_lookalike_of_the_mark_closer_inside_hidden_text_becomes_plain(closer: str) -> None:
    [region] = uf.hidden_regions(f"<!-- a{closer} approve -->")
    assert closer not in region


def test_a_lookalike_of_the_mark_closer_in_visible_text_stays() -> None:
    assert "x \u27eb y" == uf.clean("x \u27eb y")


@pytest.mark.parametrize(
    "colours",
    ["30;40", "97;107", "38;5;1;48;5;1", "38;5;200;48;5;200", "38;2;1;2;3;48;2;1;2;3"],
)
def test_ansi_text_in_its_own_background_colour_is_marked(colours: str) -> None:
    assert ["approve"] == uf.hidden_regions(f"ok \x1b[{colours}mapprove\x1b[0m done")


def test_ansi_text_in_other_colours_stays_visible() -> None:
    assert "ok visible done" == uf.clean("ok \x1b[31;42mvisible\x1b[0m done")


def test_ansi_background_reset_ends_the_hidden_run() -> None:
    assert ["x"] == uf.hidden_regions("\x1b[32;42mx\x1b[49my")


def test_a_tab_before_backticks_makes_indented_code_not_a_fence() -> None:
    # GitHub: "\t```" is an indented code line, so the comment after it is raw HTML (hidden).
    assert ["<!-- hidden -->"] == uf.hidden_regions("\t```\n<!-- hidden -->\n")


def test_an_escaped_backtick_does_not_open_a_code_span() -> None:
    # GitHub: "\`" is a literal backtick, so the comment after it is raw HTML (hidden).
    assert ["<!-- x -->"] == uf.hidden_regions("\\`<!-- x -->` y")


def test_a_comment_opener_inside_fenced_code_does_not_hide_a_later_fence() -> None:
    # GitHub: "<!-- a" is code, so the second fence opens and its info string after "js" is
    # not shown (only the language is, as highlighting).
    assert ["evil"] == uf.hidden_regions("~~~\n<!-- a\n~~~\n~~~ js evil\nx\n~~~\n")


def test_an_html_line_inside_fenced_code_does_not_hide_a_later_fence() -> None:
    # GitHub: "<div>" is code, not an HTML block running to the blank line.
    assert ["evil"] == uf.hidden_regions("```\n<div>\n```\n```js evil\n```\n")


def test_a_comment_after_fenced_code_holding_an_html_line_is_hidden() -> None:
    assert ["<!-- x -->"] == uf.hidden_regions("```\n<div>\n```\n<!-- x -->\n")


def test_an_html_block_still_holds_a_fence_line() -> None:
    # GitHub: the fence line is inside the HTML block (up to the blank line), so the comment
    # after it is raw HTML, hidden, not code.
    assert ["<!-- x -->"] == uf.hidden_regions("<div>\n```\n<!-- x -->\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # GitHub shows only the language ("js", "py") of these fences, as highlighting.
        ("> ```js a b\n> x\n> ```\n", ["a b"]),
        (">```js evil\n", ["evil"]),
        ("- ```py x y\n  z\n", ["x y"]),
        ("1. ```py x\n", ["x"]),
        ("> - ```py x\n", ["x"]),
        ("* > ~~~ evil ok\n", ["ok"]),
        ("-    ```js evil\n", ["evil"]),
    ],
)
def test_an_info_string_inside_a_block_quote_or_list_item_is_marked(
    text: str, expected: list[str]
) -> None:
    assert expected == uf.hidden_regions(text)


@pytest.mark.parametrize(
    "text",
    [
        "- ```js `x`\n",  # backticks in the info string: not a fence
        "-```js evil\n",  # no space after the marker: not a list item
        "- use ```x``` here\n",  # a code span in the item's text
    ],
)
def test_fence_like_text_in_a_list_item_that_is_not_a_fence_stays_visible(text: str) -> None:
    assert [] == uf.hidden_regions(text)


@pytest.mark.parametrize(
    "text",
    [
        # GitHub: a tag line cannot start an HTML block inside a paragraph, and a line with
        # more after the tag is no HTML block start: the fence opens, "evil" is not shown.
        "para\n<span>\n```js evil\n```\n",
        "<span><span> x\n```js evil\n```\n",
    ],
)
def test_an_info_string_after_a_tag_line_that_starts_no_html_block_is_marked(text: str) -> None:
    assert ["evil"] == uf.hidden_regions(text)


@pytest.mark.parametrize(
    "text", ["- a\n\n    ```js evil\n", "1.  a\n\n    ```js evil\n", "- a\n\n\t```js evil\n"]
)
def test_an_info_string_of_an_indented_fence_inside_a_list_item_is_marked(text: str) -> None:
    # GitHub: the fence is inside the list item (indented relative to the item's content).
    assert ["evil"] == uf.hidden_regions(text)


def test_an_indented_code_line_like_a_fence_outside_any_list_stays_visible() -> None:
    # GitHub: indented code shows "```js shown" as it is.
    assert [] == uf.hidden_regions("text\n\n    ```js shown\n")
