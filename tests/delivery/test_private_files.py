"""Inboxes and the recipes' delivered keys are private whatever the umask: 0700 and 0600."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from comment_wake._paths import tighten_tree
from comment_wake.delivery import take, write_notice
from comment_wake.delivery.recipes._common import DeliveredKeys
from review_monitor import Notice

NoticeFactory = Callable[..., Notice]


@pytest.fixture(autouse=True)
def loose_umask() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def modes(root: Path) -> dict[str, str]:
    found = {".": oct(stat.S_IMODE(root.stat().st_mode))}
    for path in root.rglob("*"):
        found[str(path.relative_to(root))] = oct(stat.S_IMODE(path.lstat().st_mode))
    return found


def private(root: Path) -> dict[str, str]:
    return {name: oct(0o700 if (root / name).is_dir() else 0o600) for name in modes(root)}


def test_an_inbox_written_and_taken_is_private_from_its_root_down(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    root = tmp_path / "deep" / "inboxes"
    write_notice(root, make_notice(item_ids=("IC_1",)))
    write_notice(root, make_notice(item_ids=("IC_2",)))
    take(root, "w-42", limit=len(make_notice().text))
    assert private(tmp_path / "deep") == modes(tmp_path / "deep")


def test_an_inbox_an_older_version_left_readable_is_tightened_at_the_next_write(
    make_notice: NoticeFactory, tmp_path: Path
) -> None:
    root = tmp_path / "inbox"
    (root / "w-42").mkdir(parents=True, mode=0o755)
    root.chmod(0o755)
    write_notice(root, make_notice())
    assert ("0o700", "0o700") == (modes(root)["."], modes(root)["w-42"])


def test_the_recipes_delivered_keys_are_private_with_their_state_dir(tmp_path: Path) -> None:
    state = tmp_path / "state"
    DeliveredKeys(state, "claude").add("k1", "s1")
    assert private(state) == modes(state)


def test_tighten_tree_takes_group_and_other_bits_off_and_names_what_it_changed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "state"
    (root / "sub").mkdir(parents=True, mode=0o755)
    (root / "sub" / "loose").write_text("x")
    (root / "tight").write_text("x")
    (root / "tight").chmod(0o600)
    root.chmod(0o750)
    changed = tighten_tree(root)
    assert ({root, root / "sub", root / "sub" / "loose"}, private(root)) == (
        set(changed),
        modes(root),
    )


def test_tighten_tree_leaves_what_a_symbolic_link_points_at(tmp_path: Path) -> None:
    outside = tmp_path / "shared.txt"
    outside.write_text("x")
    outside.chmod(0o644)
    root = tmp_path / "state"
    root.mkdir(mode=0o700)
    (root / "link").symlink_to(outside)
    tighten_tree(root)
    assert "0o644" == oct(stat.S_IMODE(outside.stat().st_mode))
