"""Every package that loads its public names on first use (``lazy_exports``) gives each
name of its ``__all__`` and lists it, so a lazy table cannot drift from ``__all__``."""

from __future__ import annotations

import importlib

import pytest

LAZY = [
    "review_monitor",
    "review_monitor.github",
    "review_monitor.poll",
    "review_monitor.seen",
    "review_monitor.store",
    "comment_wake.app",
    "comment_wake.config",
    "comment_wake.daemon",
    "comment_wake.delivery",
    "comment_wake.demo",
    "comment_wake.events",
    "comment_wake.hints",
    "comment_wake.ownpost",
    "comment_wake.registry",
    "comment_wake.replay",
    "comment_wake.service",
    "comment_wake.store",
    "comment_wake.tools",
    "comment_wake.wake",
]


@pytest.mark.parametrize("name", LAZY)
def test_every_public_name_of_a_lazy_package_loads(name: str) -> None:
    module = importlib.import_module(name)
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert [] == missing


@pytest.mark.parametrize("name", LAZY)
def test_dir_of_a_fresh_lazy_package_lists_every_public_name(name: str) -> None:
    module = importlib.reload(importlib.import_module(name))
    assert set() == set(module.__all__) - set(dir(module))


def test_an_unknown_name_is_an_attribute_error_naming_the_package() -> None:
    import review_monitor

    with pytest.raises(AttributeError, match="module 'review_monitor' has no attribute 'Nope'"):
        review_monitor.Nope  # noqa: B018
