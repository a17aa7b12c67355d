"""What FakeGitHub's GraphQL and REST endpoints share: the token check and their parts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._faults import Faults, RequestLog
from ._http import DOCS, Answer, json_answer
from ._nodes import Nodes

__all__ = ["EndpointParts", "TokenCheck"]


@dataclass
class TokenCheck:
    """The token FakeGitHub accepts (None: any request is authorised)."""

    token: str | None

    def refusal(self, headers: Mapping[str, str]) -> Answer | None:
        """GitHub's 401 unless ``headers`` (lower-case names) carry the token."""
        if self.token is None:
            return None
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() in ("bearer", "token") and given == self.token:
            return None
        return json_answer(401, {"message": "Bad credentials", "documentation_url": DOCS})


@dataclass(frozen=True)
class EndpointParts:
    """One FakeGitHub's parts every endpoint reads (each endpoint has its own budget)."""

    nodes: Nodes
    faults: Faults
    log: RequestLog
    token: TokenCheck
