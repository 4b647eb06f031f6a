"""Every reader and writer of files: JSON without surprises, strict ``.npz``, weights files, PyTorch/safetensors.

Readers bound every size before any work (docs/limits.md) and turn every failure into one
:class:`~exactrelu.errors.InvalidInput` line. Where the library and the independent checker must
read a file the same way, the library's reader follows the checker's rules (docs/design.md).
"""
