"""FakeGitHub's REST JSON: a user, an issue comment, a review, a review comment, a pull request,
in GitHub's shapes (the fields the project reads and their usual neighbours)."""

from __future__ import annotations

import re
from typing import Any

from ._nodes import Actor, Comment, Inline, Pr, Review
from ._resolvers import iso

__all__ = ["issue_comment", "pull", "review", "review_comment", "user"]

_DIGITS = re.compile(r"\d+")


def number(node_id: str) -> int:
    """A numeric id for a fake node id (``U_fake12`` is 13; the viewer, ``U_fake0``, is 1)."""
    found = _DIGITS.search(node_id)
    return int(found[0]) + 1 if found else 1


def user(actor: Actor | None, host: str) -> dict[str, Any]:
    """A REST user; GitHub's REST names a deleted account ``ghost``."""
    if actor is None:
        return {"login": "ghost", "id": 10137, "node_id": "MDQ6VXNlcjEwMTM3", "type": "User",
                "site_admin": False, "html_url": f"https://{host}/ghost"}  # fmt: skip
    login = actor.login + "[bot]" if actor.typename == "Bot" else actor.login
    return {
        "login": login,
        "id": number(actor.id),
        "node_id": actor.id,
        "type": actor.typename,
        "site_admin": False,
        "html_url": f"https://{host}/{login}",
    }


def _association(pr: Pr, actor: Actor | None) -> str:
    if actor is None:
        return "NONE"
    if actor.login.lower() == pr.repo.owner.lower():
        return "OWNER"
    return "COLLABORATOR" if actor.login.lower() in pr.repo.permissions else "NONE"


def _repo_api(api: str, pr: Pr) -> str:
    return f"{api}/repos/{pr.repo.owner}/{pr.repo.name}"


def issue_comment(c: Comment, pr: Pr, api: str, host: str) -> dict[str, Any]:
    base = _repo_api(api, pr)
    return {
        "url": f"{base}/issues/comments/{c.database_id}",
        "html_url": c.url,
        "issue_url": f"{base}/issues/{pr.number}",
        "id": c.database_id,
        "node_id": c.id,
        "user": user(c.author, host),
        "created_at": iso(c.created_at),
        "updated_at": iso(c.last_edited_at or c.created_at),
        "author_association": _association(pr, c.author),
        "body": c.body,
        "performed_via_github_app": None,
    }


def review(r: Review, pr: Pr, api: str, host: str) -> dict[str, Any]:
    base = _repo_api(api, pr)
    shape: dict[str, Any] = {
        "id": r.database_id,
        "node_id": r.id,
        "user": user(r.author, host),
        "body": r.body,
        "state": r.state,
        "html_url": r.url,
        "pull_request_url": f"{base}/pulls/{pr.number}",
        "author_association": _association(pr, r.author),
        "_links": {
            "html": {"href": r.url},
            "pull_request": {"href": f"{base}/pulls/{pr.number}"},
        },
        "commit_id": r.commit_id or pr.head_ref_oid,
    }
    if r.submitted_at is not None:
        shape["submitted_at"] = iso(r.submitted_at)
    return shape


def review_comment(c: Inline, r: Review, pr: Pr, api: str, host: str) -> dict[str, Any]:
    base = _repo_api(api, pr)
    commit = c.commit_id or r.commit_id or pr.head_ref_oid
    side = c.side or "RIGHT"
    shape: dict[str, Any] = {
        "url": f"{base}/pulls/comments/{c.database_id}",
        "pull_request_review_id": r.database_id,
        "id": c.database_id,
        "node_id": c.id,
        "diff_hunk": f"@@ -1,1 +{c.line or 1},1 @@",
        "path": c.path,
        "commit_id": commit,
        "original_commit_id": commit,
        "user": user(c.author, host),
        "body": c.body,
        "created_at": iso(c.created_at),
        "updated_at": iso(c.last_edited_at or c.created_at),
        "html_url": c.url,
        "pull_request_url": f"{base}/pulls/{pr.number}",
        "author_association": _association(pr, c.author),
        "_links": {
            "self": {"href": f"{base}/pulls/comments/{c.database_id}"},
            "html": {"href": c.url},
            "pull_request": {"href": f"{base}/pulls/{pr.number}"},
        },
        "start_line": c.start_line,
        "original_start_line": c.original_start_line,
        "start_side": side if c.start_line is not None else None,
        "line": c.line,
        "original_line": c.original_line,
        "side": side,
        "subject_type": "line",
    }
    if c.in_reply_to is not None:
        shape["in_reply_to_id"] = c.in_reply_to
    return shape


def pull(pr: Pr, api: str, host: str) -> dict[str, Any]:
    base = _repo_api(api, pr)
    return {
        "url": f"{base}/pulls/{pr.number}",
        "id": number(pr.id),
        "node_id": pr.id,
        "html_url": pr.url,
        "number": pr.number,
        "state": "open" if pr.state == "OPEN" else "closed",
        "locked": pr.locked,
        "title": pr.title,
        "user": user(pr.author, host),
        "draft": pr.is_draft,
        "merged": pr.merged,
        "updated_at": iso(pr.updated_at),
        "head": {"label": f"{pr.repo.owner}:head", "ref": "head", "sha": pr.head_ref_oid},
        "base": {"label": f"{pr.repo.owner}:main", "ref": "main"},
    }
