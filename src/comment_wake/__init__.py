"""comment-wake: a trusted person's comment on a pull request wakes the agent that owns it."""

__all__: list[str] = []
