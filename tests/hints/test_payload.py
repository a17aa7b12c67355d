"""pr_of_delivery: which PR a delivery names, read from the repository, number and host only."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comment_wake.hints import HINT_EVENTS, matching_watch, pr_of_delivery
from review_monitor import PrRef

_PAGE = re.compile(r"https://([^/]+)/([^/]+)/([^/]+)/(?:pull|issues)/([0-9]+)")


def _from_page(url: str) -> PrRef:
    """The PR a web page URL shows (an independent reading of what the payload names)."""
    m = _PAGE.fullmatch(url)
    assert m is not None, url
    return PrRef(owner=m[2], name=m[3], number=int(m[4]), host=m[1])


@pytest.mark.parametrize(
    "event", ["pull_request", "pull_request_review", "pull_request_review_comment"]
)
def test_every_example_of_a_pull_request_event_names_its_pull_request(
    examples: dict[str, list[dict[str, Any]]], event: str
) -> None:
    payloads = examples[event]
    # Read from the PR's base repository and number: one example's ``pull_request.html_url``
    # names another repository's PR, an inconsistency of the example data.
    expected = [
        _from_page(
            f"{p['pull_request']['base']['repo']['html_url']}/pull/{p['pull_request']['number']}"
        )
        for p in payloads
    ]
    assert expected == [pr_of_delivery(event, p) for p in payloads]


def test_every_example_issue_comment_on_a_plain_issue_names_no_pull_request(
    examples: dict[str, list[dict[str, Any]]],
) -> None:
    payloads = examples["issue_comment"]
    assert [None] * len(payloads) == [pr_of_delivery("issue_comment", p) for p in payloads]


def test_every_example_issue_comment_on_a_pull_request_names_it(
    examples: dict[str, list[dict[str, Any]]],
) -> None:
    payloads = copy.deepcopy(examples["issue_comment"])
    for p in payloads:
        issue = p["issue"]
        issue["pull_request"] = {"url": issue["url"].replace("/issues/", "/pulls/")}
    expected = [_from_page(p["issue"]["html_url"]) for p in payloads]
    assert expected == [pr_of_delivery("issue_comment", p) for p in payloads]


def test_every_example_ping_names_nothing(examples: dict[str, list[dict[str, Any]]]) -> None:
    payloads = examples["ping"]
    assert [None] * len(payloads) == [pr_of_delivery("ping", p) for p in payloads]


def test_a_pull_request_payload_under_another_event_name_names_nothing(
    examples: dict[str, list[dict[str, Any]]],
) -> None:
    payload = examples["pull_request"][0]
    assert [None, None] == [pr_of_delivery(e, payload) for e in ("push", "check_run")]


def _minimal(host: str = "github.com") -> dict[str, Any]:
    return {
        "action": "submitted",
        "pull_request": {"number": 7},
        "repository": {"full_name": "octo/repo", "html_url": f"https://{host}/octo/repo"},
    }


def test_an_enterprise_host_is_taken_from_the_repository_url() -> None:
    assert PrRef("octo", "repo", 7, host="ghe.example.com") == pr_of_delivery(
        "pull_request_review", _minimal("ghe.example.com")
    )


def test_the_host_is_read_in_lower_case() -> None:
    assert "ghe.example.com" == getattr(
        pr_of_delivery("pull_request_review", _minimal("GHE.Example.COM")), "host", None
    )


def _set(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    def change(payload: dict[str, Any]) -> None:
        *parents, leaf = path.split(".")
        node = payload
        for key in parents:
            node = node[key]
        node[leaf] = value

    return change


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    def change(payload: dict[str, Any]) -> None:
        *parents, leaf = path.split(".")
        node = payload
        for key in parents:
            node = node[key]
        del node[leaf]

    return change


FORGERIES = {
    "number is a string": _set("pull_request.number", "7"),
    "number is true": _set("pull_request.number", True),
    "number is a float": _set("pull_request.number", 7.0),
    "number is zero": _set("pull_request.number", 0),
    "number is negative": _set("pull_request.number", -7),
    "number is huge": _set("pull_request.number", 10**12),
    "no number": _drop("pull_request.number"),
    "pull_request is a list": _set("pull_request", [7]),
    "no pull_request": _drop("pull_request"),
    "top-level number disagrees": _set("number", 8),
    "top-level number is a string": _set("number", "7"),
    "repository is a string": _set("repository", "octo/repo"),
    "no repository": _drop("repository"),
    "full_name without a slash": _set("repository.full_name", "octo"),
    "full_name with two slashes": _set("repository.full_name", "octo/repo/x"),
    "full_name with a space": _set("repository.full_name", "octo/re po"),
    "full_name with markup": _set("repository.full_name", "octo/<b>"),
    "full_name is dot-dot": _set("repository.full_name", "octo/.."),
    "full_name is a number": _set("repository.full_name", 12),
    "html_url names another repository": _set("repository.html_url", "https://github.com/a/b"),
    "html_url with credentials": _set("repository.html_url", "https://u:p@github.com/octo/repo"),
    "html_url with a query": _set("repository.html_url", "https://github.com/octo/repo?x=1"),
    "html_url with a fragment": _set("repository.html_url", "https://github.com/octo/repo#x"),
    "html_url with a newline": _set("repository.html_url", "https://github.com/octo/repo\n"),
    "html_url with a bad port": _set("repository.html_url", "https://github.com:99999/octo/repo"),
    "html_url another scheme": _set("repository.html_url", "ftp://github.com/octo/repo"),
    "html_url non-ascii host": _set("repository.html_url", "https://gíthub.com/octo/repo"),
    "html_url is null": _set("repository.html_url", None),
    "no html_url": _drop("repository.html_url"),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forged_shape_names_nothing(forgery: str) -> None:
    payload = _minimal()
    payload["number"] = 7
    FORGERIES[forgery](payload)
    assert pr_of_delivery("pull_request", payload) is None


def test_the_minimal_payload_the_forgeries_start_from_is_accepted() -> None:
    payload = _minimal()
    payload["number"] = 7
    assert PrRef("octo", "repo", 7) == pr_of_delivery("pull_request", payload)


@pytest.mark.parametrize("marker", ["yes", ["x"], 1, True])
def test_an_issue_comment_whose_pull_request_marker_is_not_an_object_names_nothing(
    marker: object,
) -> None:
    payload = {
        "issue": {"number": 3, "pull_request": marker},
        "repository": {"full_name": "octo/repo", "html_url": "https://github.com/octo/repo"},
    }
    assert pr_of_delivery("issue_comment", payload) is None


def test_an_issue_comment_with_a_null_pull_request_marker_is_a_plain_issue() -> None:
    payload = {
        "issue": {"number": 3, "pull_request": None},
        "repository": {"full_name": "octo/repo", "html_url": "https://github.com/octo/repo"},
    }
    assert pr_of_delivery("issue_comment", payload) is None


_leaf = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
_json = st.recursive(
    _leaf,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)
_name = st.sampled_from(["octo/repo", "octo", "a/b/c", "", "o/..", "Ωx/y"]) | st.text(max_size=12)
_url = st.sampled_from(["https://github.com/octo/repo", "https://x:1/octo/repo"]) | st.text(
    max_size=30
)
_repository = st.fixed_dictionaries(
    {}, optional={"full_name": _name | _leaf, "html_url": _url | _leaf}
)
_number = st.integers(min_value=-2, max_value=10**11) | _leaf
_pull = st.fixed_dictionaries(
    {}, optional={"number": _number, "pull_request": st.none() | _json | st.just({})}
)
_payload = st.fixed_dictionaries(
    {},
    optional={
        "repository": _repository | _json,
        "pull_request": _pull | _json,
        "issue": _pull | _json,
        "number": _number,
    },
)


@settings(max_examples=150)
@given(event=st.sampled_from(sorted(HINT_EVENTS)), payload=_payload)
def test_an_arbitrary_payload_never_raises(event: str, payload: dict[str, Any]) -> None:
    result = pr_of_delivery(event, payload)
    assert result is None or isinstance(result, PrRef)


def test_a_watch_is_matched_ignoring_the_case_of_owner_name_and_host() -> None:
    watched = [PrRef("octo", "repo", 6), PrRef("octo", "repo", 7)]
    assert watched[1] == matching_watch(PrRef("Octo", "Repo", 7, host="GitHub.com"), watched)


def test_a_watch_on_another_host_or_number_is_not_matched() -> None:
    watched = [PrRef("octo", "repo", 7, host="ghe.example.com"), PrRef("octo", "repo", 8)]
    assert matching_watch(PrRef("octo", "repo", 7), watched) is None
