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
