"""The registry's errors; each message says what to fix."""

from __future__ import annotations

__all__ = ["RefusedInputError", "RegistryError", "UnknownWorkerError"]


class RegistryError(Exception):
    """Base of the registry's errors."""


class RefusedInputError(RegistryError, ValueError):
    """Bad input (a malformed PR reference, an unknown orchestrator or publisher kind, a
    transcript that does not exist...): nothing was written."""


class UnknownWorkerError(RegistryError, LookupError):
    """No worker (or orchestrator) by that id is registered."""
