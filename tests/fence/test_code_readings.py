"""Code spans are inert only where both readings of the paragraph ends agree (``_Code.spans``):
the block walk's own reading, and one that ends a paragraph at every line that may start a
block.  The second guards against a line the walk might misread; these tests withhold the
walk's breaks to stand for such a miss."""

from __future__ import annotations

from untrusted_fence import _blocks, _hidden, hidden_regions


def _code(text: str, breaks: list[int]) -> _hidden._Code:
    found = _blocks.blocks(text)
    return _hidden._Code(text, _hidden._HtmlBlocks(found.html), found.fences, breaks)


def test_a_pair_across_a_line_that_may_start_a_block_is_not_code() -> None:
    # Without breaks, the walk's reading pairs the two backticks across "- b`"; the other
    # reading ends the paragraph there (a list item), so the comment is not code.
    text = "`a <!-- x -->\n- b`"
    assert [] == _code(text, breaks=[]).spans()


def test_a_pair_both_readings_agree_on_is_code() -> None:
    text = "`a <!-- x -->\nb`"
    assert [(0, len(text))] == _code(text, breaks=[]).spans()


def test_the_comment_beside_a_backtick_the_list_item_leaves_unpaired_is_marked() -> None:
    # cmark-gfm: "<p>`a <!-- x --></p>" and a list item "b`": the comment is raw HTML.
    assert ["<!-- x -->"] == hidden_regions("`a <!-- x -->\n- b`")
