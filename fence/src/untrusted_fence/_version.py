"""The distribution's version: hatch reads it at build time (``[tool.hatch.version]``)."""

__version__ = "0.1.0"
