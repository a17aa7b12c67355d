"""Public testing helpers: ``FakeGitHub``, a fixed clock and an in-memory publisher."""

__all__: list[str] = []
