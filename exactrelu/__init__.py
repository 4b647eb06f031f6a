"""exactrelu: learn and certify two-layer rectified networks in exact arithmetic."""

__version__ = "0.1.0"
