"""``import untrusted_fence`` imports nothing of the fence until a name is used: a command
that never fences pays nothing for it."""

from __future__ import annotations

import subprocess
import sys

import pytest

_PROBE = (
    "import sys, untrusted_fence\n"
    "before = sorted(m for m in sys.modules if m.startswith(('untrusted_fence.', 'cmarkgfm',"
    " 'selectolax', 'regex', 'unicodedata2')))\n"
    "untrusted_fence.is_blank(' ')\n"
    "after = 'untrusted_fence._clean' in sys.modules\n"
    "print(before, after)\n"
)


def test_importing_the_package_loads_no_module_until_a_name_is_used() -> None:
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True)
    assert ("[] True", "") == (done.stdout.strip(), done.stderr)


def test_an_unknown_name_is_an_attribute_error() -> None:
    import untrusted_fence

    with pytest.raises(AttributeError, match="no_such_name"):
        untrusted_fence.no_such_name  # noqa: B018


def test_the_marker_rules_are_built_on_the_first_use_not_on_import() -> None:
    # Building them costs about a quarter of a second; a process that imports the fence
    # (a notice builder's module, the worker tools) but fences nothing must not pay it.
    probe = (
        "from untrusted_fence import _markers\n"
        "print(_markers._all_rules.cache_info().currsize, end=' ')\n"
        "_markers.holds_marker('<<<untrusted-comment-end x>>>')\n"
        "print(_markers._all_rules.cache_info().currsize)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert ("0 1", "") == (done.stdout.strip(), done.stderr)
