"""Certificates: the JSON envelope, writers, and the independent checker (checker.py)."""

from .envelope import instance_sha256, read_certificate, realizes_certificate, verify, write_certificate

__all__ = ["instance_sha256", "realizes_certificate", "write_certificate", "read_certificate", "verify"]
