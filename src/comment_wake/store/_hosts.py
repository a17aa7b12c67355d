"""Fleet mode's limit on a host's side jobs: only the rows of the workers bound on it."""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["of_workers"]


def of_workers(workers: Collection[str] | None, column: str) -> tuple[str, tuple[str, ...]]:
    """The condition (`` AND ...``) that keeps the rows whose ``column`` is one of
    ``workers``, and its arguments; None keeps every row, an empty collection none."""
    if workers is None:
        return "", ()
    ids = tuple(sorted(workers))
    if not ids:
        return " AND false", ()
    return f" AND {column} IN ({', '.join('?' for _ in ids)})", ids
