"""The version of exactrelu: one literal, read by the package, the certificates' provenance and pyproject.toml."""

__version__ = "0.1.0"
