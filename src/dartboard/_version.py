"""The package's version, in a module of its own so that any layer can read it without
importing the root package (which re-exports every layer's public names)."""

__version__ = "0.1.0"
