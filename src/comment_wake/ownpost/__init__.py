"""Own-post detection: tell a worker's own GitHub comments from its user's.

Workers usually post with the user's own ``gh`` login, so GitHub cannot tell their
comments apart. The only record of what the worker posted is its transcript.
``scan`` reads transcripts incrementally (the only file I/O here) into an
``OwnPostState``; ``match`` (pure) answers, for each comment, whether it is the
worker's own post, with the rule and the transcript line that decided it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from comment_wake._lazy import lazy_exports

if TYPE_CHECKING:
    from ._match import match
    from ._model import (
        CommentText,
        InlineText,
        NamedPr,
        OwnPostState,
        OwnPostVerdict,
        PostRecord,
        PostRef,
        SourceState,
        TranscriptSource,
    )
    from ._readers import detect_format
    from ._scan import (
        FileReport,
        ReportedPost,
        check_readable,
        read_transcript,
        scan,
        transcript_files,
    )
    from ._text import LinkRef, body_hash, normalise_body

__all__ = [
    "CommentText",
    "FileReport",
    "InlineText",
    "LinkRef",
    "NamedPr",
    "OwnPostState",
    "OwnPostVerdict",
    "PostRecord",
    "PostRef",
    "ReportedPost",
    "SourceState",
    "TranscriptSource",
    "body_hash",
    "check_readable",
    "detect_format",
    "match",
    "normalise_body",
    "read_transcript",
    "scan",
    "transcript_files",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "._match": ("match",),
        "._model": (
            "CommentText",
            "InlineText",
            "NamedPr",
            "OwnPostState",
            "OwnPostVerdict",
            "PostRecord",
            "PostRef",
            "SourceState",
            "TranscriptSource",
        ),
        "._readers": ("detect_format",),
        "._scan": (
            "FileReport",
            "ReportedPost",
            "check_readable",
            "read_transcript",
            "scan",
            "transcript_files",
        ),
        "._text": ("LinkRef", "body_hash", "normalise_body"),
    },
)
