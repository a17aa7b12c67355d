"""Public testing helpers: ``FakeGitHub``, a fixed clock and an in-memory publisher."""

from ._clock import FixedClock, VirtualClock
from ._publisher import InMemoryPublisher, PublishAttempt

__all__: list[str] = [
    "FixedClock",
    "InMemoryPublisher",
    "PublishAttempt",
    "VirtualClock",
]
