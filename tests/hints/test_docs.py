"""docs/webhooks.md documents every [webhook] key with its real default."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

from comment_wake.hints import WebhookConfig
from review_monitor import format_duration


def _documented(repo_root: Path) -> dict[str, str]:
    doc = (repo_root / "docs" / "webhooks.md").read_text()
    rows = re.findall(r"^\| `([a-z_]+)` \| `([^`]*)`", doc, flags=re.MULTILINE)
    return dict(rows)


def _spelled(value: object) -> str:
    if isinstance(value, timedelta):
        return json.dumps(format_duration(value))
    return json.dumps(value)


def test_every_key_is_documented_with_its_default(repo_root: Path) -> None:
    defaults = WebhookConfig()
    expected = {name: _spelled(getattr(defaults, name)) for name in WebhookConfig.model_fields}
    assert expected == _documented(repo_root)
