"""Public testing helpers: ``FakeGitHub``, a fixed clock and an in-memory publisher."""

from ._clock import FixedClock, VirtualClock
from ._cost import QueryCost, query_cost
from ._fake_github import FakeGitHub
from ._faults import Fault, RecordedRequest, RequestKind
from ._graphql import schema_subset
from ._publisher import InMemoryPublisher, PublishAttempt
from ._serving import InFlightTransport
from ._world import FakeItem

__all__: list[str] = [
    "FakeGitHub",
    "FakeItem",
    "Fault",
    "FixedClock",
    "InFlightTransport",
    "InMemoryPublisher",
    "PublishAttempt",
    "QueryCost",
    "RecordedRequest",
    "RequestKind",
    "VirtualClock",
    "query_cost",
    "schema_subset",
]
