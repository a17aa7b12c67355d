"""untrusted-fence: clean untrusted text and fence it."""

__all__: list[str] = []
